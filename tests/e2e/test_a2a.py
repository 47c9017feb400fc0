"""`/a2a/{assistant_id}` against a live `olg serve`, as an A2A client speaks JSON-RPC to it:
`message/send` answers with the agent's reply as a task, `tasks/get` finds it again,
`message/stream` sends the task's events as SSE, a contextId keeps the conversation, an
interrupt asks for input and the next message answers it, and every mistake is a JSON-RPC
error object. With auth, a user reaches only their own contexts and tasks."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import orjson
import pytest

from open_langgraph.services.assistants import system_assistant_id
from tests.fixtures.agent_server import agent_server
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e

TIMEOUT = 30.0
ECHO = system_assistant_id("echo_agent")
COUNTER = system_assistant_id("counter")
HITL = system_assistant_id("hitl")
JSON = {"accept": "application/json"}


@pytest.fixture(scope="module")
def a2a_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with agent_server(tmp_path_factory.mktemp("olg-a2a")) as process:
        yield process


@pytest.fixture(scope="module")
def a2a_auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with agent_server(tmp_path_factory.mktemp("olg-a2a-auth"), auth=True) as process:
        yield process


@pytest.fixture
async def http(a2a_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=a2a_server.url, timeout=TIMEOUT) as client:
        yield client


def message(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts), "messageId": str(uuid.uuid4()), **fields}


def text(value: str) -> dict[str, Any]:
    return {"kind": "text", "text": value}


async def rpc(
    http: httpx.AsyncClient, assistant_id: str, method: str, params: Any, **headers: str
) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": "req-1", "method": method, "params": params}
    response = await http.post(f"/a2a/{assistant_id}", json=body, headers={**JSON, **headers})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == "req-1"
    return answer


async def send(http: httpx.AsyncClient, assistant_id: str, msg: dict[str, Any]) -> dict[str, Any]:
    answer = await rpc(http, assistant_id, "message/send", {"message": msg})
    assert "result" in answer, answer
    return answer["result"]


def reply_text(task: dict[str, Any]) -> str:
    (artifact,) = task["artifacts"]
    assert artifact["name"] == "Assistant Response"
    return artifact["parts"][0]["text"]


async def test_message_send_returns_the_reply_and_tasks_get_finds_it(http: httpx.AsyncClient):
    task = await send(http, ECHO, message(text("Hello from A2A")))
    assert task["kind"] == "task"
    assert task["status"]["state"] == "completed"
    assert reply_text(task) == "You said: Hello from A2A"
    context_id, run_id = task["id"].split(":")
    assert task["contextId"] == context_id and uuid.UUID(run_id)
    assert [m["role"] for m in task["history"]] == ["user", "agent"]

    found = await rpc(http, ECHO, "tasks/get", {"id": task["id"], "contextId": context_id})
    assert found["result"]["status"]["state"] == "completed"
    assert reply_text(found["result"]) == "You said: Hello from A2A"
    short = await rpc(
        http, ECHO, "tasks/get", {"id": run_id, "contextId": context_id, "historyLength": 1}
    )
    assert [m["role"] for m in short["result"]["history"]] == ["agent"]


async def test_a_context_keeps_the_conversation(http: httpx.AsyncClient):
    context_id = str(uuid.uuid4())
    first = await send(http, ECHO, message(text("one"), contextId=context_id))
    second = await send(http, ECHO, message(text("two"), contextId=context_id))
    assert first["contextId"] == second["contextId"] == context_id
    assert first["id"] != second["id"]
    assert reply_text(second) == "You said: two"
    assert [p["parts"][0]["text"] for p in second["history"]] == [
        "one",
        "You said: one",
        "two",
        "You said: two",
    ]


async def test_data_parts_are_the_input_of_a_graph_without_messages(http: httpx.AsyncClient):
    task = await send(http, COUNTER, message({"kind": "data", "data": {"count": 3}}))
    assert task["status"]["state"] == "completed"
    (part,) = task["artifacts"][0]["parts"]
    assert part == {"kind": "data", "data": {"count": 5, "trail": ["a", "b"]}}
    refused = await rpc(http, COUNTER, "message/send", {"message": message(text("hi"))})
    assert refused["error"]["code"] == -32602


async def test_an_interrupt_asks_for_input_and_the_next_message_answers(http: httpx.AsyncClient):
    asked = await send(http, HITL, message({"kind": "data", "data": {"request": "leave"}}))
    assert asked["status"]["state"] == "input-required"
    (interrupt,) = asked["artifacts"][0]["parts"]
    assert interrupt["data"]["value"] == {"question": "approve leave?"}
    answered = await send(
        http, HITL, message(text("yes"), contextId=asked["contextId"], taskId=asked["id"])
    )
    assert answered["status"]["state"] == "completed"
    assert answered["artifacts"][0]["parts"][0]["data"]["decision"] == "leave: yes"


async def test_message_stream_sends_the_task_events(http: httpx.AsyncClient):
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "message/stream",
        "params": {"message": message(text("Stream this response"))},
    }
    events: list[dict[str, Any]] = []
    async with http.stream(
        "POST", f"/a2a/{ECHO}", json=body, headers={"accept": "text/event-stream"}
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(orjson.loads(line.removeprefix("data:")))
    assert all(e["jsonrpc"] == "2.0" and e["id"] == 7 for e in events)
    results = [e["result"] for e in events]
    assert [r["kind"] for r in results] == [
        "task",
        "status-update",
        "artifact-update",
        "status-update",
    ]
    task_id = results[0]["id"]
    assert results[0]["status"]["state"] == "submitted"
    assert results[1]["status"]["state"] == "working" and results[1]["final"] is False
    assert results[2]["taskId"] == task_id
    assert results[2]["artifact"]["parts"] == [
        {"kind": "text", "text": "You said: Stream this response"}
    ]
    assert results[3]["status"]["state"] == "completed" and results[3]["final"] is True
    found = await rpc(
        http, ECHO, "tasks/get", {"id": task_id, "contextId": results[0]["contextId"]}
    )
    assert found["result"]["status"]["state"] == "completed"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"[1, 2]", -32600),
        (b'{"jsonrpc": "1.0", "id": "1", "method": "message/send"}', -32600),
        (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "tasks/get"}', -32600),
        (b'{"jsonrpc": "2.0", "id": "1", "method": "tasks/list"}', -32601),
        (b'{"jsonrpc": "2.0", "id": "1", "method": "message/send", "params": {}}', -32602),
        (b'{"jsonrpc": "2.0", "id": "1", "method": "message/send", "params": [1]}', -32602),
        (b'{"jsonrpc": "2.0", "id": "1", "method": "tasks/get", "params": {}}', -32602),
        (b'{"jsonrpc": "2.0", "id": "1", "method": "tasks/get", "params": {"id": "a:b"}}', -32001),
        (
            b'{"jsonrpc": "2.0", "id": "1", "method": "tasks/cancel", "params": {"id": "a:b"}}',
            -32004,
        ),
    ],
)
async def test_bad_requests_get_json_rpc_errors(http: httpx.AsyncClient, body: bytes, code: int):
    response = await http.post(
        f"/a2a/{ECHO}", content=body, headers={**JSON, "content-type": "application/json"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["error"]["code"] == code, response.text
    assert isinstance(response.json()["error"]["message"], str)


async def test_bad_params_of_a_message_are_invalid_params(http: httpx.AsyncClient):
    for params in (
        {"message": message({"kind": "file", "file": {"uri": "x"}})},
        {"message": message(text("x"), contextId="not-a-uuid")},
        {"message": {"role": "user", "parts": [], "messageId": "m"}},
        {"message": message(text("x"), contextId=7)},
    ):
        answer = await rpc(http, ECHO, "message/send", params)
        assert answer["error"]["code"] == -32602, (params, answer)
    for bad_length in (-1, 11, "3", True):
        answer = await rpc(http, ECHO, "tasks/get", {"id": "a:b", "historyLength": bad_length})
        assert answer["error"]["code"] == -32602
    for assistant_id in (str(uuid.uuid4()), "nope"):
        answer = await rpc(http, assistant_id, "message/send", {"message": message(text("x"))})
        assert answer["error"]["code"] == -32602


async def test_an_accept_header_that_cannot_take_the_answer_is_a_400(http: httpx.AsyncClient):
    body = {
        "jsonrpc": "2.0",
        "id": "1",
        "method": "message/stream",
        "params": {"message": message(text("x"))},
    }
    for method, accept in (
        ("message/stream", "application/json"),
        ("message/send", "text/event-stream"),
    ):
        response = await http.post(
            f"/a2a/{ECHO}", json={**body, "method": method}, headers={"accept": accept}
        )
        assert response.status_code == 400
        assert isinstance(response.json()["detail"], str)


# -- auth ---------------------------------------------------------------------------------------
async def test_users_reach_only_their_own_contexts_and_tasks(a2a_auth_server: ServerProcess):
    async with (
        httpx.AsyncClient(base_url=a2a_auth_server.url, headers={"x-api-key": "key-a"}) as a,
        httpx.AsyncClient(base_url=a2a_auth_server.url, headers={"x-api-key": "key-b"}) as b,
        httpx.AsyncClient(base_url=a2a_auth_server.url) as anon,
    ):
        task = await send(a, ECHO, message(text("a secret")))
        context_id = task["contextId"]
        # B can neither continue A's conversation nor read A's task.
        hijack = await rpc(
            b, ECHO, "message/send", {"message": message(text("hi"), contextId=context_id)}
        )
        assert hijack["error"]["code"] == -32602
        peek = await rpc(b, ECHO, "tasks/get", {"id": task["id"], "contextId": context_id})
        assert peek["error"]["code"] == -32001
        assert "a secret" not in orjson.dumps([hijack, peek]).decode()
        # A still can, and B's own messages work.
        again = await send(a, ECHO, message(text("still mine"), contextId=context_id))
        assert len(again["history"]) == 4
        assert reply_text(await send(b, ECHO, message(text("b here")))) == "You said: b here"
        refused = await anon.post(
            f"/a2a/{ECHO}", json={"jsonrpc": "2.0", "id": "1", "method": "tasks/get"}
        )
        assert refused.status_code == 401


async def test_the_agent_card_describes_the_assistant(http: httpx.AsyncClient):
    response = await http.get("/.well-known/agent-card.json", params={"assistant_id": ECHO})
    assert response.status_code == 200
    card = response.json()
    assert card["name"] == "echo_agent"
    assert card["description"] == "Replies by echoing the last message."
    assert card["url"].endswith(f"/a2a/{ECHO}")
    assert card["capabilities"]["streaming"] is True
    assert "text/plain" in card["defaultInputModes"]
    assert card["skills"][0]["id"] == f"{ECHO}-main"
    counter = (
        await http.get("/.well-known/agent-card.json", params={"assistant_id": COUNTER})
    ).json()
    assert counter["defaultInputModes"] == ["application/json"]
    for params, status in (
        ({}, 400),
        ({"assistant_id": str(uuid.uuid4())}, 404),
        ({"assistant_id": "x"}, 422),
    ):
        refused = await http.get("/.well-known/agent-card.json", params=params)
        assert refused.status_code == status
        assert isinstance(refused.json()["detail"], str)


async def test_agent_cards_follow_assistant_visibility(a2a_auth_server: ServerProcess):
    async with (
        httpx.AsyncClient(base_url=a2a_auth_server.url, headers={"x-api-key": "key-a"}) as a,
        httpx.AsyncClient(base_url=a2a_auth_server.url, headers={"x-api-key": "key-b"}) as b,
        httpx.AsyncClient(base_url=a2a_auth_server.url) as anon,
    ):
        own = await a.post("/assistants", json={"graph_id": "echo_agent", "name": "a echo"})
        mine = own.json()["assistant_id"]
        path = "/.well-known/agent-card.json"
        assert (await a.get(path, params={"assistant_id": mine})).json()["name"] == "a echo"
        assert (await b.get(path, params={"assistant_id": mine})).status_code == 404
        assert (await b.get(path, params={"assistant_id": ECHO})).status_code == 200
        assert (await anon.get(path, params={"assistant_id": ECHO})).status_code == 401
        # Nor can B talk to A's assistant.
        answer = await rpc(b, mine, "message/send", {"message": message(text("hi"))})
        assert answer["error"]["code"] == -32602
        assert reply_text(await send(a, mine, message(text("hi")))) == "You said: hi"
