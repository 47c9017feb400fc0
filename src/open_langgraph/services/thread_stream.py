"""Following a whole thread: every run on it as it happens, each run's end, and state edits.

`GET /threads/{thread_id}/stream` is how a UI that reloads, or a second viewer, keeps up with
a conversation without knowing which run is active. With `Last-Event-ID` it first replays,
from storage or memory, what happened after that event, then follows live.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any, Literal, get_args

from open_langgraph.auth.authorize import Authorizer
from open_langgraph.errors import InvalidInput, NotFound
from open_langgraph.runtime.broker import (
    RUN_END_SUFFIX,
    SlowConsumer,
    ThreadEvent,
    ThreadListener,
)
from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.serde import dumps, parse_int64
from open_langgraph.services.threads import check_uuid
from open_langgraph.storage.base import Storage

ThreadStreamMode = Literal["run_modes", "lifecycle", "state_update"]
THREAD_STREAM_MODES: tuple[str, ...] = get_args(ThreadStreamMode)
_ALL_RUNS = 100_000


def parse_thread_stream_modes(values: Iterable[str]) -> set[str]:
    """Modes from `stream_mode` (the SDK) or `stream_modes` (comma-separated) query values."""
    modes = {mode.strip() for value in values for mode in value.split(",") if mode.strip()}
    unknown = modes - set(THREAD_STREAM_MODES)
    if unknown:
        raise InvalidInput(
            f"stream_mode {sorted(unknown)} is not a thread stream mode; "
            f"expected {list(THREAD_STREAM_MODES)}"
        )
    return modes or {"run_modes"}


def _wanted(event: ThreadEvent, modes: set[str]) -> bool:
    if event.event == "state_update":
        return "state_update" in modes
    return "run_modes" in modes or ("lifecycle" in modes and event.event == "metadata")


def _parse_last_event_id(value: str) -> tuple[str, int | None]:
    run_id, _, position = value.rpartition(":")
    if not run_id:
        raise InvalidInput(
            "Last-Event-ID for a thread stream is an id it sent, `<run_id>:<n>` or `<run_id>:end`"
        )
    check_uuid(run_id, "run ID in Last-Event-ID")
    if position == RUN_END_SUFFIX:
        return run_id, None
    try:
        return run_id, parse_int64(position)
    except ValueError:
        raise InvalidInput(f"Last-Event-ID {value!r}: {position!r} is no event number") from None


def _reconnect_error(exc: SlowConsumer) -> ThreadEvent:
    """The last event of a stream whose client fell behind: the rest is replayed from
    memory or storage when it reconnects with the last id it received."""
    return ThreadEvent(
        "error",
        dumps(
            {
                "error": "SlowConsumer",
                "message": f"this stream {exc} and was closed; reconnect with "
                "Last-Event-ID set to the last event id received to get the rest",
            }
        ),
    )


class ThreadStreams:
    def __init__(
        self, storage: Storage, runs: RunDispatcher, authorizer: Authorizer | None = None
    ) -> None:
        self._storage = storage
        self._runs = runs
        self._auth = authorizer or Authorizer()

    async def check_readable(self, thread_id: str) -> dict[str, Any]:
        """The thread; NotFound unless it exists inside the user's `threads.read` filter."""
        check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize("threads", "read", {"thread_id": thread_id})
        thread = await self._storage.get_thread(thread_id, auth_filter)
        if thread is None:
            raise NotFound(f"Thread with ID {thread_id} not found")
        return thread

    async def open(
        self, thread_id: str, *, last_event_id: str | None, modes: set[str]
    ) -> AsyncIterator[ThreadEvent]:
        """Validate now (so errors are 4xx, not a broken stream), then return the stream."""
        await self.check_readable(thread_id)
        # A Last-Event-ID naming another thread's run is refused below: only this thread's
        # runs are replayed.
        resume_from = _parse_last_event_id(last_event_id) if last_event_id else None
        runs: list[str] = []
        if resume_from is not None:
            listed = await self._storage.list_runs(
                thread_id, limit=_ALL_RUNS, offset=0, status=None
            )
            runs = [run["run_id"] for run in reversed(listed)]
            if resume_from[0] not in runs:
                raise NotFound(
                    f"Run {resume_from[0]} of Last-Event-ID is not on thread {thread_id}"
                )
        # Listen now, before the response starts: a client that has the response headers
        # misses nothing published after them.
        listener = await self._runs.attach(thread_id)
        return self._follow(thread_id, listener, resume_from, runs, modes)

    async def _follow(
        self,
        thread_id: str,
        queue: ThreadListener,
        resume_from: tuple[str, int | None] | None,
        runs: list[str],
        modes: set[str],
    ) -> AsyncIterator[ThreadEvent]:
        # The listener is attached before replaying, so nothing published meanwhile is lost;
        # `sent` drops the live copies of what the replay already gave.
        try:
            sent: dict[str, float] = {}
            if resume_from is not None:
                start = runs.index(resume_from[0])
                for position, run_id in enumerate(runs[start:]):
                    after = resume_from[1] if position == 0 else -1
                    if after is None:  # the client saw this run end already
                        sent[run_id] = float("inf")
                        continue
                    async for event in self.replay_run(run_id, after):
                        sent[run_id] = float("inf") if event.seq is None else event.seq
                        if _wanted(event, modes):
                            yield event
            while True:
                try:
                    event = await queue.get()
                except SlowConsumer as exc:
                    yield _reconnect_error(exc)
                    return
                if event.run_id is not None:
                    position = float("inf") if event.seq is None else event.seq
                    if position <= sent.get(event.run_id, -1):
                        continue
                if _wanted(event, modes):
                    yield event
        finally:
            await self._runs.detach(thread_id, queue)

    async def replay_run(self, run_id: str, after: int) -> AsyncIterator[ThreadEvent]:
        """A run's events after `after`, from memory or storage, and its end if it ended."""
        live = self._runs.live_stream(run_id)
        if live is not None:
            for stored in live.events_after(after):
                yield ThreadEvent.of_run(run_id, stored)
            if live.done:
                yield ThreadEvent.run_end(run_id)
            return
        for stored in await self._storage.get_run_events(run_id, after):
            yield ThreadEvent.of_run(run_id, stored)
        run = await self._storage.get_run(run_id)
        if run is not None and run["status"] not in ("pending", "running"):
            yield ThreadEvent.run_end(run_id)
