"""Stream modes beyond the basics, resumable run streams and thread streams, through the SDK.

The `streaming_chat` graph calls a `lookup` tool (the model's tool call arrives whole), then
answers in words streamed one at a time by LangChain's fake streaming chat model.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.streams import open_stream, until_node_done

QUESTION = {"messages": [{"role": "user", "content": "what is SSE?"}]}
ANSWER = "SSE means server-sent events here"


async def _new_thread(client: LangGraphClient) -> str:
    return (await client.threads.create())["thread_id"]


async def test_messages_mode_streams_growing_partials_and_whole_messages(
    client: LangGraphClient,
):
    thread_id = await _new_thread(client)
    parts = [
        p
        async for p in client.runs.stream(
            thread_id, "streaming_chat", input=QUESTION, stream_mode="messages"
        )
    ]
    events = [p.event for p in parts]
    assert events[0] == "metadata"
    # The tool call and the tool result arrive whole; the answer grows chunk by chunk.
    assert events[1:5] == [
        "messages/metadata",
        "messages/complete",
        "messages/metadata",
        "messages/complete",
    ]
    assert events[5] == "messages/metadata"
    assert set(events[6:]) == {"messages/partial"}

    call = parts[2].data[0]
    assert call["type"] == "ai"
    assert call["tool_calls"][0]["name"] == "lookup"
    assert call["tool_calls"][0]["args"] == {"term": "SSE"}
    tool_result = parts[4].data[0]
    assert tool_result["type"] == "tool" and tool_result["content"] == "server-sent events"

    answer_id = parts[6].data[0]["id"]
    assert parts[5].data[answer_id]["metadata"]["langgraph_node"] == "agent"
    contents = [p.data[0]["content"] for p in parts[6:]]
    assert len(contents) > 3, "the answer should come in several chunks"
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(contents))
    assert contents[-1] == ANSWER
    assert {p.data[0]["id"] for p in parts[6:]} == {answer_id}
    # The streamed answer is the message stored in the thread.
    state = await client.threads.get_state(thread_id)
    assert state["values"]["messages"][-1]["content"] == ANSWER
    assert state["values"]["messages"][-1]["id"] == answer_id


async def test_messages_with_messages_tuple_sends_the_tuples_alone(client: LangGraphClient):
    parts = [
        p
        async for p in client.runs.stream(
            None,
            "streaming_chat",
            input=QUESTION,
            stream_mode=["messages", "messages-tuple", "updates"],
        )
    ]
    # Asked for both, the Platform sends the tuples alone: one family of message events.
    assert {p.event for p in parts} == {"metadata", "messages", "updates"}
    tuples = [p.data for p in parts if p.event == "messages"]
    # messages-tuple sends each raw chunk with its metadata: the tokens add up to the answer.
    tokens = [m["content"] for m, meta in tuples if meta["langgraph_node"] == "agent"]
    assert "".join(tokens) == ANSWER
    updates = [p.data for p in parts if p.event == "updates"]
    assert [next(iter(u)) for u in updates] == ["agent", "tools", "agent"]


async def test_events_mode_sends_langchain_callback_events(client: LangGraphClient):
    thread_id = await _new_thread(client)
    parts = [
        p
        async for p in client.runs.stream(
            thread_id, "streaming_chat", input=QUESTION, stream_mode=["events", "values"]
        )
    ]
    assert parts[0].event == "metadata"
    run_id = parts[0].data["run_id"]
    events = [p.data for p in parts if p.event == "events"]
    names = [e["event"] for e in events]
    assert names[0] == "on_chain_start" and events[0]["run_id"] == run_id
    assert names[-1] == "on_chain_end" and events[-1]["run_id"] == run_id
    tokens = [e["data"]["chunk"]["content"] for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(tokens) == ANSWER
    tool_start = next(e for e in events if e["event"] == "on_tool_start")
    assert tool_start["name"] == "lookup" and tool_start["data"]["input"] == {"term": "SSE"}
    # The root graph's own stream is not repeated as an event; it feeds `values` instead.
    assert not any(e["event"] == "on_chain_stream" and e["run_id"] == run_id for e in events)
    values = [p.data for p in parts if p.event == "values"]
    assert values[-1]["messages"][-1]["content"] == ANSWER


async def test_events_mode_leaves_out_what_langgraph_hides(client: LangGraphClient):
    """The `__start__` node and a routing function (langgraph-swarm routes every turn so)
    are tagged `langsmith:hidden`; the Platform leaves them out of `events`."""
    parts = [
        p
        async for p in client.runs.stream(None, "routed", input={"count": 0}, stream_mode="events")
    ]
    events = [p.data for p in parts if p.event == "events"]
    names = {e["name"] for e in events}
    assert "a" in names
    assert not names & {"__start__", "_route_by_count"}
    assert not any("langsmith:hidden" in (e.get("tags") or []) for e in events)


async def test_debug_mode_reports_checkpoints_and_tasks(client: LangGraphClient):
    parts = [
        p
        async for p in client.runs.stream(None, "counter", input={"count": 0}, stream_mode="debug")
    ]
    kinds = [p.data["type"] for p in parts if p.event == "debug"]
    assert kinds.count("task") == 2 and kinds.count("task_result") == 2
    assert "checkpoint" in kinds
    results = [
        p.data["payload"] for p in parts if p.event == "debug" and p.data["type"] == "task_result"
    ]
    assert [r["name"] for r in results] == ["a", "b"]


async def test_durability_is_passed_to_langgraph(client: LangGraphClient):
    """`exit` saves only the end of the run; `sync` saves every step."""
    lengths = {}
    for durability in ("sync", "exit"):
        thread_id = await _new_thread(client)
        await client.runs.wait(thread_id, "counter", input={"count": 0}, durability=durability)
        history = await client.threads.get_history(thread_id, limit=20)
        assert history[0]["values"]["count"] == 2
        lengths[durability] = len(history)
    assert lengths["exit"] < lengths["sync"]


async def test_resuming_a_run_stream_gives_exactly_the_missed_events(client: LangGraphClient):
    thread_id = await _new_thread(client)
    seen = []
    stream = client.runs.stream(
        thread_id,
        "slow",
        input={"seconds": 0.4, "label": "r"},
        stream_mode=["values", "updates"],
        on_disconnect="continue",
    )
    async for part in stream:
        seen.append(part)
        if len(seen) == 2:
            break  # the client goes away mid-run
    await stream.aclose()
    run_id = seen[0].data["run_id"]
    rest = [p async for p in client.runs.join_stream(thread_id, run_id, last_event_id=seen[-1].id)]
    everything = [p async for p in client.runs.join_stream(thread_id, run_id, last_event_id="-1")]
    assert [(p.event, p.data) for p in seen + rest] == [(p.event, p.data) for p in everything]
    assert [int(p.id) for p in everything] == list(range(len(everything)))
    assert everything[-1].data == {"seconds": 0.4, "label": "r", "done": ["r:first", "r:second"]}


async def test_joining_a_live_run_without_an_id_follows_from_now(
    client: LangGraphClient, tmp_path: Path
):
    gate = tmp_path / "go"
    thread_id = await _new_thread(client)
    run = await client.runs.create(
        thread_id,
        "slow",
        input={"seconds": 0, "label": "j", "gate": str(gate)},
        stream_mode="updates",
    )
    await until_node_done(client, thread_id, run["run_id"], "first")  # `second` waits for the gate
    live: list = []
    joined = await open_stream(client, f"/threads/{thread_id}/runs/{run['run_id']}/stream", live)
    gate.touch()
    await asyncio.wait_for(joined, 30)  # the stream ends with the run
    assert [p.event for p in live] == ["updates"]
    assert list(live[0].data) == ["second"]


async def _collect(client: LangGraphClient, thread_id: str, into: list, **kwargs: Any) -> None:
    async for part in await client.threads.join_stream(thread_id, **kwargs):
        into.append(part)


async def _until(predicate, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def test_thread_stream_follows_every_run_and_resumes(client: LangGraphClient):
    thread_id = await _new_thread(client)
    live: list = []
    listener = await open_stream(client, f"/threads/{thread_id}/stream", live)
    first = await client.runs.create(
        thread_id, "counter", input={"count": 0}, stream_mode="updates"
    )
    second = await client.runs.create(thread_id, "counter", input={"count": 10})
    await client.runs.join(thread_id, second["run_id"])
    await _until(lambda: sum(p.data.get("status") == "run_done" for p in live) == 2)
    listener.cancel()

    assert [p.event for p in live] == [
        "metadata",
        "updates",
        "updates",
        "metadata",
        "metadata",
        "values",
        "values",
        "values",
        "metadata",
    ]
    assert live[0].data["run_id"] == first["run_id"]
    assert live[3].data == {"status": "run_done", "run_id": first["run_id"]}
    assert live[4].data["run_id"] == second["run_id"]
    assert live[7].data["count"] == 12
    assert live[8].data == {"status": "run_done", "run_id": second["run_id"]}

    # Resuming after the first run's second event replays the rest, then follows live.
    resumed: list = []
    listener = asyncio.create_task(_collect(client, thread_id, resumed, last_event_id=live[1].id))
    await _until(lambda: len(resumed) >= len(live) - 2)
    third = await client.runs.create(thread_id, "counter", input={"count": 20})
    await client.runs.join(thread_id, third["run_id"])
    await _until(lambda: any(p.data.get("run_id") == third["run_id"] for p in resumed[7:]))
    await _until(lambda: resumed[-1].data == {"status": "run_done", "run_id": third["run_id"]})
    listener.cancel()
    assert [(p.event, p.data, p.id) for p in resumed[:7]] == [
        (p.event, p.data, p.id) for p in live[2:]
    ]
    assert resumed[7].data["run_id"] == third["run_id"]


async def test_thread_stream_modes(client: LangGraphClient):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "counter", input={"count": 0})
    lifecycle: list = []
    edits: list = []
    path = f"/threads/{thread_id}/stream"
    listeners = [
        await open_stream(client, path, lifecycle, params={"stream_mode": "lifecycle"}),
        await open_stream(client, path, edits, params={"stream_mode": "state_update"}),
    ]
    run = await client.runs.create(thread_id, "counter", input={"count": 5})
    await client.runs.join(thread_id, run["run_id"])
    await client.threads.update_state(thread_id, {"count": 100})
    await _until(lambda: len(lifecycle) == 2 and len(edits) == 1)
    for listener in listeners:
        listener.cancel()
    assert [p.data for p in lifecycle] == [
        {"run_id": run["run_id"], "attempt": 1},
        {"status": "run_done", "run_id": run["run_id"]},
    ]
    assert edits[0].event == "state_update"
    assert edits[0].data["thread_id"] == thread_id
    assert edits[0].data["state"]["values"]["count"] == 100


@pytest.mark.parametrize(
    ("thread", "headers", "params", "status"),
    [
        ("new", {"Last-Event-ID": "not-an-id"}, {}, 422),
        ("new", {"Last-Event-ID": f"{uuid.uuid4()}:3"}, {}, 404),
        ("new", {"Last-Event-ID": "x:3"}, {}, 422),
        ("new", {}, {"stream_mode": "everything"}, 422),
        ("missing", {}, {}, 404),
        ("not-a-uuid", {}, {}, 422),
    ],
)
async def test_thread_stream_bad_requests_are_clear(
    client: LangGraphClient, thread: str, headers: dict, params: dict, status: int
):
    if thread == "new":
        thread = await _new_thread(client)
    elif thread == "missing":
        thread = str(uuid.uuid4())
    response = await client.http.client.get(
        f"/threads/{thread}/stream", headers=headers, params=params
    )
    assert response.status_code == status, response.text
    assert isinstance(response.json()["detail"], str)


async def test_run_join_stream_rejects_a_bad_last_event_id(client: LangGraphClient):
    thread_id = await _new_thread(client)
    run = await client.runs.create(thread_id, "counter", input={"count": 0})
    await client.runs.join(thread_id, run["run_id"])
    response = await client.http.client.get(
        f"/threads/{thread_id}/runs/{run['run_id']}/stream", headers={"Last-Event-ID": "abc"}
    )
    assert response.status_code == 422
    assert "Last-Event-ID" in response.json()["detail"]


async def test_a_run_that_raises_sends_the_error_and_ends(client: LangGraphClient):
    thread_id = await _new_thread(client)
    parts = [
        p
        async for p in client.runs.stream(
            thread_id, "failing", input={}, stream_mode=["values", "messages", "events"]
        )
    ]
    errors = [p.data for p in parts if p.event == "error"]
    assert errors == [{"error": "ValueError", "message": "the failing node failed on purpose"}]
    assert parts[-1].event == "error"
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "error"


async def test_streams_and_wait_show_the_output_schema_not_private_state(
    client: LangGraphClient,
):
    thread_id = (await client.threads.create())["thread_id"]
    parts = [
        p
        async for p in client.runs.stream(
            thread_id, "private_state", input={"question": "why"}, stream_mode=["values", "updates"]
        )
    ]
    # As langgraph-api streams them: the graph's output channels only (LangChain's
    # PrivateStateAttr fields, such as the HITL middleware's, leaked into Agent Chat UI).
    assert [p.data for p in parts if p.event == "values"] == [{"answer": "re: why"}]
    assert [p.data for p in parts if p.event == "updates"] == [{"think": {"answer": "re: why"}}]
    waited = await client.runs.wait(thread_id, "private_state", input={"question": "how"})
    assert waited == {"answer": "re: how"}
    # The thread's state is the whole state.
    state = await client.threads.get_state(thread_id)
    assert state["values"]["scratch"] == "working it out"
