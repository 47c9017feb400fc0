"""In-process fan-out of run events to any number of listeners, with replay from an event id.

Each run's events live in memory while it runs (listeners joining late replay them) and are
written to storage when it finishes; after that, storage is the source of replays. Listeners
of a whole thread get every event of every run on it, each run's end, and state edits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from open_langgraph.serde import dumps
from open_langgraph.storage.base import StoredEvent

RUN_END_SUFFIX = "end"


@dataclass(frozen=True, slots=True)
class ThreadEvent:
    """One event of a thread's stream.

    Run events carry the id `<run_id>:<seq>` and a run's end `<run_id>:end`, so a client
    resuming with `Last-Event-ID` can be replayed from storage after a restart. State edits
    happen outside runs and are not replayed, so they carry no id.
    """

    event: str
    data: bytes
    run_id: str | None = None
    seq: int | None = None

    @property
    def event_id(self) -> str | None:
        if self.run_id is None:
            return None
        return f"{self.run_id}:{RUN_END_SUFFIX if self.seq is None else self.seq}"

    @classmethod
    def of_run(cls, run_id: str, event: StoredEvent) -> ThreadEvent:
        return cls(event.event, event.data, run_id, event.seq)

    @classmethod
    def run_end(cls, run_id: str) -> ThreadEvent:
        return cls("metadata", dumps({"status": "run_done", "run_id": run_id}), run_id)

    @classmethod
    def state_update(cls, thread_id: str, state: dict[str, Any]) -> ThreadEvent:
        """A state edit, sent to the thread's listeners as LangGraph Platform does."""
        return cls("state_update", dumps({"state": state, "thread_id": thread_id}))


class RunEventStream:
    """The ordered events of one run; `seq` ids start at 0 and increase by one."""

    __slots__ = ("_changed", "_fanout", "done", "events", "run_id")

    def __init__(self, run_id: str, fanout: Callable[[ThreadEvent], None] | None = None) -> None:
        self.run_id = run_id
        self.events: list[StoredEvent] = []
        self.done = False
        self._changed = asyncio.Event()
        self._fanout = fanout

    def publish(self, event: str, data: bytes) -> StoredEvent:
        stored = StoredEvent(len(self.events), event, data)
        self.events.append(stored)
        self._wake()
        if self._fanout is not None:
            self._fanout(ThreadEvent.of_run(self.run_id, stored))
        return stored

    def close(self) -> None:
        self.done = True
        self._wake()
        if self._fanout is not None:
            self._fanout(ThreadEvent.run_end(self.run_id))

    def _wake(self) -> None:
        # Replace the event so each waiter sees one wake-up per change, then waits anew.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def follow(self, after_seq: int | None = -1) -> AsyncIterator[StoredEvent]:
        """Yield events after `after_seq` (None: only new ones), then live ones, until the end."""
        position = len(self.events) if after_seq is None else after_seq + 1
        while True:
            while position < len(self.events):
                yield self.events[position]
                position += 1
            if self.done:
                return
            await self._changed.wait()


class Broker:
    """Live event streams of the runs this process executes, and listeners of threads."""

    def __init__(self) -> None:
        self._streams: dict[str, RunEventStream] = {}
        self._thread_listeners: dict[str, set[asyncio.Queue[ThreadEvent]]] = {}

    def open(self, run_id: str, thread_id: str) -> RunEventStream:
        stream = RunEventStream(run_id, lambda event: self.publish_to_thread(thread_id, event))
        self._streams[run_id] = stream
        return stream

    def get(self, run_id: str) -> RunEventStream | None:
        return self._streams.get(run_id)

    def discard(self, run_id: str) -> None:
        self._streams.pop(run_id, None)

    def publish_to_thread(self, thread_id: str, event: ThreadEvent) -> None:
        for queue in self._thread_listeners.get(thread_id, ()):
            queue.put_nowait(event)

    @contextlib.contextmanager
    def listen_to_thread(self, thread_id: str) -> Iterator[asyncio.Queue[ThreadEvent]]:
        """A queue receiving the thread's events from now on, until the block exits."""
        queue: asyncio.Queue[ThreadEvent] = asyncio.Queue()
        listeners = self._thread_listeners.setdefault(thread_id, set())
        listeners.add(queue)
        try:
            yield queue
        finally:
            listeners.discard(queue)
            if not listeners:
                self._thread_listeners.pop(thread_id, None)
