"""The v3 thread protocol through `langgraph_sdk` 0.4.14's `client.threads.stream(...)`.

Commands (`POST /threads/{id}/commands`), the SSE event stream
(`POST /threads/{id}/stream/events`) and its WebSocket form against a live server, on SQLite
and, with `OLG_TEST_BACKEND=postgres+redis`, in queue mode (runs executed by a worker process,
events crossing processes through storage and Redis).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import orjson
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e

TIMEOUT = 30.0


async def _collect(aiter: Any) -> list[Any]:
    async with asyncio.timeout(TIMEOUT):
        return [item async for item in aiter]


async def _sse_events(
    server: ServerProcess, thread_id: str, body: dict[str, Any], *, count: int, headers=None
) -> list[dict[str, Any]]:
    """The first `count` events of a stream/events request, read raw."""
    events: list[dict[str, Any]] = []
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http,
        asyncio.timeout(TIMEOUT),
        http.stream(
            "POST", f"/threads/{thread_id}/stream/events", json=body, headers=headers or {}
        ) as response,
    ):
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                events.append(orjson.loads(line[6:]))
            if line.startswith("id: "):  # the SSE id is the event's seq
                assert line[4:] == str(events[-1]["seq"])
                if len(events) == count:
                    break
    return events


async def _finished_thread(client: LangGraphClient, graph: str, value: Any) -> str:
    async with client.threads.stream(assistant_id=graph) as thread:
        await thread.run.start(input=value)
        async with asyncio.timeout(TIMEOUT):
            await thread.output
    return thread.thread_id


# -- values, lifecycle, commands ------------------------------------------------------------
async def test_run_start_streams_values_and_ends_with_the_output(client: LangGraphClient):
    async with client.threads.stream(assistant_id="counter") as thread:
        result = await thread.run.start(input={"count": 1})
        assert uuid.UUID(result["run_id"])
        snapshots = await _collect(thread.values)
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
    assert output == {"count": 3, "trail": ["a", "b"]}
    # The first snapshot is the state the SDK read over REST; then every superstep.
    assert snapshots[-1] == output
    assert {"count": 2, "trail": ["a"]} in snapshots
    run = await client.runs.get(thread.thread_id, result["run_id"])
    assert run["status"] == "success"


async def test_raw_events_carry_lifecycle_updates_and_custom(client: LangGraphClient):
    async with client.threads.stream(assistant_id="counter") as thread:
        await thread.run.start(input={"count": 5})
        events: list[dict[str, Any]] = []
        async with asyncio.timeout(TIMEOUT):
            async for event in thread.subscribe(["lifecycle", "updates", "custom"]):
                events.append(event)
    # A run's start and end, named by its graph, as langgraph-api sends them.
    assert events[0]["method"] == "lifecycle"
    assert events[0]["params"]["data"] == {"event": "running", "graph_name": "counter"}
    assert events[-1]["params"]["data"] == {"event": "completed", "graph_name": "counter"}
    updates = [e["params"]["data"] for e in events if e["method"] == "updates"]
    assert updates == [
        {"node": "a", "values": {"count": 6, "trail": ["a"]}},
        {"node": "b", "values": {"count": 7, "trail": ["b"]}},
    ]
    custom = [e["params"]["data"] for e in events if e["method"] == "custom"]
    assert custom == [{"step": "a", "count": 5}]  # what the node wrote
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(e["event_id"] == str(e["seq"]) for e in events)


async def test_a_failing_run_ends_with_a_failed_lifecycle(client: LangGraphClient):
    async with client.threads.stream(assistant_id="failing") as thread:
        await thread.run.start(input={"count": 0})
        with pytest.raises(RuntimeError, match="failed on purpose"):
            async with asyncio.timeout(TIMEOUT):
                await thread.output


# -- messages and tools ---------------------------------------------------------------------
async def test_messages_stream_token_by_token_and_tools_show_start_and_result(
    client: LangGraphClient,
):
    question = {"messages": [{"role": "user", "content": "what is SSE?"}]}
    async with client.threads.stream(assistant_id="streaming_chat") as thread:
        await thread.run.start(input=question)
        items = await _collect(thread.interleave_projections(["messages", "tool_calls"]))
        texts = []
        deltas: list[list[str]] = []
        calls = []
        for kind, item in items:
            if kind == "messages":
                chunks = [delta async for delta in item.text]
                deltas.append(chunks)
                texts.append(await item.text)
            else:
                calls.append(item)
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
    # The tool call came whole (one message, no text); the answer word by word.
    assert texts[-1] == "SSE means server-sent events here"
    assert len(deltas[-1]) > 3, deltas
    assert "".join(deltas[-1]) == texts[-1]
    assert [(c.name, c.input) for c in calls] == [("lookup", {"term": "SSE"})]
    async with asyncio.timeout(TIMEOUT):
        tool_output = await calls[0].output
    assert tool_output["content"] == "server-sent events"
    assert output["messages"][-1]["content"][0]["text"] == texts[-1]


# -- interrupts -----------------------------------------------------------------------------
async def test_an_interrupt_is_answered_with_input_respond(client: LangGraphClient):
    async with client.threads.stream(assistant_id="hitl") as thread:
        await thread.run.start(input={"request": "deploy"})
        await _collect(thread.values)  # ends when the run pauses
        assert thread.interrupted
        [pending] = thread.interrupts
        assert pending["value"] == {"question": "approve deploy?"}
        assert pending["namespace"] == []
        result = await thread.run.respond("yes")
        assert uuid.UUID(result["run_id"])
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
    assert output == {"request": "deploy", "decision": "deploy: yes"}


async def test_input_respond_to_an_unknown_interrupt_is_a_protocol_error(
    client: LangGraphClient,
):
    thread_id = await _finished_thread(client, "counter", {"count": 0})
    response = await client.http.client.post(
        f"/threads/{thread_id}/commands",
        json={
            "id": 7,
            "method": "input.respond",
            "params": {"interrupt_id": "nope", "namespace": [], "response": 1},
        },
    )
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "error" and body["id"] == 7
    assert body["error"] == "no_such_interrupt"


# -- subgraphs ------------------------------------------------------------------------------
async def test_subgraph_events_carry_their_namespace(client: LangGraphClient):
    async with client.threads.stream(assistant_id="nested") as thread:
        await thread.run.start(input={"count": 1})
        events = await _collect(thread.subscribe(["values", "lifecycle"]))
        inner = [e for e in events if e["params"]["namespace"] and e["method"] == "values"]
        root = [e for e in events if not e["params"]["namespace"] and e["method"] == "values"]
        async with asyncio.timeout(TIMEOUT):
            await thread.output
    [namespace] = {tuple(e["params"]["namespace"]) for e in inner}
    assert namespace[0].startswith("inner:")
    assert inner[-1]["params"]["data"] == {"count": 3, "trail": ["parent", "a", "b"]}
    assert root[-1]["params"]["data"]["count"] == 3
    started = [
        e["params"]
        for e in events
        if e["method"] == "lifecycle" and e["params"]["data"]["event"] == "started"
    ]
    assert {"namespace": list(namespace), "graph_name": "inner"} in [
        {"namespace": p["namespace"], "graph_name": p["data"].get("graph_name")} for p in started
    ]
    # A filter by namespace and depth keeps only the subgraph's own events.
    scoped = await _sse_events_finished(
        client, thread.thread_id, {"channels": ["values"], "namespaces": [["inner"]]}
    )
    assert scoped and all(e["params"]["namespace"] == list(namespace) for e in scoped)
    shallow = await _sse_events_finished(
        client, thread.thread_id, {"channels": ["values"], "namespaces": [[]], "depth": 0}
    )
    assert shallow and all(e["params"]["namespace"] == [] for e in shallow)


async def _sse_events_finished(
    client: LangGraphClient, thread_id: str, body: dict[str, Any]
) -> list[dict[str, Any]]:
    """What a stream/events request replays of the thread's (one, finished) run, from its
    first event on (`since` 0): the stream stays open, so it is read until quiet for 1 s."""
    body = {**body, "since": 0}
    events = []
    async with (
        asyncio.timeout(TIMEOUT),
        client.http.client.stream(
            "POST", f"/threads/{thread_id}/stream/events", json=body
        ) as response,
    ):
        assert response.status_code == 200
        lines = response.aiter_lines()
        while True:
            try:
                line = await asyncio.wait_for(anext(lines), 1.0)
            except (TimeoutError, StopAsyncIteration):
                break
            if line.startswith("data: "):
                events.append(orjson.loads(line[6:]))
    return events


# -- reconnecting ---------------------------------------------------------------------------
async def test_a_reconnect_resumes_without_loss_or_duplicates(
    client: LangGraphClient, server: ServerProcess
):
    thread_id = await _finished_thread(client, "counter", {"count": 1})
    body = {"channels": ["values", "updates", "lifecycle", "custom", "tasks", "checkpoints"]}
    full = await _sse_events_until_end(server, thread_id, body)
    assert len(full) > 8
    for cut in (1, 4, len(full) - 2):
        first = full[:cut]
        since = first[-1]["seq"]
        rest = await _sse_events_until_end(server, thread_id, {**body, "since": since})
        assert [e["event_id"] for e in first + rest] == [e["event_id"] for e in full]
        # The same with the SSE `Last-Event-ID` header.
        rest = await _sse_events_until_end(
            server, thread_id, body, headers={"Last-Event-ID": str(since)}
        )
        assert [e["event_id"] for e in first + rest] == [e["event_id"] for e in full]


async def _sse_events_until_end(
    server: ServerProcess, thread_id: str, body: dict[str, Any], headers=None
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http,
        asyncio.timeout(TIMEOUT),
        http.stream(
            "POST", f"/threads/{thread_id}/stream/events", json=body, headers=headers or {}
        ) as response,
    ):
        assert response.status_code == 200, await response.aread()
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            event = orjson.loads(line[6:])
            events.append(event)
            params = event["params"]
            if (
                event["method"] == "lifecycle"
                and not params["namespace"]
                and params["data"]["event"] in ("completed", "failed", "interrupted")
            ):
                break
    return events


async def test_a_live_reconnect_mid_run_misses_nothing(
    client: LangGraphClient, server: ServerProcess
):
    """Half of a running run's events on one connection, the rest on a second one."""
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    body = {"channels": ["values", "lifecycle"]}
    await client.http.client.post(
        f"/threads/{thread_id}/commands",
        json={
            "id": 1,
            "method": "run.start",
            "params": {"assistant_id": "slow", "input": {"seconds": 0.3, "label": "x"}},
        },
    )
    first = await _sse_events(server, thread_id, body, count=2)
    rest = await _sse_events_until_end(server, thread_id, {**body, "since": first[-1]["seq"]})
    everything = await _sse_events_until_end(server, thread_id, body)
    assert [e["event_id"] for e in first + rest] == [e["event_id"] for e in everything]
    assert everything[-1]["params"]["data"]["event"] == "completed"


