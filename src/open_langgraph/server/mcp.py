"""`POST /mcp/`: the served assistants as MCP tools over streamable HTTP, answered in JSON.

MCP's JSON-RPC is spoken here directly (the vocabulary is `mcp_protocol.py`'s), as langgraph-api
does, so the server needs no `mcp` package: a user's graphs may install whichever `mcp` they
need (`langchain-mcp-adapters` pins 1.x) without touching this endpoint. Like the Platform's
endpoint it is stateless: no session is kept between requests, each tool call is one run
waited on to its end, and nothing is streamed. It runs inside the request, so the services
act as the user the authentication middleware set, and authorize as on every other route.

Refusals of the transport (a body that is not JSON or not a JSON-RPC message, an `Accept`
that takes no JSON, an unknown protocol version) are 4xx answers carrying a JSON-RPC error
object and the `detail` every refusal of this server has.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from open_langgraph.errors import OLGError
from open_langgraph.server.mcp_protocol import (
    HANDSHAKE_VERSIONS,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    PER_REQUEST_ERROR_STATUS,
    PER_REQUEST_VERSIONS,
    VERSION_HEADER,
    McpError,
    check_envelope,
    discover_result,
    initialize_result,
    per_request_result,
    unsupported_version,
)
from open_langgraph.server.responses import JSONResponse
from open_langgraph.services.agent_tools import AgentTools

RequestId = str | int


def _refusal(status: int, error: McpError, request_id: RequestId | None = None) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": error.as_error(), "detail": error.message}
    return JSONResponse(body, status_code=status)


def _accepts_json(request: Request) -> bool:
    accept = request.headers.get("accept")
    if not accept:
        return True
    for media_range in accept.split(","):
        media_type = media_range.split(";", 1)[0].strip().lower()
        if media_type in ("application/json", "application/*", "*/*"):
            return True
    return False


def _is_json(request: Request) -> bool:
    content_type = request.headers.get("content-type", "")
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


class McpEndpoint:
    """Answers one MCP message per request with the assistants `tools` offers the caller."""

    def __init__(self, tools: AgentTools) -> None:
        self._tools = tools

    async def answer(self, request: Request) -> Response:
        """The HTTP answer to one POSTed MCP message (a request, a notification or a response
        to the server, which sends none and so ignores it)."""
        if not _accepts_json(request):
            reason = "Not Acceptable: the client must accept application/json"
            return _refusal(406, McpError(INVALID_REQUEST, reason))
        if not _is_json(request):
            reason = "Unsupported Media Type: the body must be application/json"
            return _refusal(415, McpError(INVALID_REQUEST, reason))
        try:
            message = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return _refusal(400, McpError(PARSE_ERROR, f"Parse error: {exc}"))
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _refusal(
                400, McpError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
            )
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            request_id = None
        version = request.headers.get(VERSION_HEADER)
        if version is not None and version not in (*HANDSHAKE_VERSIONS, *PER_REQUEST_VERSIONS):
            return _refusal(400, unsupported_version(version), request_id)
        method = message.get("method")
        if not isinstance(method, str):
            if "id" in message and ("result" in message or "error" in message):
                return Response(status_code=202)  # a client's response: there is nothing to do
            return _refusal(400, McpError(INVALID_REQUEST, "Invalid Request: no method"))
        if "id" not in message:
            return Response(status_code=202)  # a notification: nothing to answer or keep
        if request_id is None:
            reason = "Invalid Request: id must be a string or an integer"
            return _refusal(400, McpError(INVALID_REQUEST, reason))
        per_request = version in PER_REQUEST_VERSIONS
        try:
            params = message.get("params")
            params = {} if params is None else params
            if not isinstance(params, dict):
                raise McpError(INVALID_PARAMS, "Invalid params: must be an object")
            if per_request:
                check_envelope(params, dict(request.headers), method)
            result = await self._dispatch(method, params)
        except McpError as exc:
            status = PER_REQUEST_ERROR_STATUS.get(exc.code, 200) if per_request else 200
            if status >= 400:
                return _refusal(status, exc, request_id)
            return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": exc.as_error()})
        if per_request:
            result = per_request_result(method, result)
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return initialize_result(params)
        if method == "server/discover":
            return discover_result()
        if method == "ping":
            return {}
        if method == "tools/list":
            return await self._list_tools()
        if method == "tools/call":
            return await self._call_tool(params)
        raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}")

    async def _list_tools(self) -> dict[str, Any]:
        listed = await self._tools.list()
        tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in listed
        ]
        return {"tools": tools}

    async def _call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise McpError(INVALID_PARAMS, "Invalid params: tools/call needs the tool's name")
        if arguments is not None and not isinstance(arguments, dict):
            raise McpError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        try:
            output = await self._tools.call(name, arguments)
        except OLGError as exc:  # reported to the model as a failed call, as MCP asks
            return {"content": [{"type": "text", "text": exc.detail}], "isError": True}
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": _text(output)}],
            "isError": False,
        }
        if isinstance(output, dict):
            result["structuredContent"] = output
        return result
