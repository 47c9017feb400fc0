"""A queue worker: takes runs from the PostgreSQL queue, executes them, keeps their leases.

Executing is the run manager's job, as in a single process; this module changes where runs
come from and where what they do goes:

* runs are claimed from the queue (`storage/postgres/queue.py`) when the bus says one may be
  due, when one of ours ends, or every `poll_seconds` in case a wake-up was lost;
* every event is stored the moment it happens and then published on the bus (`EventRelay`),
  so a reader in any process can replay it and the bus never carries an event the database
  lacks;
* a lease on each run is renewed every third of its length; a run whose worker stops
  renewing is taken back by any worker's reaper and resumed from its last checkpoint by the
  next worker (attempt + 1, `metadata.run_attempt`), its events numbered on after the
  stored ones, so no stream client receives an event twice;
* SIGTERM stops claiming, lets the runs held finish for `grace_seconds`, and hands the rest
  back to the queue to resume elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from open_langgraph.models.local.runner import LoadHook, set_before_load
from open_langgraph.runtime import bus as messages
from open_langgraph.runtime.broker import Broker, RunEventStream, ThreadEvent, run_start_event
from open_langgraph.runtime.bus import EventBus, poll_seconds
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.manager import RunHandle, RunManager, RunOutcome
from open_langgraph.runtime.outage import database_unavailable
from open_langgraph.runtime.settling import retrying
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.serde import dumps
from open_langgraph.storage.base import Storage, StoredEvent, ThreadUpdate
from open_langgraph.storage.postgres.queue import PostgresRunQueue

logger = logging.getLogger(__name__)

LIVE_TRACE_SECONDS = 1.0
"""How often a worker stores the traces of its runs still executing, and how long a run
executes before its trace is stored before its end."""


@dataclass(slots=True)
class RunRelay:
    """One run's place in the `EventWriter`: where its events go, how it ended."""

    run_id: str
    thread_id: str
    silenced: bool = False
    """Set once the run is no longer this worker's: nothing more of it is published."""
    outcome: dict[str, Any] | None = None
    last_seq: int | None = None
    """The id of the newest event of the run pushed so far."""


class EventWriter:
    """Stores the events of a worker's runs as they happen, then publishes them.

    Events are pushed synchronously by the runs' event streams; one flusher task writes
    whatever accumulated, across runs, in one statement, then publishes one message per
    thread in one round trip. Under load that is a few round trips per batch, not per event.
    """

    def __init__(self, queue: PostgresRunQueue, bus: EventBus) -> None:
        self._queue = queue
        self._bus = bus
        self._pending: list[tuple[RunRelay, ThreadEvent, bool]] = []
        self._flusher: asyncio.Task[None] | None = None

    def push(self, relay: RunRelay, event: ThreadEvent, *, stored: bool = False) -> None:
        """Queue `event` to be stored (unless it is `stored` already) and published."""
        if relay.silenced:
            return
        if event.seq is not None:
            relay.last_seq = max(event.seq, relay.last_seq or 0)
        self._pending.append((relay, event, stored))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="run-events")

    async def drain(self) -> None:
        """Return once everything pushed so far is stored and published."""
        while self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._flusher)

    async def _flush(self) -> None:
        while self._pending:
            pending, self._pending = self._pending, []
            pending = [item for item in pending if not item[0].silenced]
            new = [
                (relay.run_id, StoredEvent(e.seq, e.event, e.data))
                for relay, e, stored in pending
                if e.seq is not None and not stored
            ]
            if new:
                try:
                    await retrying(
                        "storing run events", lambda rows=new: self._queue.append_events(rows)
                    )
                except Exception:
                    logger.exception("%d run events could not be stored", len(new))
            await self._bus.publish_many(_messages_of([(r, e) for r, e, _ in pending]))


def _messages_of(batch: list[tuple[RunRelay, ThreadEvent]]) -> list[tuple[str, bytes]]:
    """One message per run (in order of first appearance) on its thread's channel, and an
    ended run's also to its waiters."""
    grouped: dict[str, tuple[RunRelay, list[StoredEvent], list[bool]]] = {}
    for relay, event in batch:
        _, events, ended = grouped.setdefault(relay.run_id, (relay, [], [False]))
        if event.seq is None:
            ended[0] = True
        else:
            events.append(StoredEvent(event.seq, event.event, event.data))
    published: list[tuple[str, bytes]] = []
    for relay, events, ended in grouped.values():
        message = messages.ThreadMessage(
            relay.run_id,
            events,
            ended[0],
            relay.outcome if ended[0] else None,
            relay.last_seq if ended[0] and relay.outcome is not None else None,
        )
        if message.ended:
            published += messages.end_messages(relay.thread_id, message)
        else:
            published.append((messages.thread_channel(relay.thread_id), message.encode()))
    return published


