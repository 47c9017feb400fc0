"""A thread's v3 protocol event stream (`POST /threads/{id}/stream/events` and its WebSocket).

Built on the thread stream (`services/thread_stream.py`): the same replay from storage or
memory, then the live events of every run on the thread, in this process or (queue mode)
any worker. Each run event becomes protocol events (`services/protocol_events.py`), numbered
so a client can resume after any of them with `since` (the body) or `Last-Event-ID`.

A `seq` is `ordinal << 28 | position << 8 | index`: the run's place among the thread's runs,
the event's place in its run (the run's end last) and its place among the protocol events
that one run event became. So every process numbers every event alike, a restart included.
Without `since`, a stream starts with the thread's run in flight (or waiting on an interrupt)
from its beginning, as the Platform replays a thread's history: a projection opened after
`run.start` misses nothing, and the SDK drops what it already has by `event_id`. A finished
latest run is replayed only if no newer run starts within a grace period (1 s): a session
that opens its streams before its `run.start` must not take the previous run's end for its
own. Command answers carry `meta.applied_through_seq` (the seq just before the run they
started), which the SDK passes as `since`, so its projections never wait that grace.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from open_langgraph.errors import InvalidInput
from open_langgraph.runtime.broker import RUN_END_SUFFIX, ThreadEvent
from open_langgraph.services.protocol_events import CHANNELS, ProtocolTranslator
from open_langgraph.services.thread_stream import ThreadStreams
from open_langgraph.storage.base import Storage

_INDEX_BITS = 8
_POSITION_BITS = 20
_RUN_END = (1 << _POSITION_BITS) - 1
_ALL_RUNS = 100_000
_IN_FLIGHT = ("pending", "running")


def encode_seq(ordinal: int, position: int, index: int) -> int:
    position = min(position, _RUN_END - 1) if position != _RUN_END else position
    index = min(index, (1 << _INDEX_BITS) - 1)
    return (ordinal << (_POSITION_BITS + _INDEX_BITS)) | (position << _INDEX_BITS) | index


def decode_seq(seq: int) -> tuple[int, int]:
    """The run ordinal and the position in the run of a `seq`."""
    return seq >> (_POSITION_BITS + _INDEX_BITS), (seq >> _INDEX_BITS) & _RUN_END


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class EventFilter:
    """A subscription: channels, namespace prefixes and how deep below them."""

    channels: frozenset[str]
    namespaces: tuple[tuple[str, ...], ...] | None = None
    depth: int | None = None

    @classmethod
    def parse(cls, params: Any) -> EventFilter:
        """Validate `SubscribeParams`; InvalidInput names what is wrong."""
        if not isinstance(params, dict):
            raise InvalidInput("subscription params must be an object")
        channels = params.get("channels")
        if not isinstance(channels, list) or not channels:
            raise InvalidInput("channels is required and must be a non-empty array")
        bad = [
            repr(c)
            for c in channels
            if not isinstance(c, str) or (c not in CHANNELS and not c.startswith("custom:"))
        ]
        if bad:
            raise InvalidInput(
                f"channels contains unsupported entries: {', '.join(bad[:5])}; "
                f"allowed: {', '.join(sorted(CHANNELS))} or custom:<name>"
            )
        namespaces = params.get("namespaces")
        parsed: tuple[tuple[str, ...], ...] | None = None
        if namespaces is not None:
            if not isinstance(namespaces, list) or not all(
                isinstance(ns, list) and all(isinstance(s, str) for s in ns) for ns in namespaces
            ):
                raise InvalidInput("namespaces must be an array of arrays of strings")
            parsed = tuple(tuple(ns) for ns in namespaces) or None
        depth = params.get("depth")
        if depth is not None and (not _is_int(depth) or depth < 0):
            raise InvalidInput("depth must be a non-negative integer")
        return cls(frozenset(channels), parsed, depth)

    def matches(self, event: dict[str, Any]) -> bool:
        channel = _channel(event)
        if channel is None:
            return False
        if channel not in self.channels and not (
            channel.startswith("custom:") and "custom" in self.channels
        ):
            return False
        if self.namespaces is None:
            return True
        namespace = event["params"]["namespace"]
        return any(
            _prefix_of(prefix, namespace)
            and (self.depth is None or len(namespace) - len(prefix) <= self.depth)
            for prefix in self.namespaces
        )


def _channel(event: dict[str, Any]) -> str | None:
    method = event["method"]
    if method == "input.requested":
        return "input"
    if method == "custom":
        data = event["params"]["data"]
        name = data.get("name") if isinstance(data, dict) else None
        return f"custom:{name}" if isinstance(name, str) and name else "custom"
    return method


def _prefix_of(prefix: tuple[str, ...], namespace: list[str]) -> bool:
    """Segments match literally, or by name when the prefix's segment has no `:task_id`."""
    if len(prefix) > len(namespace):
        return False
    return all(
        want == got or (":" not in want and got.partition(":")[0] == want)
        for want, got in zip(prefix, namespace, strict=False)
    )


def _graph_id(run: dict[str, Any] | None) -> str | None:
    """The graph a stored run runs (its config names it), for its `lifecycle` events."""
    kwargs = (run or {}).get("kwargs") or {}
    configurable = (kwargs.get("config") or {}).get("configurable") or {}
    graph_id = configurable.get("graph_id")
    return graph_id if isinstance(graph_id, str) else None


