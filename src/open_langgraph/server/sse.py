"""Server-sent events: framing, heartbeats while idle, and a hook for client disconnects."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

from starlette.responses import StreamingResponse

from open_langgraph.observability.metrics import ACTIVE_STREAMS


def _heartbeat_seconds() -> float:
    """Idle time before a heartbeat comment; proxies often cut silent streams after 30-60 s."""
    value = os.environ.get("OLG_SSE_HEARTBEAT_SECONDS", "10")
    try:
        seconds = float(value)
    except ValueError:
        return 10.0
    return seconds if seconds > 0 else 10.0


HEARTBEAT_SECONDS = _heartbeat_seconds()
#: Events read ahead of a slow client. The sender then stops reading its source, which for a
#: run stream is the run's own log (read by position, nothing lost) and for a thread stream a
#: bounded listener that detaches a client too far behind; so this never grows, and never
#: holds a run back.
SEND_AHEAD = 64
#: Queued events sent in one write, up to about this many bytes.
_BATCH_BYTES = 64 * 1024
_HEARTBEAT = b": heartbeat\n\n"
_END = object()


class SSEMessage(Protocol):
    """A run's or a thread's event: what `frame` needs."""

    @property
    def event(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def event_id(self) -> str | None: ...


def frame(message: SSEMessage) -> bytes:
    """One SSE message; our JSON never holds a raw newline, so `data` is one line."""
    head = b"event: %s\ndata: %s\n" % (message.event.encode(), message.data)
    event_id = message.event_id
    return head + b"\n" if event_id is None else head + b"id: %s\n\n" % event_id.encode()


async def _with_heartbeats(
    events: AsyncIterator[SSEMessage], interval: float
) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[object] = asyncio.Queue(SEND_AHEAD)

    async def pump() -> None:
        try:
            async for event in events:
                await queue.put(event)
        finally:
            # When the sender cancelled us it is gone: waiting for room would never end.
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                await queue.put(_END)

    task = asyncio.create_task(pump())
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), interval)
            except TimeoutError:
                yield _HEARTBEAT
                continue
            # What is already queued goes out in the same write: a burst of events (a
            # model's tokens) then costs one send, not one each, and a client following
            # two streams of the same thread does not see one fall behind the other.
            chunk = b""
            while item is not _END:
                chunk += frame(item)  # type: ignore[arg-type]
                if queue.empty() or len(chunk) > _BATCH_BYTES:
                    break
                item = queue.get_nowait()
            if chunk:
                yield chunk
            if item is _END:
                break
        await task  # surfaces an error of the event source
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


def sse_response(
    events: AsyncIterator[SSEMessage],
    *,
    on_disconnect: Callable[[], Awaitable[None]] | None = None,
    headers: dict[str, str] | None = None,
    heartbeat: float = HEARTBEAT_SECONDS,
) -> StreamingResponse:
    """Stream `events` as SSE; `on_disconnect` runs if the client leaves before the end."""

    async def body() -> AsyncIterator[bytes]:
        finished = False
        ACTIVE_STREAMS.inc()
        try:
            async for chunk in _with_heartbeats(events, heartbeat):
                yield chunk
            finished = True
        finally:
            ACTIVE_STREAMS.dec()
            if not finished and on_disconnect is not None:
                await asyncio.shield(on_disconnect())

    return StreamingResponse(
        body(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})},
    )