class QueueRunManager(RunManager):
    """The run manager of a worker: runs arrive claimed, their ends are stored only while
    the lease is still ours, and their events go through an `EventWriter`."""

    def __init__(
        self,
        storage: Storage,
        queue: PostgresRunQueue,
        bus: EventBus,
        graphs: GraphRegistry,
        *,
        worker_id: str,
        max_concurrency: int,
        max_attempts: int = 3,
        webhooks: WebhookSender | None,
        run_timeout_seconds: float | None,
    ) -> None:
        super().__init__(
            storage,
            graphs,
            Broker(),  # holds no stream: `_open_stream` sends events to a relay instead
            max_concurrency=max_concurrency,
            webhooks=webhooks,
            run_timeout_seconds=run_timeout_seconds,
        )
        self._queue = queue
        self._bus = bus
        self._worker_id = worker_id
        self._max_attempts = max_attempts
        self._writer = EventWriter(queue, bus)
        self._relays: dict[str, RunRelay] = {}
        #: Runs whose end is being stored: their lease ends with it, not lost.
        self.ending: set[str] = set()
        self.on_settled: asyncio.Event = asyncio.Event()
        #: Set when a run ended in a way that may have made a queued run claimable (its
        #: thread has more runs, or it was cancelled); the claim loop looks again only then.
        self.claim_hint = False
        #: The write of live traces in progress (`flush_live_traces`), which a run's end
        #: waits for, so that its complete trace is the one that stays.
        self._trace_flush: asyncio.Future[None] | None = None
        self._flushed_versions: dict[str, int] = {}

    @property
    def running(self) -> int:
        return len(self._handles)

    def _open_stream(self, run: dict[str, Any]) -> RunEventStream:
        relay = RunRelay(run["run_id"], run["thread_id"])
        self._relays[run["run_id"]] = relay
        first_seq = run.pop("next_seq", 0)
        return RunEventStream(
            run["run_id"], lambda event: self._writer.push(relay, event), first_seq=first_seq
        )

    def _announce_start(self, handle: RunHandle, attempt: int) -> None:
        """The API process stored a first attempt's start event with the run, under the
        run's first id, so that the run's own stream begins before any worker takes it;
        here it is only published, so the thread's listeners learn of the run now that it
        starts, in run order."""
        relay = self._relays.get(handle.run_id)
        if attempt != 1 or handle.stream.first_seq == 0 or relay is None:
            super()._announce_start(handle, attempt)
            return
        start = ThreadEvent(*run_start_event(handle.run_id, attempt), handle.run_id, 0)
        self._writer.push(relay, start, stored=True)

    async def flush_live_traces(self, older_than: float) -> None:
        """Store the traces so far of runs executing longer than `older_than` seconds that
        changed since the last flush: what API processes show of a worker's running run.
        Shorter runs store theirs only at their end."""
        traces = []
        for handle in self.all_handles():
            trace = handle.observation.trace if handle.observation else None
            if trace is None or trace.closed or trace.age() < older_than:
                continue
            if self._flushed_versions.get(handle.run_id) == trace.version:
                continue
            self._flushed_versions[handle.run_id] = trace.version
            traces.append((handle.run_id, dumps(trace.snapshot(complete=False))))
        if not traces:
            return
        self._trace_flush = asyncio.ensure_future(self._queue.store_live_traces(traces))
        try:
            await asyncio.shield(self._trace_flush)
        finally:
            self._trace_flush = None

    async def _final_trace(self, handle: RunHandle) -> bytes | None:
        """The run's trace for its end, once no live copy of it is being written."""
        if handle.observation is None:
            return None
        handle.observation.trace.closed = True
        if self._trace_flush is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._trace_flush)
        return handle.observation.trace.stored()

    async def _store_outcome(
        self,
        handle: RunHandle,
        outcome: RunOutcome,
        thread_update: ThreadUpdate | None,
        events: list[StoredEvent],
    ) -> None:
        relay = self._relays.get(handle.run_id)
        trace = await self._final_trace(handle)
        await self._writer.drain()
        self.ending.add(handle.run_id)
        stored = await self._queue.finish_claimed(
            handle.run_id,
            handle.thread_id,
            self._worker_id,
            status=outcome.status,
            output=outcome.output,
            error=outcome.error,
            thread_update=thread_update,
            first_seq=handle.stream.first_seq,
            kept_seqs=[event.seq for event in events],
            trace=trace,
        )
        if thread_update is None or thread_update.status == "busy":
            # `finish_claimed` marks the thread busy when more of its runs are in flight.
            self.claim_hint = True
        if stored and relay is not None:
            relay.outcome = {
                "status": outcome.status,
                "output": outcome.output,
                "error": outcome.error,
            }
        if not stored:
            # The lease expired and another worker owns the run now: its end is theirs.
            logger.warning("run %s: lease lost before the end was stored", handle.run_id)
            handle.released = "lost"
            if relay is not None:
                relay.silenced = True

    async def _resume_after_outage(self, handle: RunHandle, exc: Exception) -> bool:
        return False  # handed back to the queue instead (`_failed`), for any worker to resume

    def _failed(self, handle: RunHandle, exc: Exception) -> tuple[RunOutcome, ThreadUpdate]:
        """A run that failed because PostgreSQL went away (a restart, a failover) is not the
        graph's fault: it goes back to the queue and resumes from its last checkpoint once
        the database answers again, instead of ending `error`."""
        attempt = handle.run.get("attempt") or 1
        # Bounded as a lost worker's runs are: a graph whose own PostgreSQL connection keeps
        # failing ends `error` after `max_attempts` instead of going round for ever.
        if not database_unavailable(exc) or attempt >= self._max_attempts:
            return super()._failed(handle, exc)
        logger.warning(
            "run %s: the database failed mid-run (%s: %s); it goes back to the queue",
            handle.run_id,
            type(exc).__name__,
            exc,
        )
        handle.released = "handback"
        return RunOutcome("interrupted"), ThreadUpdate(status="busy")

    async def _roll_back(self, handle: RunHandle, graph: Any, was_head: bool, busy: bool) -> None:
        busy = len(await self._queue.in_flight(handle.thread_id, None)) > 1
        await super()._roll_back(handle, graph, was_head, busy)

    async def _release(self, handle: RunHandle) -> None:
        relay = self._relays.get(handle.run_id)
        await self._writer.drain()
        if relay is not None:
            relay.silenced = True
        if handle.released != "handback":
            return
        handed: list[bool] = []

        async def hand_back() -> None:
            handed.append(await self._queue.handback(handle.run_id, self._worker_id))

        try:
            await retrying(f"handing run {handle.run_id} back", hand_back)
        except Exception as exc:
            # Its lease is no longer renewed: when it expires, any worker claims the run.
            logger.warning(
                "run %s: handing it back failed (%s); it is claimed again when its lease ends",
                handle.run_id,
                exc,
            )
            return
        if handed and handed[-1]:
            logger.info("run %s handed back to the queue", handle.run_id)
            await self._bus.publish(messages.WAKE_CHANNEL, b"1")

    def _call_webhook(self, handle: RunHandle, outcome: RunOutcome, thread_update: Any) -> None:
        if handle.released is None:
            super()._call_webhook(handle, outcome, thread_update)

    def _settled(self, handle: RunHandle) -> None:
        if handle.cancel_action is not None:
            self.claim_hint = True
        self.ending.discard(handle.run_id)
        self._relays.pop(handle.run_id, None)
        self._flushed_versions.pop(handle.run_id, None)
        self.on_settled.set()

    def still_executing(self, run_id: str) -> bool:
        """Whether this worker executes the run and has not let it go."""
        handle = self._handles.get(run_id)
        return handle is not None and handle.released is None and handle.outcome is None

    def release_all(self, how: str) -> list[RunHandle]:
        """Mark every run held as released (`handback` / `lost`) and cancel it."""
        held = list(self._handles.values())
        for handle in held:
            handle.released = how  # type: ignore[assignment]
            if handle.task is not None:
                handle.task.cancel()
        return held

    def release(self, run_id: str, how: str) -> None:
        handle = self._handles.get(run_id)
        if handle is not None and handle.released is None:
            handle.released = how  # type: ignore[assignment]
            if handle.task is not None:
                handle.task.cancel()


