"""Answers that clients read, as langgraph-api 0.16 gives them (each found by sending the same
calls to `langgraph dev` and to us): `configurable` and `context` kept in step, the
`config_schema` Studio builds its form from, the `debug` stream's checkpoint fields, the root
run's name in `events` streams, and the thread a failed run leaves behind."""

from __future__ import annotations

import itertools

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e


async def test_a_runs_configurable_reaches_the_graphs_context(client: LangGraphClient):
    """Older SDKs and Studio send `config.configurable`; a graph reading `Runtime.context`
    sees it. Sent as `context`, the values are in the run's configurable too."""
    by_config = await client.runs.wait(
        None, "greeter", input={"name": "ada"}, config={"configurable": {"greeting": "hey"}}
    )
    assert by_config["text"] == "hey ada."
    thread = await client.threads.create()
    by_context = await client.runs.wait(
        thread["thread_id"], "greeter", input={"name": "bo"}, context={"punctuation": "!"}
    )
    assert by_context["text"] == "hello bo!"
    [run] = await client.runs.list(thread["thread_id"])
    assert run["kwargs"]["config"]["configurable"]["punctuation"] == "!"


async def test_configurable_and_context_together_are_refused(client: LangGraphClient):
    thread = await client.threads.create()
    for send in (
        lambda: client.runs.wait(
            thread["thread_id"],
            "greeter",
            input={},
            config={"configurable": {"greeting": "a"}},
            context={"greeting": "b"},
        ),
        lambda: client.assistants.create(
            "greeter", config={"configurable": {"greeting": "a"}}, context={"greeting": "b"}
        ),
    ):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await send()
        assert refused.value.response.status_code == 400
        assert "configurable and context" in refused.value.response.json()["detail"]
    # Refused before anything was stored: the thread has no run.
    assert await client.runs.list(thread["thread_id"]) == []


async def test_an_assistant_keeps_its_configurable_and_context_in_step(client: LangGraphClient):
    by_context = await client.assistants.create("greeter", context={"greeting": "hi"})
    assert by_context["config"]["configurable"] == {"greeting": "hi"}
    assert by_context["context"] == {"greeting": "hi"}
    by_config = await client.assistants.create(
        "greeter", config={"configurable": {"greeting": "yo"}}
    )
    assert by_config["context"] == {"greeting": "yo"}
    patched = await client.assistants.update(
        by_config["assistant_id"], context={"punctuation": "?"}
    )
    assert patched["config"]["configurable"] == patched["context"] == {"punctuation": "?"}
    result = await client.runs.wait(None, patched["assistant_id"], input={"name": "cy"})
    assert result["text"] == "hello cy?"


async def test_config_schema_is_the_configurable_part_alone(client: LangGraphClient):
    with_context = await client.assistants.get_schemas("greeter")
    assert set(with_context["config_schema"]["properties"]) == {"greeting", "punctuation"}
    assert with_context["config_schema"]["title"] == "GreetingContext"
    assert (await client.assistants.get_schemas("counter"))["config_schema"] == {}


async def test_state_schema_has_every_channel_and_none_required(client: LangGraphClient):
    """As the Platform builds it, from the channels: a state edit may set any one of them."""
    state = (await client.assistants.get_schemas("counter"))["state_schema"]
    assert set(state["properties"]) == {"count", "trail"}
    assert "required" not in state
    assert all(field.get("default", "absent") is None for field in state["properties"].values())


async def test_debug_checkpoints_name_their_checkpoint_and_its_parent(client: LangGraphClient):
    thread = await client.threads.create()
    checkpoints = [
        part.data["payload"]
        async for part in client.runs.stream(
            thread["thread_id"], "counter", input={"count": 0}, stream_mode="debug"
        )
        if part.event == "debug" and part.data["type"] == "checkpoint"
    ]
    assert len(checkpoints) >= 3
    for payload in checkpoints:
        assert payload["checkpoint"]["thread_id"] == thread["thread_id"]
        assert (
            payload["checkpoint"]["checkpoint_id"]
            == (payload["config"]["configurable"]["checkpoint_id"])
        )
    assert checkpoints[0]["parent_checkpoint"] is None
    for parent, child in itertools.pairwise(checkpoints):
        assert child["parent_checkpoint"]["checkpoint_id"] == parent["checkpoint"]["checkpoint_id"]
    history = await client.threads.get_history(thread["thread_id"])
    assert checkpoints[-1]["checkpoint"]["checkpoint_id"] == history[0]["checkpoint_id"]


async def test_the_root_run_of_an_events_stream_is_named_after_the_graph(
    client: LangGraphClient,
):
    events = [
        part.data
        async for part in client.runs.stream(
            None, "counter", input={"count": 0}, stream_mode="events"
        )
        if part.event == "events"
    ]
    roots = [e for e in events if e["event"] in ("on_chain_start", "on_chain_end")]
    assert roots[0]["name"] == roots[-1]["name"] == "counter"


async def test_a_failed_first_run_leaves_its_input_in_the_thread(client: LangGraphClient):
    """Thread lists preview `thread.values`: a first run that fails still shows what it was
    asked, as on the Platform, with the error beside it."""
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "failing", input={"count": 5}, raise_error=False)
    stored = await client.threads.get(thread["thread_id"])
    assert stored["status"] == "error"
    assert stored["values"]["count"] == 5
    assert stored["error"]["error"] == "ValueError"


async def test_joining_a_runs_stream_says_where_to_rejoin(
    client: LangGraphClient, server: ServerProcess
):
    """The SDK reconnects a dropped stream at its `Location`, as the Platform sends it."""
    thread = await client.threads.create()
    run = await client.runs.create(thread["thread_id"], "counter", input={"count": 0})
    await client.runs.join(thread["thread_id"], run["run_id"])
    base = f"/threads/{thread['thread_id']}/runs/{run['run_id']}"
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.get(f"{base}/stream", headers={"Last-Event-ID": "-1"})
    assert response.status_code == 200
    assert response.headers["location"] == f"{base}/stream"
    assert response.headers["content-location"] == base


async def test_a_runs_checkpoints_carry_the_platforms_run_keys(client: LangGraphClient):
    """What langgraph-api adds to a run's config and LangGraph copies into each checkpoint's
    metadata: the versions, the host, the request and the user (empty without auth); a
    `user_id` the client sets wins, as memory templates that key memories by it need."""
    import langgraph.version

    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    metadata = (await client.threads.get_state(thread["thread_id"]))["metadata"]
    assert metadata["langgraph_version"] == langgraph.version.__version__
    assert metadata["langgraph_api_version"] == "0.16.7"
    assert metadata["langgraph_host"] == "self-hosted"
    assert (metadata["user_id"], metadata["langgraph_auth_user_id"]) == ("", "")
    assert len(metadata["langgraph_request_id"]) == 36
    [run] = await client.runs.list(thread["thread_id"])
    assert "langgraph_version" not in run["metadata"]  # the run's own metadata stays as sent

    other = await client.threads.create()
    await client.runs.wait(
        other["thread_id"],
        "counter",
        input={"count": 0},
        config={"configurable": {"user_id": "user-7"}},
    )
    mine = (await client.threads.get_state(other["thread_id"]))["metadata"]
    assert mine["user_id"] == "user-7"
    assert mine["langgraph_request_id"] != metadata["langgraph_request_id"]
