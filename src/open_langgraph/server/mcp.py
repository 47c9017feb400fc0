"""`/mcp/`: the served assistants as MCP tools over streamable HTTP (the official `mcp` SDK).

The SDK's session manager runs stateless (as the Platform's endpoint: no session survives a
request) and answers JSON, not SSE: a tool call is one run waited on to its end. The manager
runs each request's MCP server in a task of its own task group, outside the request's context,
so the handlers act as the request's user again (`acting_as` with the user the authentication
middleware put in the ASGI scope), and the services authorize as on every other route. The
SDK's own refusals (4xx) keep their JSON-RPC error object and gain the `detail` every refusal
of this server carries.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from http import HTTPStatus
from typing import Any

import mcp_types as types
import orjson
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from open_langgraph import __version__
from open_langgraph.auth.context import acting_as
from open_langgraph.errors import OLGError
from open_langgraph.services.agent_tools import AgentTools


@contextlib.contextmanager
def _as_caller(ctx: ServerRequestContext[Any, Any]) -> Iterator[None]:
    """The user of the HTTP request this MCP message came in (None without auth)."""
    request = ctx.request
    user = request.scope.get("user") if isinstance(request, Request) else None
    with acting_as(user):
        yield


def _text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def build_server(tools: AgentTools) -> Server[Any]:
    """An MCP server whose tools are the assistants `tools` lists for the caller."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        with _as_caller(ctx):
            listed = await tools.list()
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in listed
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            with _as_caller(ctx):
                output = await tools.call(params.name, params.arguments)
        except OLGError as exc:  # reported to the model as a failed call, as MCP asks
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=exc.detail)], is_error=True
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_text(output))],
            structured_content=output if isinstance(output, dict) else None,
        )

    return Server(
        "open-langgraph",
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _refusal_body(status: int, body: bytes) -> bytes:
    """The SDK's refusal with the `detail` every refusal of this server carries: its JSON-RPC
    error object keeps its fields (clients read those), and gains the message as `detail`."""
    try:
        parsed = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        parsed = {}
    if not isinstance(parsed.get("detail"), str):
        error = parsed.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        parsed["detail"] = message if isinstance(message, str) else HTTPStatus(status).phrase
    return orjson.dumps(parsed)


def _with_details(send: Send) -> Send:
    """A `send` that gives the SDK's 4xx answers a JSON body with a `detail`."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def sending(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start" and message["status"] >= 400:
            start = message
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = _refusal_body(start["status"], b"".join(chunks))
        headers = [
            (name, value)
            for name, value in start.get("headers", [])
            if name.lower() not in (b"content-length", b"content-type")
        ]
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return sending


class McpEndpoint:
    """The SDK's stateless session manager for one app; `running()` spans the app's lifespan."""

    def __init__(self, tools: AgentTools) -> None:
        self._manager = StreamableHTTPSessionManager(
            build_server(tools),
            stateless=True,
            json_response=True,
            # The app's request guard (server/security.py) already checks Host and Origin.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self._manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._manager.handle_request(scope, receive, _with_details(send))