class QueueWorker:
    """Claims, executes and guards runs until stopped."""

    def __init__(
        self,
        storage: Storage,
        queue: PostgresRunQueue,
        bus: EventBus,
        graphs: GraphRegistry,
        *,
        concurrency: int = 32,
        lease_seconds: float = 5.0,
        max_attempts: int = 3,
        poll_seconds: float = 1.0,
        grace_seconds: float = 30.0,
        webhooks: WebhookSender | None = None,
        run_timeout_seconds: float | None = None,
    ) -> None:
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._queue = queue
        self._bus = bus
        self._concurrency = concurrency
        self._lease = lease_seconds
        self._max_attempts = max_attempts
        self._poll = poll_seconds
        self._grace = grace_seconds
        self.manager = QueueRunManager(
            storage,
            queue,
            bus,
            graphs,
            worker_id=self.worker_id,
            max_concurrency=concurrency,
            max_attempts=max_attempts,
            webhooks=webhooks,
            run_timeout_seconds=run_timeout_seconds,
        )
        self._wake = asyncio.Event()
        self._stopping = False
        self._tasks: list[asyncio.Task[None]] = []
        # Until when (monotonic) leases are renewed for longer than usual: a model load.
        self._extended_until = 0.0

    async def start(self) -> None:
        set_before_load(self._before_model_load(asyncio.get_running_loop()))
        wake = await self._bus.subscribe(messages.WAKE_CHANNEL)
        cancels = await self._bus.subscribe(messages.CANCEL_CHANNEL)
        self._tasks = [
            asyncio.create_task(self._claim_loop(), name="worker-claim"),
            asyncio.create_task(self._lease_loop(), name="worker-leases"),
            asyncio.create_task(self._trace_loop(), name="worker-traces"),
            asyncio.create_task(self._listen_wake(wake), name="worker-wake"),
            asyncio.create_task(self._listen_cancel(cancels), name="worker-cancel"),
        ]
        logger.info(
            "worker %s taking runs (concurrency %d, lease %g s)",
            self.worker_id,
            self._concurrency,
            self._lease,
        )

    async def stop(self) -> None:
        """Stop claiming; give held runs `grace_seconds` to end, then hand them back."""
        self._stopping = True
        self._wake.set()
        deadline = asyncio.get_running_loop().time() + self._grace
        while self.manager.running and asyncio.get_running_loop().time() < deadline:
            self.manager.on_settled.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.manager.on_settled.wait(), 0.2)
        held = self.manager.release_all("handback")
        for handle in held:
            await handle.done.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        set_before_load(None)
        logger.info("worker %s stopped (%d runs handed back)", self.worker_id, len(held))

    # -- loops -----------------------------------------------------------------------------
    async def _claim_loop(self) -> None:
        """Claim when told a run may be due (a wake-up, a poll), or when a slot frees up
        while runs may be waiting for one: not after every run, since each claim is a
        query every worker would otherwise repeat for nothing."""
        due = True
        while not self._stopping:
            self._wake.clear()
            self.manager.on_settled.clear()
            hint, self.manager.claim_hint = self.manager.claim_hint, False
            if due or hint:
                try:
                    due = await self._claim_free_slots()
                except Exception:
                    due = False  # the next poll tries again
                    logger.exception("worker %s: claiming a run failed", self.worker_id)
            waits = [
                asyncio.ensure_future(self._wake.wait()),
                asyncio.ensure_future(self.manager.on_settled.wait()),
            ]
            done, _ = await asyncio.wait(
                waits,
                timeout=poll_seconds(self._bus, self._poll),
                return_when=asyncio.FIRST_COMPLETED,
            )
            for waiting in waits:
                waiting.cancel()
            if not done or self._wake.is_set():
                due = True

    async def _claim_free_slots(self) -> bool:
        """Claim runs until the free slots are full or none is due; True when runs may be
        left waiting for a slot (every slot was taken)."""
        while not self._stopping:
            free = self._concurrency - self.manager.running
            if free <= 0:
                return True
            began = time.monotonic()
            claimed = await self._queue.claim(self.worker_id, self._lease, free)
            logger.debug(
                "claimed %d of %d in %.1f ms",
                len(claimed),
                free,
                (time.monotonic() - began) * 1000,
            )
            for run in claimed:
                if self.manager.still_executing(run["run_id"]):
                    # Its lease ran out while this worker could not renew it (the database
                    # was unreachable) and the run came back to this same worker: the
                    # attempt executing carries on and stores the end under the new claim.
                    # A second attempt beside it would run the graph twice.
                    logger.warning(
                        "run %s: claimed again while still executing here", run["run_id"]
                    )
                    continue
                # Claimed runs are due: `after_seconds` was waited out in the queue.
                run["kwargs"] = {**run["kwargs"], "after_seconds": 0}
                self.manager.submit(run, started=True)
            if len(claimed) < free:
                return False
        return False

    async def _lease_loop(self) -> None:
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                await self._renew()
                requeued, failed = await self._queue.reap(self._max_attempts)
                if requeued:
                    logger.warning("runs %s lost their worker: queued again", requeued)
                    await self._bus.publish(messages.WAKE_CHANNEL, b"1")
                    self._wake.set()
                for run_id, thread_id in failed:
                    logger.warning("run %s lost its worker too often: ended error", run_id)
                    await self._bus.publish_many(
                        messages.end_messages(thread_id, messages.ThreadMessage(run_id, [], True))
                    )
            except Exception:
                logger.exception("worker %s: renewing leases failed", self.worker_id)

    async def _trace_loop(self) -> None:
        """Every `LIVE_TRACE_SECONDS`, the traces of runs executing longer than that, for
        API processes to show while the run goes on (`GET .../runs/{id}/trace`)."""
        while True:
            await asyncio.sleep(LIVE_TRACE_SECONDS)
            try:
                await self.manager.flush_live_traces(LIVE_TRACE_SECONDS)
            except Exception as exc:
                logger.warning("worker %s: storing live traces failed: %s", self.worker_id, exc)

    def _before_model_load(self, loop: asyncio.AbstractEventLoop) -> LoadHook:
        """The hook run before a model load freezes this process (models/local/runner.py):
        it extends the leases of the runs held first, so none is taken over meanwhile, and
        shortens them again once the load is over, so that a worker dying afterwards is
        replaced within one usual lease."""

        def renew_now(wait: bool) -> None:
            if threading.get_ident() == loop_thread:
                return  # on the event loop itself: cannot wait; the next renewal does it
            done = asyncio.run_coroutine_threadsafe(self._renew(), loop)
            if wait:
                with contextlib.suppress(Exception):
                    done.result(timeout=10)

        def extend(seconds: float) -> Callable[[], None]:
            self._extended_until = time.monotonic() + seconds
            renew_now(wait=True)
            return end_extension

        def end_extension() -> None:
            self._extended_until = 0.0
            renew_now(wait=False)

        loop_thread = threading.get_ident()
        return extend

    async def _renew(self) -> None:
        # A run whose outcome is set has ended: its lease went with it.
        held = [
            h.run_id for h in self.manager.all_handles() if h.released is None and h.outcome is None
        ]
        lease = max(self._lease, self._extended_until - time.monotonic())
        kept = await self._queue.renew(self.worker_id, held, lease)
        for run_id in held:
            if run_id in self.manager.ending or self.manager.handle(run_id) is None:
                continue  # it ended meanwhile: the lease went with it
            if run_id not in kept:
                logger.warning("run %s: lease lost; another worker will resume it", run_id)
                self.manager.release(run_id, "lost")
            elif (action := kept[run_id]) is not None:
                await self._cancel(run_id, action)

    async def _listen_wake(self, subscription: messages.Subscription) -> None:
        while True:
            await subscription.messages.get()
            self._wake.set()

    async def _listen_cancel(self, subscription: messages.Subscription) -> None:
        while True:
            run_id, action = messages.decode_cancel(await subscription.messages.get())
            await self._cancel(run_id, action)

    async def _cancel(self, run_id: str, action: str) -> None:
        handle = self.manager.handle(run_id)
        if handle is None or handle.cancel_action is not None or handle.released is not None:
            return
        await self.manager.cancel(None, [run_id], action=action, wait=False)  # type: ignore[arg-type]
