"""`POST /a2a/{assistant_id}`: A2A's JSON-RPC 2.0 endpoint (`message/send`, `message/stream`,
`tasks/get`, `tasks/cancel`), as in the Platform's schema.

This layer owns the JSON-RPC envelope: a body that is not JSON, not a request object, names an
unknown method or fails inside the service is answered with a JSON-RPC error object (HTTP 200,
as JSON-RPC over HTTP and the Platform answer), never a 500. An `Accept` header that cannot
take the answer (`text/event-stream` for `message/stream`, `application/json` otherwise) is an
HTTP 400 with a `detail`. The work is `services/a2a.py`'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
from fastapi import Query, Request
from starlette.responses import Response

from open_langgraph.errors import OLGError
from open_langgraph.serde import dumps
from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.sse import sse_response
from open_langgraph.services.a2a import A2AService
from open_langgraph.services.a2a_messages import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_OPERATION,
    A2AError,
)

router = IndexedRouter(tags=["a2a"])

METHODS = ("message/send", "message/stream", "tasks/get", "tasks/cancel")
_REQUEST_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "jsonrpc": {"type": "string", "enum": ["2.0"]},
                    "id": {"type": "string"},
                    "method": {"type": "string", "enum": list(METHODS)},
                    "params": {"type": "object"},
                },
                "required": ["jsonrpc", "id", "method"],
            }
        }
    },
}

RequestId = str | int | float | None


@dataclass(frozen=True, slots=True)
class _Event:
    """One SSE message of a stream: a JSON-RPC response carrying one A2A event."""

    data: bytes
    event: str = "message"
    event_id: str | None = None


def _error(code: int, message: str, request_id: RequestId = None) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(body)


def _accepts(request: Request, media_type: str) -> bool:
    for media_range in request.headers.get("accept", "").split(","):
        candidate = media_range.split(";", 1)[0].strip().lower()
        if candidate in ("*/*", media_type, media_type.split("/")[0] + "/*"):
            return True
    return False


def _envelope(body: bytes) -> tuple[RequestId, str, Any] | JSONResponse:
    """(id, method, params) of a JSON-RPC request, or the error response it deserves."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _error(PARSE_ERROR, "Invalid JSON payload")
    if not isinstance(message, dict):
        return _error(INVALID_REQUEST, "Invalid request: expected a JSON-RPC request object")
    request_id = message.get("id")
    if request_id is not None and not isinstance(request_id, (str, int, float)):
        return _error(INVALID_REQUEST, "Invalid request: id must be a string, number or null")
    if message.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, "Invalid request: jsonrpc must be '2.0'", request_id)
    method = message.get("method")
    if not isinstance(method, str):
        return _error(INVALID_REQUEST, "Invalid request: method must be a string", request_id)
    if method not in METHODS:
        return _error(METHOD_NOT_FOUND, f"Method not found: {method}", request_id)
    return request_id, method, message.get("params", {})


async def _stream(
    a2a: A2AService, assistant_id: str, params: Any, request_id: RequestId
) -> Response:
    try:
        started = await a2a.start(assistant_id, params)
    except A2AError as exc:
        return _error(exc.code, exc.detail, request_id)

    async def events() -> AsyncIterator[_Event]:
        async for result in a2a.stream(started):
            yield _Event(dumps({"jsonrpc": "2.0", "id": request_id, "result": result}))

    return sse_response(events())


@router.post(
    "/a2a/{assistant_id}", summary="A2A JSON-RPC", openapi_extra={"requestBody": _REQUEST_BODY}
)
async def post_a2a(assistant_id: str, request: Request, services: ServicesDep) -> Response:
    parsed = _envelope(await request.body())
    if isinstance(parsed, JSONResponse):
        return parsed
    request_id, method, params = parsed
    wanted = "text/event-stream" if method == "message/stream" else "application/json"
    if not _accepts(request, wanted):
        return JSONResponse({"detail": f"the Accept header must include {wanted}"}, status_code=400)
    a2a = services.a2a
    try:
        if method == "message/stream":
            return await _stream(a2a, assistant_id, params, request_id)
        if method == "message/send":
            result = await a2a.send(await a2a.start(assistant_id, params))
        elif method == "tasks/get":
            result = await a2a.get_task(assistant_id, params)
        else:
            raise A2AError(UNSUPPORTED_OPERATION, "tasks/cancel is not supported")
    except A2AError as exc:
        return _error(exc.code, exc.detail, request_id)
    except OLGError as exc:  # e.g. the context was deleted while its task ran
        return _error(INVALID_PARAMS, exc.detail, request_id)
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})


@router.get("/.well-known/agent-card.json", include_in_schema=False)
async def agent_card(
    request: Request,
    services: ServicesDep,
    assistant_id: Annotated[str | None, Query()] = None,
) -> JSONResponse:
    """An assistant's A2A agent card (not in the Platform's schema, served as it documents)."""
    if not assistant_id:
        return JSONResponse({"detail": "assistant_id is required"}, status_code=400)
    endpoint = str(request.base_url).rstrip("/") + f"/a2a/{assistant_id}"
    return JSONResponse(await services.a2a.agent_card(assistant_id, endpoint))
