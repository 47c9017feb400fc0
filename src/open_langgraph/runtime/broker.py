"""In-process fan-out of run events to any number of listeners, with replay from an event id.

Each run's events live in memory while it runs (listeners joining late replay them) and are
written to storage when it finishes; after that, storage is the source of replays.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from open_langgraph.storage.base import StoredEvent


class RunEventStream:
    """The ordered events of one run; `seq` ids start at 0 and increase by one."""

    __slots__ = ("_changed", "done", "events", "run_id")

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.events: list[StoredEvent] = []
        self.done = False
        self._changed = asyncio.Event()

    def publish(self, event: str, data: bytes) -> StoredEvent:
        stored = StoredEvent(len(self.events), event, data)
        self.events.append(stored)
        self._wake()
        return stored

    def close(self) -> None:
        self.done = True
        self._wake()

    def _wake(self) -> None:
        # Replace the event so each waiter sees one wake-up per change, then waits anew.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def follow(self, after_seq: int = -1) -> AsyncIterator[StoredEvent]:
        """Yield events after `after_seq`, then live ones, until the run ends."""
        position = after_seq + 1
        while True:
            while position < len(self.events):
                yield self.events[position]
                position += 1
            if self.done:
                return
            await self._changed.wait()


class Broker:
    """Live event streams of the runs this process executes."""

    def __init__(self) -> None:
        self._streams: dict[str, RunEventStream] = {}

    def open(self, run_id: str) -> RunEventStream:
        stream = RunEventStream(run_id)
        self._streams[run_id] = stream
        return stream

    def get(self, run_id: str) -> RunEventStream | None:
        return self._streams.get(run_id)

    def discard(self, run_id: str) -> None:
        self._streams.pop(run_id, None)