# -- the WebSocket transport ----------------------------------------------------------------
async def test_the_websocket_transport_streams_the_same_protocol(client: LangGraphClient):
    async with client.threads.stream(assistant_id="counter", transport="websocket") as thread:
        await thread.run.start(input={"count": 10})
        snapshots = await _collect(thread.values)
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
    assert output == {"count": 12, "trail": ["a", "b"]}
    assert snapshots[-1] == output


async def test_websocket_messages_and_an_interrupt(client: LangGraphClient):
    async with client.threads.stream(assistant_id="hitl", transport="websocket") as thread:
        await thread.run.start(input={"request": "ship"})
        await _collect(thread.values)
        assert thread.interrupted
        await thread.run.respond("no")
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
    assert output["decision"] == "ship: no"


async def test_websocket_commands_and_bad_frames(server: ServerProcess, client: LangGraphClient):
    from websockets.asyncio.client import connect

    thread_id = await _finished_thread(client, "counter", {"count": 0})
    url = server.url.replace("http://", "ws://") + f"/threads/{thread_id}/stream/events"
    async with asyncio.timeout(TIMEOUT), connect(url) as ws:
        await ws.send("{not json")
        assert orjson.loads(await ws.recv())["error"] == "invalid_argument"
        await ws.send(orjson.dumps({"id": 1, "method": "subscription.subscribe", "params": {}}))
        assert orjson.loads(await ws.recv())["error"] == "invalid_argument"
        await ws.send(orjson.dumps({"id": 2, "method": "nope"}))
        assert orjson.loads(await ws.recv()) == {
            "type": "error",
            "id": 2,
            "error": "unknown_command",
            "message": "Unknown protocol command: nope",
        }
        subscribe = {
            "id": 3,
            "method": "subscription.subscribe",
            "params": {"channels": ["values"]},
        }
        await ws.send(orjson.dumps(subscribe))
        answer = orjson.loads(await ws.recv())
        assert answer["type"] == "success" and answer["id"] == 3
        replayed = orjson.loads(await ws.recv())  # the thread's latest run, replayed
        assert replayed["method"] == "values"
        subscription_id = answer["result"]["subscription_id"]
        await ws.send(
            orjson.dumps(
                {
                    "id": 4,
                    "method": "subscription.unsubscribe",
                    "params": {"subscription_id": subscription_id},
                }
            )
        )
        while (frame := orjson.loads(await ws.recv())).get("type") == "event":
            pass
        assert frame == {"type": "success", "id": 4, "result": {}}
    missing = server.url.replace("http://", "ws://") + f"/threads/{uuid.uuid4()}/stream/events"
    with pytest.raises(Exception) as refused:
        async with asyncio.timeout(TIMEOUT), connect(missing) as ws:
            await ws.recv()
    assert "4404" in str(refused.value) or "403" in str(refused.value)


