"""In-process fan-out of run events to any number of listeners, with replay from an event id.

Each run's events live in memory while it runs (listeners joining late replay them) and are
written to storage when it finishes; after that, storage is the source of replays. Listeners
of a whole thread get every event of every run on it, each run's end, and state edits.

Nothing here grows without bound or waits on a client: a `messages/partial` event replaces
the previous partial of its message in the run's log (each carries the whole message so far,
so keeping all of them would cost O(n^2) bytes for a reply of n chunks), and a thread
listener that falls `max_queued_events` behind is detached (`SlowConsumer`), to reconnect
with `Last-Event-ID`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from open_langgraph.serde import dumps
from open_langgraph.storage.base import StoredEvent

RUN_END_SUFFIX = "end"


def event_name(mode: str, namespace: tuple[str, ...]) -> str:
    """A run event's name: the stream mode, then the namespace's segments, `|`-separated."""
    return f"{mode}|{'|'.join(namespace)}" if namespace else mode


def split_event_name(name: str) -> tuple[str, list[str]]:
    """The stream mode and namespace of a run event's name (`event_name` reversed)."""
    mode, *namespace = name.split("|")
    return mode, namespace


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


def run_start_event(run_id: str, attempt: int) -> tuple[str, bytes]:
    """The `metadata` event every attempt of a run streams first: the run's id, and which
    attempt this is (a run resumed after losing its worker streams a second one)."""
    return "metadata", dumps({"run_id": run_id, "attempt": attempt})


class RunEventStream:
    """The ordered events of one run; `seq` ids start at 0 and increase by one.

    `_log[seq - first_seq]` is the event with that id, or None once a later event superseded
    it.
    """

    __slots__ = ("_base", "_changed", "_fanout", "_latest", "_log", "done", "run_id")

    def __init__(
        self,
        run_id: str,
        fanout: Callable[[ThreadEvent], None] | None = None,
        *,
        first_seq: int = 0,
    ) -> None:
        """`first_seq` continues a run's numbering: a run resumed by another worker goes on
        after the events its earlier attempt stored, so no id is ever handed out twice."""
        self.run_id = run_id
        self._base = first_seq
        self._log: list[StoredEvent | None] = []
        self._latest: dict[str, int] = {}
        self.done = False
        self._changed = asyncio.Event()
        self._fanout = fanout

    @property
    def events(self) -> list[StoredEvent]:
        """The run's events, without superseded ones: what is stored when it ends."""
        return [event for event in self._log if event is not None]

    @property
    def last_seq(self) -> int:
        """The id of the newest event so far (-1 before the first)."""
        return self._base + len(self._log) - 1

    @property
    def first_seq(self) -> int:
        return self._base

    def events_after(self, after_seq: int) -> list[StoredEvent]:
        start = max(after_seq + 1 - self._base, 0)
        return [event for event in self._log[start:] if event is not None]

    def publish(self, event: str, data: bytes, *, supersedes: str | None = None) -> StoredEvent:
        """Append an event. One published with a `supersedes` key replaces, in the log, the
        previous event published with the same key; a client that already received that one
        keeps it, one replaying later gets only the newest."""
        stored = StoredEvent(self._base + len(self._log), event, data)
        if supersedes is not None:
            previous = self._latest.get(supersedes)
            if previous is not None:
                self._log[previous] = None
            self._latest[supersedes] = len(self._log)
        self._log.append(stored)
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
        position = len(self._log) if after_seq is None else max(after_seq + 1 - self._base, 0)
        while True:
            while position < len(self._log):
                event = self._log[position]
                position += 1
                if event is not None:
                    yield event
            if self.done:
                return
            await self._changed.wait()


class SlowConsumer(Exception):
    """A thread listener fell too far behind and was detached."""


class ThreadListener:
    """The events a thread stream has not sent yet, at most `limit` of them.

    A listener that would hold more is detached: it still hands out what it holds, then
    raises `SlowConsumer`. Publishing never waits on a listener and never grows past the
    bound, whatever the client's speed.
    """

    __slots__ = ("_events", "_limit", "_ready", "detached")

    def __init__(self, limit: int) -> None:
        self._events: deque[ThreadEvent] = deque()
        self._limit = limit
        self._ready = asyncio.Event()
        self.detached = False

    def put(self, event: ThreadEvent) -> bool:
        """Queue `event`; False if the listener is (now) detached."""
        if self.detached:
            return False
        if len(self._events) >= self._limit:
            self.detached = True
            self._ready.set()
            return False
        self._events.append(event)
        self._ready.set()
        return True

    async def get(self) -> ThreadEvent:
        while not self._events:
            if self.detached:
                raise SlowConsumer(f"fell more than {self._limit} events behind")
            self._ready.clear()
            await self._ready.wait()
        return self._events.popleft()


class Broker:
    """Live event streams of the runs this process executes, and listeners of threads."""

    def __init__(self, max_queued_events: int = 1000) -> None:
        self._streams: dict[str, RunEventStream] = {}
        self._thread_listeners: dict[str, set[ThreadListener]] = {}
        self._max_queued = max_queued_events

    def open(self, run_id: str, thread_id: str) -> RunEventStream:
        stream = RunEventStream(run_id, lambda event: self.publish_to_thread(thread_id, event))
        self._streams[run_id] = stream
        return stream

    def get(self, run_id: str) -> RunEventStream | None:
        return self._streams.get(run_id)

    def discard(self, run_id: str) -> None:
        self._streams.pop(run_id, None)

    def publish_to_thread(self, thread_id: str, event: ThreadEvent) -> None:
        listeners = self._thread_listeners.get(thread_id)
        if not listeners:
            return
        for listener in [listener for listener in listeners if not listener.put(event)]:
            listeners.discard(listener)  # detached: nothing more is queued for it

    def attach(self, thread_id: str) -> ThreadListener:
        """A bounded queue of the thread's events from now on, until `detach`.

        One never detached (its stream was never read) costs at most its bound: the first
        event past it detaches it.
        """
        listener = ThreadListener(self._max_queued)
        self._thread_listeners.setdefault(thread_id, set()).add(listener)
        return listener

    def detach(self, thread_id: str, listener: ThreadListener) -> None:
        listeners = self._thread_listeners.get(thread_id)
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:
            del self._thread_listeners[thread_id]

    @contextlib.contextmanager
    def listen_to_thread(self, thread_id: str) -> Iterator[ThreadListener]:
        """`attach` for the length of a block."""
        listener = self.attach(thread_id)
        try:
            yield listener
        finally:
            self.detach(thread_id, listener)
