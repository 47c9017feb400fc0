"""The calls real clients make, sent as they send them, through the Python SDK and raw HTTP.

Agent Chat UI (`useStream` of `@langchain/langgraph-sdk`) lists threads by `metadata.graph_id`,
streams with `stream_subgraphs`, `stream_resumable` and `on_disconnect: "continue"`, resumes a
review with `submit({}, {command})`, which sends `input: {}` beside the command, regenerates from
a checkpoint with no input and edits a message as input from a checkpoint. agent-inbox marks a
thread resolved with `update_state(values=None, as_node="__end__")`. The agent is built as
LangChain v1 users build one: `create_agent` with `HumanInTheLoopMiddleware`
(tests/fixtures/hitl_agent.py). tests/ui/test_agent_chat_ui.py sends the same calls through
the JS SDK's own `useStream` in Chromium.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

GRAPHS = {
    "hitl_agent": "tests.fixtures.hitl_agent:hitl_agent",
    "hitl_agent_per_call": "tests.fixtures.hitl_agent:hitl_agent_per_call",
}
#: What Agent Chat UI's `submit` sends beside its input (useStream adds its tracked modes).
CHAT_UI_OPTIONS: dict[str, Any] = {
    "stream_mode": ["values", "messages-tuple", "custom"],
    "stream_subgraphs": True,
    "stream_resumable": True,
    "on_disconnect": "continue",
}
BROWSER_ORIGIN = "http://localhost:3000"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("client-calls")
    config = write_config(directory, graphs=GRAPHS, http={"cors": {"allow_origins": []}})
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"type": "human", "content": text}]}


async def chat_ui_stream(
    client: LangGraphClient, thread_id: str, graph: str, input: Any, **options: Any
) -> list[Any]:
    """One `submit` of Agent Chat UI: the stream's parts, after checking none is an error."""
    parts = [
        part
        async for part in client.runs.stream(
            thread_id, graph, input=input, **{**CHAT_UI_OPTIONS, **options}
        )
    ]
    errors = [part.data for part in parts if part.event == "error"]
    assert not errors, errors
    return parts


async def pending_review(client: LangGraphClient, thread_id: str) -> dict[str, Any]:
    state = await client.threads.get_state(thread_id)
    assert len(state["interrupts"]) == 1, state["interrupts"]
    return state["interrupts"][0]


async def last_reply(client: LangGraphClient, thread_id: str) -> str:
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "idle", thread
    assert not thread["interrupts"], thread["interrupts"]
    return thread["values"]["messages"][-1]["content"]


DECISIONS = {
    "approve": ({"type": "approve"}, "Done: sent 'hi' to ada@example.org."),
    "edit": (
        {
            "type": "edit",
            "edited_action": {"name": "send_email", "args": {"to": "bo@x.org", "body": "yo"}},
        },
        "sent 'yo' to bo@x.org.",
    ),
    "reject": ({"type": "reject", "message": "not now"}, "Not done: "),
    "respond": (
        {"type": "respond", "message": "the mail server is down"},
        "Done: the mail server is down.",
    ),
}


@pytest.mark.parametrize("kind", list(DECISIONS))
async def test_agent_chat_ui_review_decisions_resume_and_finish(client: LangGraphClient, kind: str):
    decision, reply = DECISIONS[kind]
    thread = await client.threads.create(metadata={"graph_id": "hitl_agent"})
    thread_id = thread["thread_id"]
    await chat_ui_stream(client, thread_id, "hitl_agent", human("email ada@example.org: hi"))
    review = await pending_review(client, thread_id)
    request = review["value"]
    assert request["action_requests"][0]["args"] == {"to": "ada@example.org", "body": "hi"}
    assert request["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
        "respond",
    ]

    # Exactly what `submit({}, {command: {resume: {decisions}}})` sends: input and command.
    await chat_ui_stream(
        client, thread_id, "hitl_agent", {}, command={"resume": {"decisions": [decision]}}
    )
    answer = await last_reply(client, thread_id)
    assert reply in answer
    if kind == "reject":
        assert "not now" in answer


