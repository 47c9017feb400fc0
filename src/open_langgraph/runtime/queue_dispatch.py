"""The API side of queue mode: runs go to the PostgreSQL queue, news comes from the bus.

An API process keeps no run state: what it answers comes from the database (runs, stored
events) and the bus only tells it when to look again. Each reader subscribes before it
reads, and numbers events by their stored ids, so nothing published in between is lost or
sent twice; when the bus is quiet for `poll_seconds` (or down), readers re-read the
database, so a lost message costs latency, not an event.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from open_langgraph.runtime import bus as messages
from open_langgraph.runtime.broker import ThreadEvent, ThreadListener, run_start_event
from open_langgraph.runtime.bus import EventBus, Subscription, ThreadMessage, poll_seconds
from open_langgraph.runtime.dispatch import InFlightStatus, RunDispatcher
from open_langgraph.runtime.manager import CancelAction, MultitaskStrategy, RunOutcome
from open_langgraph.storage.base import (
    FINISHED_RUN_STATUSES as FINISHED,
)
from open_langgraph.storage.base import Storage, StoredEvent, ThreadUpdate
from open_langgraph.storage.postgres.queue import PostgresRunQueue


class QueueDispatcher(RunDispatcher):
    def __init__(
        self,
        storage: Storage,
        queue: PostgresRunQueue,
        bus: EventBus,
        *,
        max_queued_events: int = 1000,
        poll_seconds: float = 1.0,
    ) -> None:
        self._storage = storage
        self._queue = queue
        self._bus = bus
        self._max_queued = max_queued_events
        self._poll = poll_seconds
        self._pumps: dict[ThreadListener, asyncio.Task[None]] = {}
        #: Subscriptions taken by `start(watch=True)` for the `wait` that follows it.
        self._watches: dict[str, Subscription] = {}
        self._background: set[asyncio.Task[None]] = set()

    def _poll_seconds(self) -> float:
        return poll_seconds(self._bus, self._poll)

    # -- runs ------------------------------------------------------------------------------
    async def start(
        self,
        run: dict[str, Any],
        thread_update: ThreadUpdate,
        strategy: MultitaskStrategy | None,
        *,
        watch: bool = False,
    ) -> dict[str, Any]:
        after_seconds = float(run["kwargs"].get("after_seconds") or 0)
        start = StoredEvent(0, *run_start_event(run["run_id"], 1))
        if watch:
            # Subscribed before the run exists, the waiter cannot miss its end, so `wait`
            # needs no first look in the database.
            self._watches[run["run_id"]] = await self._bus.subscribe(
                messages.run_end_channel(run["run_id"])
            )
        try:
            ended, running = await self._queue.enqueue(
                run, thread_update, strategy, after_seconds, start
            )
            await self._announce(run["thread_id"], ended, running, strategy or "interrupt")
            await self._bus.publish(messages.WAKE_CHANNEL, b"1")
            # As in one process, the runs a strategy interrupts have ended when this returns.
            for run_id in running:
                await self.wait(run["thread_id"], run_id)
        except BaseException:
            watching = self._watches.pop(run["run_id"], None)
            if watching is not None:
                await self._bus.unsubscribe(watching)
            raise
        run["status"] = "pending"
        return run

    async def _announce(
        self, thread_id: str | None, ended: list[str], running: list[str], action: str
    ) -> None:
        """Tell waiters that queued runs ended, and workers to cancel running ones."""
        for run_id in ended:
            run_thread = thread_id or await self._thread_of(run_id)
            if run_thread is not None:
                await self._bus.publish_many(
                    messages.end_messages(run_thread, ThreadMessage(run_id, [], True))
                )
        for run_id in running:
            await self._bus.publish(messages.CANCEL_CHANNEL, messages.encode_cancel(run_id, action))

    async def _thread_of(self, run_id: str) -> str | None:
        run = await self._storage.get_run(run_id)
        return None if run is None else run["thread_id"]

    async def wait(self, thread_id: str, run_id: str) -> RunOutcome | None:
        subscription = self._watches.pop(run_id, None)
        look = subscription is None
        if subscription is None:
            subscription = await self._bus.subscribe(messages.run_end_channel(run_id))
        try:
            while True:
                if look:
                    run = await self._storage.get_run(run_id)
                    if run is None:
                        return None
                    if run["status"] in FINISHED:
                        return RunOutcome(run["status"], run["output"], run["error"])
                look = True
                told = await self._until_end_or_quiet(subscription, run_id)
                if told is not None:
                    return RunOutcome(told["status"], told["output"], told["error"])
        finally:
            await self._bus.unsubscribe(subscription)

    async def _until_end_or_quiet(
        self, subscription: Subscription, run_id: str
    ) -> dict[str, Any] | None:
        """Wait for the run's end (returning the outcome it carries) or a quiet spell."""
        while True:
            raw = await subscription.get(self._poll_seconds())
            if raw is None:
                return None
            message = ThreadMessage.decode(raw)
            if message.run_id == run_id and message.ended:
                return message.outcome

    def events(
        self, thread_id: str, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        return self._follow(thread_id, run_id, after_seq)

    async def _follow(
        self, thread_id: str, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        subscription = await self._bus.subscribe(messages.thread_channel(thread_id))
        try:
            last = await self._queue.last_event_seq(run_id) if after_seq is None else after_seq
            while True:
                # Status first: events read after seeing the run finished are all there are.
                run = await self._storage.get_run(run_id)
                for event in await self._storage.get_run_events(run_id, last):
                    yield event
                    last = event.seq
                if run is None or run["status"] in FINISHED:
                    return
                while True:
                    raw = await subscription.get(self._poll_seconds())
                    if raw is None:
                        break  # quiet: look in the database
                    message = ThreadMessage.decode(raw)
                    if message.run_id != run_id:
                        continue
                    if message.events and message.events[0].seq > last + 1:
                        break  # a message was missed: the database has it
                    for event in message.events:
                        if event.seq > last:
                            yield event
                            last = event.seq
                    if message.ended and message.last_seq is not None and last >= message.last_seq:
                        return  # every event of the run has come: no need to look again
                    if message.ended:
                        break
        finally:
            await self._bus.unsubscribe(subscription)

    async def cancel(
        self, thread_id: str | None, run_ids: list[str], *, action: CancelAction, wait: bool
    ) -> int:
        ended, running = await self._queue.request_cancel(thread_id, run_ids, action)
        await self._announce(thread_id, ended, running, action)
        if wait:
            for run_id in running:
                run_thread = thread_id or await self._thread_of(run_id)
                if run_thread is not None:
                    await self.wait(run_thread, run_id)
        return len(ended) + len(running)

    async def in_flight(self, thread_id: str | None, status: InFlightStatus) -> list[str]:
        return await self._queue.in_flight(thread_id, status)

    async def is_in_flight(self, run_id: str) -> bool:
        return await self._queue.is_in_flight(run_id)

    async def is_busy(self, thread_id: str) -> bool:
        return await self._queue.is_busy(thread_id)

    # -- a thread's events -----------------------------------------------------------------
    async def attach(self, thread_id: str) -> ThreadListener:
        listener = ThreadListener(self._max_queued)
        subscription = await self._bus.subscribe(messages.thread_channel(thread_id))
        self._pumps[listener] = asyncio.create_task(self._pump(subscription, listener))
        return listener

    async def _pump(self, subscription: Subscription, listener: ThreadListener) -> None:
        try:
            while True:
                raw = await subscription.messages.get()
                for event in ThreadMessage.decode(raw).thread_events():
                    if not listener.put(event):
                        return
        finally:
            await self._bus.unsubscribe(subscription)

    async def detach(self, thread_id: str, listener: ThreadListener) -> None:
        pump = self._pumps.pop(listener, None)
        if pump is not None:
            pump.cancel()
            with contextlib.suppress(BaseException):
                await pump

    def publish_to_thread(self, thread_id: str, event: ThreadEvent) -> None:
        task = asyncio.create_task(
            self._bus.publish(
                messages.thread_channel(thread_id), ThreadMessage.outside_runs(event).encode()
            )
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def recover(self) -> None:
        """Nothing: workers' reapers take back runs whose worker is gone."""

    async def shutdown(self) -> None:
        for listener in list(self._pumps):
            self._pumps.pop(listener).cancel()