def parse_since(value: Any) -> int | None:
    """`since` from a body or a `Last-Event-ID` header: a `seq` this server sent."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise InvalidInput(f"since/Last-Event-ID {value[:40]!r} is not an event seq") from None
    if not _is_int(value) or value < 0:
        raise InvalidInput("since must be a non-negative integer (an event's seq)")
    return value


class ProtocolStreams:
    def __init__(
        self, storage: Storage, thread_streams: ThreadStreams, grace_seconds: float = 1.0
    ) -> None:
        self._storage = storage
        self._threads = thread_streams
        self._grace = grace_seconds

    async def _runs(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's runs, oldest first."""
        listed = await self._storage.list_runs(thread_id, limit=_ALL_RUNS, offset=0, status=None)
        return list(reversed(listed))

    async def open(
        self, thread_id: str, subscription: EventFilter, since: int | None
    ) -> AsyncIterator[dict[str, Any]]:
        """Check access now (so a refusal is a 4xx), then return the stream.

        Raises NotFound when the thread is not the user's (`threads.read`), InvalidInput for
        a `since` no run of the thread has.
        """
        return await self.open_many(thread_id, [subscription], since)

    async def open_many(
        self, thread_id: str, subscriptions: list[EventFilter], since: int | None
    ) -> AsyncIterator[dict[str, Any]]:
        """`open` for several subscriptions at once (a WebSocket): an event goes out once,
        if any of them wants it; an empty list wants nothing yet."""
        thread = await self._threads.check_readable(thread_id)
        runs = await self._runs(thread_id)
        ids = [run["run_id"] for run in runs]
        if since is not None:
            ordinal, _ = decode_seq(since)
            if ordinal >= len(runs):
                raise InvalidInput(f"since {since} is after every event of thread {thread_id}")
            # A run's events are translated from its first, so what is derived from earlier
            # events (a subgraph's start, an interrupt) is right; `since` drops what was sent.
            events = await self._from_start_of(thread_id, ids[ordinal])
        elif not runs:
            events = await self._threads.open(thread_id, last_event_id=None, modes={"run_modes"})
        elif thread["status"] in ("busy", "interrupted"):
            # What is happening, or waiting for an answer: from the first run not finished.
            in_flight = [run["run_id"] for run in runs if run["status"] in _IN_FLIGHT]
            events = await self._from_start_of(thread_id, in_flight[0] if in_flight else ids[-1])
        else:
            events = self._unless_another_run(thread_id, ids[-1])
            await anext(events)  # attached now: nothing published from here on is missed
        return self._translate(thread_id, events, ids, subscriptions, since)

    async def _from_start_of(self, thread_id: str, run_id: str) -> AsyncIterator[ThreadEvent]:
        return await self._threads.open(
            thread_id, last_event_id=f"{run_id}:-1", modes={"run_modes"}
        )

    async def _unless_another_run(
        self, thread_id: str, finished: str
    ) -> AsyncIterator[ThreadEvent | None]:
        """Live events, with the finished latest run replayed first unless a newer run starts
        within the grace period (its first item, None, says the listener is attached).

        A session that opens its stream and then starts a run (the SDK's lifecycle watcher
        on an existing thread) must not see the previous run end: it would take it for its
        own. One that opens its stream just after its run ended (a fast run) must see it.
        """
        live = await self._threads.open(
            thread_id, last_event_id=f"{finished}:{RUN_END_SUFFIX}", modes={"run_modes"}
        )
        yield None
        first = asyncio.ensure_future(anext(live))
        try:
            done, _ = await asyncio.wait({first}, timeout=self._grace)
            if not done:
                async for event in self._threads.replay_run(finished, -1):
                    yield event
            try:
                event = await first
            except StopAsyncIteration:
                return
            yield event
            async for event in live:
                yield event
        finally:
            first.cancel()
            with contextlib.suppress(BaseException):
                await first
            await live.aclose()  # type: ignore[attr-defined]

    async def _translate(
        self,
        thread_id: str,
        events: AsyncIterator[ThreadEvent | None],
        runs: list[str],
        subscriptions: list[EventFilter],
        since: int | None,
    ) -> AsyncIterator[dict[str, Any]]:
        translator = ProtocolTranslator()
        ordinals = {run_id: index for index, run_id in enumerate(runs)}
        try:
            async for event in events:
                if event is None:
                    continue
                if event.run_id is None:
                    if event.event == "error":  # fell behind: the client reconnects
                        yield {
                            "type": "error",
                            "id": None,
                            "error": "unknown_error",
                            "message": event.data.decode(),
                        }
                        return
                    continue
                if event.run_id not in ordinals:
                    listed = await self._runs(thread_id)
                    ordinals = {run["run_id"]: i for i, run in enumerate(listed)}
                ordinal = ordinals.get(event.run_id)
                if ordinal is None:  # deleted meanwhile
                    continue
                if event.seq is None:
                    run = await self._storage.get_run(event.run_id)
                    produced = translator.run_ended(event.run_id, run and run["status"])
                    position = _RUN_END
                elif event.event == "metadata":
                    run = await self._storage.get_run(event.run_id)
                    produced = translator.run_started(event.run_id, _graph_id(run))
                    position = event.seq + 1
                else:
                    produced = translator.translate(event.run_id, event.event, event.data)
                    position = event.seq + 1
                for index, protocol_event in enumerate(produced):
                    seq = encode_seq(ordinal, position, index)
                    if since is not None and seq <= since:
                        continue
                    if not any(sub.matches(protocol_event) for sub in subscriptions):
                        continue
                    protocol_event["seq"] = seq
                    protocol_event["event_id"] = str(seq)
                    yield protocol_event
        finally:
            await events.aclose()  # type: ignore[attr-defined]
