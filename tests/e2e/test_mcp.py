"""`/mcp/` through the official `mcp` SDK's streamable HTTP client against a live `olg serve`:
the served assistants are listed as tools (with their graphs' input schemas) and calling one
runs its graph and returns the output; with auth, only the caller's assistants are tools."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.fixtures.agent_server import AGENT_GRAPHS, agent_server
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e

TIMEOUT = 30.0


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with agent_server(tmp_path_factory.mktemp("olg-mcp")) as process:
        yield process


@pytest.fixture(scope="module")
def mcp_auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with agent_server(tmp_path_factory.mktemp("olg-mcp-auth"), auth=True) as process:
        yield process


@contextlib.asynccontextmanager
async def mcp_session(
    server: ServerProcess, headers: dict[str, str] | None = None, timeout: float = TIMEOUT
) -> AsyncIterator[ClientSession]:
    """An initialized MCP session (the initialize handshake, as most MCP clients connect)."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=timeout) as http,
        streamable_http_client(f"{server.url}/mcp/", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


async def test_every_served_graph_is_a_tool_with_its_input_schema(mcp_server: ServerProcess):
    async with mcp_session(mcp_server) as session:
        listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(AGENT_GRAPHS)
    react = tools["react_agent"]
    assert "messages" in react.input_schema["properties"]
    assert react.input_schema["type"] == "object"
    assert tools["echo_agent"].description == "Replies by echoing the last message."
    assert set(tools["counter"].input_schema["properties"]) >= {"count", "trail"}


async def test_calling_a_tool_runs_its_graph_and_returns_the_output(mcp_server: ServerProcess):
    async with mcp_session(mcp_server) as session:
        counted = await session.call_tool("counter", {"count": 5})
        echoed = await session.call_tool(
            "echo_agent", {"messages": [{"role": "user", "content": "hello over MCP"}]}
        )
    assert not counted.is_error
    assert counted.structured_content == {"count": 7, "trail": ["a", "b"]}
    assert json.loads(_text(counted)) == counted.structured_content
    assert not echoed.is_error
    messages = echoed.structured_content["messages"]
    assert messages[-1]["content"] == "You said: hello over MCP"
    assert messages[-1]["type"] == "ai"


async def test_the_modern_stateless_protocol_works_too(mcp_server: ServerProcess):
    """`Client` in its default mode probes the 2026 per-request protocol first."""
    async with (
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
        Client(streamable_http_client(f"{mcp_server.url}/mcp/", http_client=http)) as client,
    ):
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("counter", {"count": 1})
    assert "echo_agent" in names
    assert result.structured_content == {"count": 3, "trail": ["a", "b"]}


async def test_the_path_langgraphs_docs_give_is_answered_without_a_redirect(
    mcp_server: ServerProcess,
):
    """langgraph-api routes `/mcp` (its docs tell clients `http://localhost:2024/mcp`)."""
    async with (
        httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http,
        Client(streamable_http_client(f"{mcp_server.url}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("counter", {"count": 1})
    assert result.structured_content == {"count": 3, "trail": ["a", "b"]}


async def test_failures_are_tool_errors_not_protocol_errors(mcp_server: ServerProcess):
    async with mcp_session(mcp_server) as session:
        unknown = await session.call_tool("no_such_agent", {})
        failing = await session.call_tool("failing", {})
    assert unknown.is_error and "not found" in _text(unknown)
    assert failing.is_error and "error" in _text(failing)


async def test_the_other_mcp_operations_answer_as_on_the_platform(mcp_server: ServerProcess):
    async with httpx.AsyncClient(base_url=mcp_server.url, timeout=TIMEOUT) as http:
        get = await http.get("/mcp/")
        delete = await http.delete("/mcp/")
        mcp_headers = {"accept": "application/json, text/event-stream"}
        not_json = await http.post(
            "/mcp/", content=b"{nope", headers={**mcp_headers, "content-type": "application/json"}
        )
        not_a_message = await http.post("/mcp/", json={"hello": 1}, headers=mcp_headers)
        html_only = await http.post(
            "/mcp/",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"accept": "text/html"},
        )
    assert get.status_code == 405 and isinstance(get.json()["detail"], str)
    assert delete.status_code == 404 and isinstance(delete.json()["detail"], str)
    # MCP's own refusals: a 4xx with a JSON-RPC error object, as the transport specifies,
    # and the `detail` of every refusal of this server.
    for refused in (not_json, not_a_message):
        assert 400 <= refused.status_code < 500, refused.text
        assert isinstance(refused.json()["error"]["code"], int), refused.text
        assert refused.json()["detail"] == refused.json()["error"]["message"]
    assert html_only.status_code == 406
    assert isinstance(html_only.json()["detail"], str)


async def test_each_era_answers_in_its_own_terms(mcp_server: ServerProcess):
    """Spoken without the SDK (server/mcp.py): notifications are acknowledged, an unknown method
    is -32601 (HTTP 200 with the handshake, 404 per request), an unknown protocol version is
    refused naming the ones spoken, and a per-request header that contradicts the body is
    -32020."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    per_request = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
    }
    async with httpx.AsyncClient(base_url=mcp_server.url, timeout=TIMEOUT) as http:

        async def post(message: dict, headers: dict[str, str]) -> httpx.Response:
            return await http.post("/mcp/", json={"jsonrpc": "2.0", **message}, headers=headers)

        legacy = {"accept": "application/json, text/event-stream"}
        noted = await post({"method": "notifications/initialized"}, legacy)
        unknown = await post({"id": 1, "method": "resources/list"}, legacy)
        old = await post({"id": 2, "method": "ping"}, {**legacy, "mcp-protocol-version": "1999"})
        listed = await post(
            {"id": 3, "method": "tools/list", "params": {"_meta": meta}},
            {**per_request, "mcp-method": "tools/list"},
        )
        lying = await post(
            {"id": 4, "method": "tools/call", "params": {"_meta": meta, "name": "counter"}},
            {**per_request, "mcp-method": "tools/call", "mcp-name": "echo_agent"},
        )
        missing = await post(
            {"id": 5, "method": "resources/list", "params": {"_meta": meta}},
            {**per_request, "mcp-method": "resources/list"},
        )
    assert noted.status_code == 202
    assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32601
    assert old.status_code == 400 and old.json()["error"]["code"] == -32022
    assert "2025-11-25" in old.json()["error"]["data"]["supported"]
    assert listed.status_code == 200 and listed.json()["result"]["resultType"] == "complete"
    assert listed.json()["result"]["cacheScope"] == "private"
    assert lying.status_code == 400 and lying.json()["error"]["code"] == -32020
    assert missing.status_code == 404 and missing.json()["error"]["code"] == -32601
    assert missing.json()["detail"] == missing.json()["error"]["message"]


# -- auth ---------------------------------------------------------------------------------------
async def _tool_names(server: ServerProcess, key: str) -> set[str]:
    async with mcp_session(server, {"x-api-key": key}) as session:
        return {tool.name for tool in (await session.list_tools()).tools}


async def _own_assistant(server: ServerProcess, key: str, name: str) -> str:
    async with httpx.AsyncClient(base_url=server.url, headers={"x-api-key": key}) as http:
        response = await http.post("/assistants", json={"graph_id": "counter", "name": name})
    assert response.status_code == 200, response.text
    return response.json()["assistant_id"]


async def test_without_a_valid_key_the_endpoint_refuses(mcp_auth_server: ServerProcess):
    for headers in ({}, {"x-api-key": "key-nobody"}):
        with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in its own errors
            async with mcp_session(mcp_auth_server, headers):
                pass
    async with httpx.AsyncClient(base_url=mcp_auth_server.url, timeout=TIMEOUT) as http:
        refused = await http.post(
            "/mcp/",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": "application/json, text/event-stream"},
        )
    assert refused.status_code == 401 and isinstance(refused.json()["detail"], str)


async def test_each_user_lists_and_calls_only_their_assistants(mcp_auth_server: ServerProcess):
    await _own_assistant(mcp_auth_server, "key-a", "a private counter")
    a_tools = await _tool_names(mcp_auth_server, "key-a")
    b_tools = await _tool_names(mcp_auth_server, "key-b")
    assert a_tools == {*AGENT_GRAPHS, "a_private_counter"}
    assert b_tools == set(AGENT_GRAPHS)
    async with mcp_session(mcp_auth_server, {"x-api-key": "key-b"}) as session:
        refused = await session.call_tool("a_private_counter", {"count": 0})
        who = await session.call_tool("whoami", {})
    assert refused.is_error and "not found" in _text(refused)
    assert who.structured_content["user_id"] == "user-b"  # the run is B's, not anonymous
    async with mcp_session(mcp_auth_server, {"x-api-key": "key-a"}) as session:
        mine = await session.call_tool("a_private_counter", {"count": 0})
    assert mine.structured_content == {"count": 2, "trail": ["a", "b"]}


async def test_react_agent_answers_as_a_tool(mcp_server: ServerProcess):
    """The project's ReAct agent, called by an MCP client as any tool, on the real embedded
    SmolLM2 (too small to answer well: the test asserts a finished run with a model's reply,
    never its wording). Its assistant bounds the run to one model call."""
    async with sdk_client(mcp_server.url) as client:
        await client.assistants.create(
            "react_agent",
            config={"recursion_limit": 3},
            context={"max_search_results": 1},
            name="bounded react",
        )
    question = "What is 2 + 3?"
    # A real model call: generous, as other processes may share the 2 cores with it.
    async with mcp_session(mcp_server, timeout=180) as session:
        assert "bounded_react" in {tool.name for tool in (await session.list_tools()).tools}
        answered = await session.call_tool(
            "bounded_react", {"messages": [{"role": "user", "content": question}]}
        )
    assert not answered.is_error, _text(answered)
    messages = answered.structured_content["messages"]
    assert messages[0]["content"] == question
    assert messages[-1]["type"] == "ai" and messages[-1]["content"]