async def test_per_call_reviews_are_answered_by_interrupt_id(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    await chat_ui_stream(client, thread_id, "hitl_agent_per_call", human("email ada@x.org: hi"))
    review = await pending_review(client, thread_id)
    assert review["value"]["type"] == "tool_approval"
    assert review["value"]["name"] == "send_email"
    # The answer's JSON Schema comes with the interrupt, as on the Platform.
    assert "oneOf" in review["response_schema"]

    await chat_ui_stream(
        client,
        thread_id,
        "hitl_agent_per_call",
        {},
        command={"resume": {review["id"]: {"type": "approve"}}},
    )
    assert await last_reply(client, thread_id) == "Done: sent 'hi' to ada@x.org."


async def test_mark_as_resolved_ends_the_review_both_ways(client: LangGraphClient):
    # Agent Chat UI: `submit({}, {command: {goto: END}})`.
    first = (await client.threads.create())["thread_id"]
    await chat_ui_stream(client, first, "hitl_agent", human("email a@x.org: one"))
    await pending_review(client, first)
    await chat_ui_stream(client, first, "hitl_agent", {}, command={"goto": "__end__"})
    thread = await client.threads.get(first)
    assert (thread["status"], thread["interrupts"]) == ("idle", {})

    # agent-inbox: a state update as `__end__` with no values clears the pending interrupt.
    second = (await client.threads.create())["thread_id"]
    await chat_ui_stream(client, second, "hitl_agent", human("email b@x.org: two"))
    await pending_review(client, second)
    await client.threads.update_state(second, None, as_node="__end__")
    thread = await client.threads.get(second)
    assert (thread["status"], thread["interrupts"]) == ("idle", {})
    state = await client.threads.get_state(second)
    assert state["next"] == [] and state["interrupts"] == []
    # The thread goes on from there.
    await chat_ui_stream(client, second, "hitl_agent", human("hello again"))
    assert await last_reply(client, second) == "You said: hello again"


async def test_thread_list_history_regenerate_and_edit_as_agent_chat_ui_calls_them(
    client: LangGraphClient,
):
    thread_id = (await client.threads.create(metadata={"graph_id": "hitl_agent"}))["thread_id"]
    parts = await chat_ui_stream(client, thread_id, "hitl_agent", human("first question"))
    tokens = [p.data[0]["content"] for p in parts if p.event == "messages"]
    assert "".join(tokens) == "You said: first question"
    await chat_ui_stream(client, thread_id, "hitl_agent", human("second question"))

    listed = await client.threads.search(metadata={"graph_id": "hitl_agent"}, limit=100)
    assert thread_id in {t["thread_id"] for t in listed}

    # Both branch actions start from `parent_checkpoint` of the state in which the message
    # was first seen, as Agent Chat UI reads it off the history.
    history = await client.threads.get_history(thread_id, limit=1000)
    messages = history[0]["values"]["messages"]
    assert [m["content"] for m in messages][2:] == ["second question", "You said: second question"]

    # Regenerate the second answer: no input, from before it.
    checkpoint = parent_of_first_sight(history, messages[3]["id"])
    await chat_ui_stream(client, thread_id, "hitl_agent", None, checkpoint=checkpoint)
    state = await client.threads.get_state(thread_id)
    regenerated = state["values"]["messages"]
    assert [m["content"] for m in regenerated] == [m["content"] for m in messages]
    assert regenerated[3]["id"] != messages[3]["id"]

    # Edit the second question: the new message as input, from before the old one.
    checkpoint = parent_of_first_sight(history, messages[2]["id"])
    await chat_ui_stream(
        client, thread_id, "hitl_agent", human("edited question"), checkpoint=checkpoint
    )
    edited = (await client.threads.get_state(thread_id))["values"]["messages"]
    assert [m["content"] for m in edited] == [
        "first question",
        "You said: first question",
        "edited question",
        "You said: edited question",
    ]


async def test_a_run_from_a_checkpoint_id_streams_each_node_s_own_namespace(
    client: LangGraphClient,
):
    """CopilotKit's regenerate (`@ag-ui/langgraph`) sends a top-level `checkpoint_id` and
    tells the chunks of its nodes apart by `metadata.checkpoint_ns`: each chunk carries its
    node's namespace, as on the Platform, not the root's empty one."""
    thread_id = (await client.threads.create())["thread_id"]
    await chat_ui_stream(client, thread_id, "hitl_agent", human("first question"))
    history = await client.threads.get_history(thread_id, limit=100)
    # The state before the model's turn: the model runs again from there.
    checkpoint_id = next(h["checkpoint_id"] for h in history if h["next"] == ["model"])
    chunks = [
        part.data[1]
        async for part in client.runs.stream(
            thread_id,
            "hitl_agent",
            input=None,
            checkpoint_id=checkpoint_id,
            stream_mode=["events", "values", "updates", "messages-tuple"],  # @ag-ui's
        )
        if part.event == "messages"
    ]
    assert chunks
    for metadata in chunks:
        assert metadata["checkpoint_ns"].startswith(metadata["langgraph_node"] + ":"), metadata


def parent_of_first_sight(history: list[dict[str, Any]], message_id: str) -> dict[str, Any]:
    """The checkpoint before the oldest state holding the message, without its `thread_id`
    (useStream drops it)."""
    first = [
        h for h in history if message_id in {m["id"] for m in h["values"].get("messages", [])}
    ][-1]
    return {k: v for k, v in first["parent_checkpoint"].items() if k != "thread_id"}


async def test_context_multimodal_input_and_every_run_option_are_accepted(
    client: LangGraphClient,
):
    content = [
        {"type": "text", "text": "look up cats"},
        {"type": "image", "source_type": "base64", "mime_type": "image/png", "data": "iVBORw0K"},
    ]
    result = await client.runs.wait(
        None,
        "hitl_agent",
        input={"messages": [{"type": "human", "content": content}], "context": {"artifact": 1}},
        context={"user": "ada"},
        multitask_strategy="enqueue",
        if_not_exists="create",
    )
    assert result["messages"][-1]["content"] == "Done: cats is well documented."


# -- bodies as hand-written clients send them ---------------------------------------------------
async def test_json_bodies_are_read_whatever_their_content_type(served: ServerProcess):
    async with httpx.AsyncClient(base_url=served.url) as http:
        # `curl -d '{...}'` says application/x-www-form-urlencoded.
        form = await http.post(
            "/threads",
            content=b'{"metadata": {"made_by": "curl"}}',
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert form.status_code == 200, form.text
        assert form.json()["metadata"]["made_by"] == "curl"
        plain = await http.post(
            "/threads/search",
            content=b'{"metadata": {"made_by": "curl"}}',
            headers={"content-type": "text/plain"},
        )
        assert plain.status_code == 200, plain.text
        assert [t["thread_id"] for t in plain.json()] == [form.json()["thread_id"]]
        # Not JSON at all: a 422 that says so.
        broken = await http.post(
            "/threads",
            content=b"metadata=x",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert broken.status_code == 422
        assert broken.json()["detail"] == "request body is not valid JSON"


@pytest.mark.parametrize(
    "path", ["/threads", "/threads/search", "/assistants/search", "/threads/count"]
)
async def test_an_empty_body_where_every_field_is_optional_reads_as_empty_object(
    served: ServerProcess, path: str
):
    async with httpx.AsyncClient(base_url=served.url) as http:
        response = await http.post(path)
        assert response.status_code == 200, response.text


async def test_an_empty_body_where_a_field_is_required_names_the_field(served: ServerProcess):
    async with httpx.AsyncClient(base_url=served.url) as http:
        response = await http.post("/runs/wait")
        assert response.status_code == 422
        assert response.json()["detail"] == "assistant_id: Field required"


async def test_info_flags_say_what_is_served(client: LangGraphClient):
    flags = (await client.http.get("/info"))["flags"]
    assert flags["assistants"] is True
    assert flags["crons"] is True
    assert flags["store"] is True


async def test_a_refused_browser_origin_is_logged_once_with_the_key_that_admits_it(
    served: ServerProcess,
):
    async with httpx.AsyncClient(base_url=served.url) as http:
        for _ in range(3):
            response = await http.options(
                "/threads/search",
                headers={"origin": BROWSER_ORIGIN, "access-control-request-method": "POST"},
            )
            assert response.status_code == 403
    # The log is written by the server process; give it a moment to flush.
    for _ in range(50):
        lines = [
            line
            for line in served.log.read_text().splitlines()
            if BROWSER_ORIGIN in line and "http.cors.allow_origins" in line
        ]
        if lines:
            break
        await asyncio.sleep(0.1)
    assert len(lines) == 1, lines
    assert "WARNING" in lines[0]
