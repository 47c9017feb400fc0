"""Where a stored run goes to be executed, and how the API learns what it does.

Two strategies behind one interface, picked at start-up (`server/app.py`):

* `LocalDispatcher`: the run manager of this very process executes runs and its broker fans
  their events out in memory. The embedded default (SQLite, or PostgreSQL without Redis).
* `QueueDispatcher` (`runtime/queue_dispatch.py`): runs go to a durable queue in PostgreSQL
  and are executed by worker processes; events and wake-ups cross processes through the
  event bus (Redis) and are stored as they happen, so any API process answers any request.

Services and routes only ever talk to this interface, never to a manager or a broker.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from typing import Any, Literal

from open_langgraph.runtime.broker import Broker, RunEventStream, ThreadEvent, ThreadListener
from open_langgraph.runtime.manager import CancelAction, MultitaskStrategy, RunManager, RunOutcome
from open_langgraph.storage.base import Storage, StoredEvent, ThreadUpdate

#: Which in-flight runs a bulk cancel picks.
InFlightStatus = Literal["pending", "running", "all"] | None


class RunDispatcher(abc.ABC):
    """Executing runs and following them, wherever they execute."""

    @abc.abstractmethod
    async def start(
        self,
        run: dict[str, Any],
        thread_update: ThreadUpdate,
        strategy: MultitaskStrategy | None,
        *,
        watch: bool = False,
    ) -> dict[str, Any]:
        """Store a new run (its `status` decided here) and have it executed.

        `strategy` is applied when the thread is busy: `reject` raises `Conflict`,
        `interrupt` / `rollback` cancel the runs in flight. None: a new thread (stateless run).
        `watch`: the caller calls `wait` for this run next, so a dispatcher that learns of
        ends by subscription may subscribe now, before the run can end, and skip a read.
        """

    @abc.abstractmethod
    async def wait(self, thread_id: str, run_id: str) -> RunOutcome | None:
        """Wait for an in-flight run to end; None when it is not in flight (any more)."""

    @abc.abstractmethod
    def events(
        self, thread_id: str, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        """The run's events after `after_seq` (None: from this call on), then live ones
        until it ends; a finished run's stored events."""

    @abc.abstractmethod
    async def cancel(
        self, thread_id: str | None, run_ids: list[str], *, action: CancelAction, wait: bool
    ) -> int:
        """Cancel those of `run_ids` still in flight (on `thread_id` if given); how many."""

    @abc.abstractmethod
    async def in_flight(self, thread_id: str | None, status: InFlightStatus) -> list[str]:
        """Ids of runs pending or running (on `thread_id`, or anywhere)."""

    @abc.abstractmethod
    async def is_in_flight(self, run_id: str) -> bool: ...

    @abc.abstractmethod
    async def is_busy(self, thread_id: str) -> bool:
        """True while the thread has a run pending or running."""

    # -- a thread's events -----------------------------------------------------------------
    @abc.abstractmethod
    async def attach(self, thread_id: str) -> ThreadListener:
        """A bounded listener of the thread's events from now on, until `detach`."""

    @abc.abstractmethod
    async def detach(self, thread_id: str, listener: ThreadListener) -> None: ...

    @abc.abstractmethod
    def publish_to_thread(self, thread_id: str, event: ThreadEvent) -> None:
        """Tell the thread's listeners, in every API process, of an event outside runs."""

    def live_stream(self, run_id: str) -> RunEventStream | None:
        """The in-memory stream of a run executing in this process, if there is one."""
        return None

    def live_trace(self, run_id: str) -> dict[str, Any] | None:
        """The trace so far of a run executing in this process (a queue worker's runs show
        theirs once they end)."""
        return None

    # -- lifecycle -------------------------------------------------------------------------
    @abc.abstractmethod
    async def recover(self) -> None:
        """Settle what a previous process left behind, at start-up."""

    @abc.abstractmethod
    async def shutdown(self) -> None: ...


class LocalDispatcher(RunDispatcher):
    """Runs executed by this process's `RunManager`, events fanned out by its `Broker`."""

    def __init__(self, storage: Storage, manager: RunManager, broker: Broker) -> None:
        self._storage = storage
        self.manager = manager
        self._broker = broker

    async def start(
        self,
        run: dict[str, Any],
        thread_update: ThreadUpdate,
        strategy: MultitaskStrategy | None,
        *,
        watch: bool = False,
    ) -> dict[str, Any]:
        thread_id = run["thread_id"]
        if strategy is not None:
            await self.manager.prepare_thread(thread_id, strategy)
        # Nothing between this decision and `submit` yields to another request on SQLite,
        # whose connection runs inline: no second run can slip in.
        after_seconds = float(run["kwargs"].get("after_seconds") or 0)
        starts_now = self.manager.will_start_now(thread_id, after_seconds)
        run["status"] = "running" if starts_now else "pending"
        await self._storage.create_run(run, thread_update)
        self.manager.submit(run, started=starts_now)
        # The answer shows the run as created, `pending`, as the Platform's does (and queue
        # mode's): a run that starts at once is stored `running` without a second write.
        return {**run, "status": "pending"}

    async def wait(self, thread_id: str, run_id: str) -> RunOutcome | None:
        handle = self.manager.handle(run_id)
        return None if handle is None else await self.manager.wait(handle)

    def events(
        self, thread_id: str, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        stream = self._broker.get(run_id)
        if stream is not None:
            return stream.follow(stream.last_seq if after_seq is None else after_seq)
        return self._stored_events(run_id, after_seq)

    async def _stored_events(
        self, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        if after_seq is None:
            return
        for event in await self._storage.get_run_events(run_id, after_seq):
            yield event

    async def cancel(
        self, thread_id: str | None, run_ids: list[str], *, action: CancelAction, wait: bool
    ) -> int:
        return await self.manager.cancel(thread_id, run_ids, action=action, wait=wait)

    async def in_flight(self, thread_id: str | None, status: InFlightStatus) -> list[str]:
        handles = self.manager.thread_runs(thread_id) if thread_id else self.manager.all_handles()
        # A run has a task once it started executing (or is waiting out after_seconds).
        return [
            h.run_id
            for h in handles
            if status in (None, "all") or (status == "running") == (h.task is not None)
        ]

    async def is_in_flight(self, run_id: str) -> bool:
        return self.manager.handle(run_id) is not None

    async def is_busy(self, thread_id: str) -> bool:
        return self.manager.is_busy(thread_id)

    async def attach(self, thread_id: str) -> ThreadListener:
        return self._broker.attach(thread_id)

    async def detach(self, thread_id: str, listener: ThreadListener) -> None:
        self._broker.detach(thread_id, listener)

    def publish_to_thread(self, thread_id: str, event: ThreadEvent) -> None:
        self._broker.publish_to_thread(thread_id, event)

    def live_stream(self, run_id: str) -> RunEventStream | None:
        return self._broker.get(run_id)

    def live_trace(self, run_id: str) -> dict[str, Any] | None:
        handle = self.manager.handle(run_id)
        if handle is None or handle.observation is None:
            return None
        return handle.observation.trace.snapshot(complete=False)

    async def recover(self) -> None:
        await self.manager.recover()

    async def shutdown(self) -> None:
        await self.manager.shutdown()