# -- bad input ------------------------------------------------------------------------------
async def test_bad_commands_and_subscriptions_are_refused(client: LangGraphClient):
    http = client.http.client
    thread_id = await _finished_thread(client, "counter", {"count": 0})
    for envelope in (
        b'{"method": "run.start"}',
        b'{"id": 146531055537833000960, "method": "run.start"}',
        b'{"id": -1, "method": "run.start"}',
        b'{"id": 1, "method": "\\ud991"}',
        b'{"id": 1, "method": "run.start", "params": []}',
        b"[]",
    ):
        response = await http.post(
            f"/threads/{thread_id}/commands",
            content=envelope,
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 400, (envelope, response.text)
        assert response.json()["error"] == "invalid_argument"
        assert isinstance(response.json()["detail"], str)
    for method, code in [
        ("agent.getTree", "not_supported"),
        ("subscription.subscribe", "not_supported"),
        ("bogus", "unknown_command"),
    ]:
        body = (
            await http.post(f"/threads/{thread_id}/commands", json={"id": 1, "method": method})
        ).json()
        assert body["type"] == "error" and body["error"] == code, body
    body = (
        await http.post(
            f"/threads/{thread_id}/commands",
            json={"id": 2, "method": "run.start", "params": {"input": {}}},
        )
    ).json()
    assert body["error"] == "invalid_argument"
    state = (
        await http.post(f"/threads/{thread_id}/commands", json={"id": 3, "method": "state.get"})
    ).json()
    assert state["result"]["values"] == {"count": 2, "trail": ["a", "b"]}
    for bad in [
        {},
        {"channels": []},
        {"channels": ["nope"]},
        {"channels": ["values"], "depth": -1},
    ]:
        response = await http.post(f"/threads/{thread_id}/stream/events", json=bad)
        assert response.status_code == 422 and isinstance(response.json()["detail"], str)
    response = await http.post(
        f"/threads/{thread_id}/stream/events", json={"channels": ["values"], "since": 1 << 50}
    )
    assert response.status_code == 422
    response = await http.post(
        f"/threads/{uuid.uuid4()}/stream/events", json={"channels": ["values"]}
    )
    assert response.status_code == 404


async def test_a_new_session_on_an_interrupted_thread_sees_and_answers_the_interrupt(
    client: LangGraphClient,
):
    """The SDK reattaches by thread id: the thread's latest run is replayed to it."""
    async with client.threads.stream(assistant_id="hitl") as thread:
        await thread.run.start(input={"request": "merge"})
        await _collect(thread.values)
        assert thread.interrupted
    async with client.threads.stream(thread.thread_id, assistant_id="hitl") as again:
        async with asyncio.timeout(TIMEOUT):
            while not again.interrupted:
                await asyncio.sleep(0.02)
        [pending] = again.interrupts
        assert pending["value"] == {"question": "approve merge?"}
        await again.run.respond("later")
        async with asyncio.timeout(TIMEOUT):
            output = await again.output
    assert output["decision"] == "merge: later"


def test_the_sync_client_streams_a_thread(server: ServerProcess):
    from langgraph_sdk import get_sync_client

    sync_client = get_sync_client(url=server.url)
    try:
        with sync_client.threads.stream(assistant_id="counter") as thread:
            thread.run.start(input={"count": 20})
            snapshots = list(thread.values)
            output = thread.output
    finally:
        sync_client.http.client.close()
    assert output == {"count": 22, "trail": ["a", "b"]}
    assert snapshots[-1] == output


async def test_the_subgraphs_projection_finds_the_subgraph_and_its_end(client: LangGraphClient):
    async with client.threads.stream(assistant_id="nested") as thread:
        await thread.run.start(input={"count": 1})
        handles = await _collect(thread.subgraphs)
        async with asyncio.timeout(TIMEOUT):
            await thread.output
    [handle] = handles
    assert handle.graph_name == "inner"
    assert handle.path[0].startswith("inner:") and handle.trigger_call_id
    assert handle.status == "completed"


async def test_since_resumes_across_the_runs_of_a_thread(
    client: LangGraphClient, server: ServerProcess
):
    thread_id = await _finished_thread(client, "counter", {"count": 1})
    async with client.threads.stream(thread_id, assistant_id="counter") as thread:
        await thread.run.start(input={"count": 100})
        async with asyncio.timeout(TIMEOUT):
            while (await client.runs.list(thread_id))[0]["status"] != "success":
                await asyncio.sleep(0.05)
    body = {"channels": ["values", "lifecycle"], "since": 0}
    events = await _sse_events(server, thread_id, body, count=10)
    lifecycle = [e["params"]["data"]["event"] for e in events if e["method"] == "lifecycle"]
    assert lifecycle == ["running", "completed", "running", "completed"]
    values = [e["params"]["data"]["count"] for e in events if e["method"] == "values"]
    assert values == [1, 2, 3, 100, 101, 102]
    rest = await _sse_events(server, thread_id, {**body, "since": events[3]["seq"]}, count=6)
    assert [e["event_id"] for e in rest] == [e["event_id"] for e in events[4:]]


async def test_a_cancelled_protocol_run_ends_failed(client: LangGraphClient):
    async with client.threads.stream(assistant_id="slow") as thread:
        result = await thread.run.start(input={"seconds": 0.05, "hold": True})
        async with asyncio.timeout(TIMEOUT):
            while (await client.threads.get_state(thread.thread_id))["next"] != ["second"]:
                await asyncio.sleep(0.02)
        await client.runs.cancel(thread.thread_id, result["run_id"])
        with pytest.raises(RuntimeError, match="cancelled"):
            async with asyncio.timeout(TIMEOUT):
                await thread.output


async def test_a_second_turn_in_a_new_session_waits_for_its_own_run(client: LangGraphClient):
    """A session on an existing thread, whose last run completed, sees its own run's end."""
    thread_id = await _finished_thread(client, "slow", {"seconds": 0.01, "label": "one"})
    async with client.threads.stream(thread_id, assistant_id="slow") as thread:
        await asyncio.sleep(0.5)  # the session's lifecycle stream is open before its run
        await thread.run.start(input={"seconds": 0.3, "label": "two"})
        async with asyncio.timeout(TIMEOUT):
            output = await thread.output
        snapshots = await _collect(thread.values)
    assert output["done"][-2:] == ["two:first", "two:second"]
    assert snapshots[-1] == output


async def _command(client: LangGraphClient, thread_id: str, method: str, **params: Any) -> dict:
    response = await client.http.client.post(
        f"/threads/{thread_id}/commands", json={"id": 9, "method": method, "params": params}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_checkpoints_are_listed_and_a_fork_runs_from_one(client: LangGraphClient):
    thread_id = await _finished_thread(client, "counter", {"count": 1})
    listed = await _command(client, thread_id, "state.listCheckpoints", limit=10)
    checkpoints = listed["result"]["checkpoints"]
    history = await client.threads.get_history(thread_id, limit=10)
    assert [c["id"] for c in checkpoints] == [h["checkpoint"]["checkpoint_id"] for h in history]
    assert [c["step"] for c in checkpoints] == [2, 1, 0, -1]
    older = await _command(
        client, thread_id, "state.listCheckpoints", limit=2, before=checkpoints[1]["id"]
    )
    assert [c["id"] for c in older["result"]["checkpoints"]] == [c["id"] for c in checkpoints[2:4]]
    before_b = next(h for h in history if h["next"] == ["b"])["checkpoint"]["checkpoint_id"]
    forked = await _command(client, thread_id, "state.fork", checkpoint_id=before_b)
    assert forked["type"] == "success", forked
    assert forked["result"]["thread_id"] == thread_id
    async with asyncio.timeout(TIMEOUT):
        await client.runs.join(thread_id, forked["result"]["run_id"])
    state = await client.threads.get_state(thread_id)
    assert state["values"] == {"count": 3, "trail": ["a", "b"]}
    assert state["checkpoint"]["checkpoint_id"] != checkpoints[0]["id"]  # a new head
    branch = await client.threads.get_history(thread_id, limit=10)
    assert before_b in [h["checkpoint"]["checkpoint_id"] for h in branch]
    assert (await client.runs.get(thread_id, forked["result"]["run_id"]))["status"] == "success"
    missing = await _command(client, thread_id, "state.fork", checkpoint_id=str(uuid.uuid4()))
    assert missing["type"] == "error", missing
    assert missing["error"] == "no_such_checkpoint"


async def test_run_start_with_input_on_a_waiting_thread_answers_its_interrupt(
    client: LangGraphClient,
):
    """As langgraph-api: LangGraph's RemoteGraph resumes a thread this way."""
    async with client.threads.stream(assistant_id="hitl") as thread:
        await thread.run.start(input={"request": "tag"})
        await _collect(thread.values)
        assert thread.interrupted
    async with client.threads.stream(thread.thread_id, assistant_id="hitl") as again:
        await again.run.start(input="v2")
        async with asyncio.timeout(TIMEOUT):
            output = await again.output
    assert output == {"request": "tag", "decision": "tag: v2"}
    # Input to a thread that waits on nothing starts a run, as before.
    async with client.threads.stream(thread.thread_id, assistant_id="counter") as third:
        await third.run.start(input={"count": 1})
        async with asyncio.timeout(TIMEOUT):
            assert (await third.output)["count"] == 3
