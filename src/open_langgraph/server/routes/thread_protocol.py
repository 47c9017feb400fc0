"""The v3 thread protocol: commands, the SSE event stream and its WebSocket form.

`langgraph_sdk` 0.4.14's `client.threads.stream(...)` speaks it: commands go to
`POST /threads/{id}/commands`, events come from `POST /threads/{id}/stream/events` (SSE), or
from a WebSocket on the same path whose frames are commands in and events and answers out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Body, Header, WebSocket, WebSocketDisconnect
from starlette.responses import StreamingResponse

from open_langgraph.errors import OLGError
from open_langgraph.serde import dumps, loads
from open_langgraph.server.deps import Services, ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.sse import sse_response
from open_langgraph.services.protocol_commands import (
    ProtocolError,
    ProtocolSession,
    check_envelope,
    envelope_id,
    failure,
)
from open_langgraph.services.protocol_stream import EventFilter, parse_since

logger = logging.getLogger(__name__)
router = IndexedRouter(prefix="/threads", tags=["threads"], route_class=JsonBodyRoute)


@dataclass(frozen=True, slots=True)
class _Frame:
    """A protocol event as an SSE message: `event:` its method, `id:` its seq."""

    event: str
    data: bytes
    event_id: str | None


async def _frames(events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[_Frame]:
    async for event in events:
        seq = event.get("seq")
        yield _Frame(event.get("method", "error"), dumps(event), None if seq is None else str(seq))


@router.post("/{thread_id}/commands", summary="Protocol v2 Command")
async def thread_command(
    thread_id: str, services: ServicesDep, command: Annotated[Any, Body()]
) -> JSONResponse:
    """One protocol command `{id, method, params}`; answers its success or error envelope."""
    try:
        check_envelope(command)
    except ProtocolError as exc:
        body = failure(envelope_id(command), exc.code, exc.message)
        return JSONResponse({**body, "detail": exc.message}, status_code=400)
    return JSONResponse(await services.protocol_commands.handle(thread_id, command))


@router.post("/{thread_id}/stream/events", summary="Protocol v2 Event Stream (SSE)")
async def thread_events(
    thread_id: str,
    services: ServicesDep,
    request: Annotated[Any, Body()],
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """The thread's protocol events matching `{channels, namespaces?, depth?}`, after `since`
    (or `Last-Event-ID`), for as long as the client stays."""
    subscription = EventFilter.parse(request)
    since = parse_since(request.get("since"))
    if since is None:
        since = parse_since(last_event_id)
    events = await services.protocol_streams.open(thread_id, subscription, since)
    return sse_response(_frames(events))


@router.websocket("/{thread_id}/stream/events")
async def thread_socket(websocket: WebSocket, thread_id: str) -> None:
    services: Services = websocket.app.state.services
    try:
        await services.thread_streams.check_readable(thread_id)
    except OLGError as exc:
        # The SDK reads a refusal from a close code of 4000 + the HTTP status.
        await websocket.close(code=4000 + exc.status_code, reason=exc.detail[:120])
        return
    await websocket.accept()
    await _Socket(websocket, services, ProtocolSession(thread_id, services.protocol_commands)).run()


class _Socket:
    """One WebSocket: commands in, answers and the subscribed events out."""

    def __init__(self, websocket: WebSocket, services: Services, session: ProtocolSession) -> None:
        self._ws = websocket
        self._services = services
        self._session = session
        self._send_lock = asyncio.Lock()
        self._subscribed = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None

    async def _send(self, message: dict[str, Any]) -> None:
        async with self._send_lock:
            await self._ws.send_text(dumps(message).decode())

    async def run(self) -> None:
        try:
            while True:
                message = await self._ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                # A command may come as a text or a binary frame.
                raw = message.get("text") or message.get("bytes") or b""
                await self._send(await self._answer(raw))
                if self._pump is not None:
                    self._subscribed.set()  # its answer is out: events may follow
        except WebSocketDisconnect:
            pass
        finally:
            if self._pump is not None:
                self._pump.cancel()
                with contextlib.suppress(BaseException):
                    await self._pump

    async def _answer(self, raw: str | bytes) -> dict[str, Any]:
        try:
            command = loads(raw)
        except ValueError:
            return failure(None, "invalid_argument", "Protocol commands must be valid JSON.")
        try:
            check_envelope(command)
        except ProtocolError as exc:
            return failure(envelope_id(command), exc.code, exc.message)
        try:
            if command["method"] == "subscription.subscribe" and self._pump is None:
                # The first subscription opens the event stream (replaying from `since`, or
                # the thread's latest run); later ones filter that same stream.
                # Everything that can refuse it first, so a refusal leaves nothing behind.
                params = command.get("params") or {}
                EventFilter.parse(params)
                since = parse_since(params.get("since"))
                events = await self._services.protocol_streams.open_many(
                    self._session.thread_id, self._session.subscriptions, since
                )
                self._pump = asyncio.create_task(self._forward(events))
                return await self._session.handle(command)
            return await self._session.handle(command)
        except OLGError as exc:
            return failure(command["id"], "invalid_argument", exc.detail)

    async def _forward(self, events: AsyncIterator[dict[str, Any]]) -> None:
        """Send the stream's events, once the subscription's answer is out.

        The stream is read from the start (so it is closed, and its listener detached,
        however this ends); only sending waits.
        """
        try:
            async with contextlib.aclosing(events):  # type: ignore[type-var]
                async for event in events:
                    await self._subscribed.wait()
                    await self._send(event)
        except Exception:
            # The socket closed under us, or the stream failed: end the connection, so the
            # client reconnects with `since` rather than waiting on a dead stream.
            logger.info("thread protocol socket of thread %s ended", self._session.thread_id)
            with contextlib.suppress(Exception):
                await self._ws.close(code=1011)
