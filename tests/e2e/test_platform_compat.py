"""Calls written for LangGraph Platform that must work here unchanged: ServerRuntime graph
factories, the newest SDK's run fields, `GET /assistants` and `after_event_id` resumption."""

from __future__ import annotations

import uuid

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("graph_id", ["runtime_last", "runtime_first", "in_context"])
async def test_server_runtime_factories_serve_drawings_schemas_and_subgraphs(
    client: LangGraphClient, graph_id: str
):
    drawing = await client.assistants.get_graph(graph_id)
    assert {node["id"] for node in drawing["nodes"]} >= {"__start__", "tag"}
    schemas = await client.assistants.get_schemas(graph_id)
    assert schemas["graph_id"] == graph_id
    assert "greeting" in schemas["context_schema"]["properties"]
    assert await client.assistants.get_subgraphs(graph_id) == {}


async def test_a_two_argument_factory_runs_with_the_execution_runtime_and_its_context(
    client: LangGraphClient,
):
    thread = await client.threads.create()
    result = await client.runs.wait(
        thread["thread_id"], "runtime_last", input={"name": "ada"}, context={"greeting": "hi"}
    )
    # The factory saw `threads.create_run` with the run's context; the node saw it too.
    assert result["text"] == "runtime-last-threads.create_run-hi:ada:hi"
    # Reading the state builds the graph again, for `threads.read`, with no execution runtime.
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["text"] == result["text"]


async def test_runtime_first_factories_and_context_manager_factories_run(
    client: LangGraphClient,
):
    first = await client.runs.wait(None, "runtime_first", input={"name": "bo"})
    assert first["text"] == "runtime-first-threads.create_run:bo:hello"
    managed = await client.runs.wait(None, "in_context", input={"name": "cy"})
    assert managed["text"] == "context:cy:hello"


async def test_a_factory_builds_its_real_graph_only_for_a_run(client: LangGraphClient):
    """`__is_for_execution__` is True exactly when the graph is built to execute a run."""
    drawing = await client.assistants.get_graph("for_execution")
    assert "placeholder" in {node["id"] for node in drawing["nodes"]}
    thread = await client.threads.create()
    result = await client.runs.wait(thread["thread_id"], "for_execution", input={"name": "ann"})
    assert result["text"] == "built for a run:ann"
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["text"] == "built for a run:ann"


async def test_state_edit_on_a_factory_graph_uses_the_update_access(client: LangGraphClient):
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "runtime_first", input={"name": "di"})
    await client.threads.update_state(thread["thread_id"], {"name": "eve"}, as_node="tag")
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["name"] == "eve"


async def test_newest_sdk_wait_with_every_optional_field(client: LangGraphClient):
    """`runs.wait` of the newest langgraph-sdk with the fields it knows; none is refused."""
    thread = await client.threads.create()
    result = await client.runs.wait(
        thread["thread_id"],
        "counter",
        input={"count": 1},
        metadata={"source": "compat"},
        config={"tags": ["compat"]},
        durability="sync",
        strict_resume=False,
        on_disconnect="cancel",
        multitask_strategy="enqueue",
        if_not_exists="reject",
        raise_error=True,
    )
    assert result["count"] == 3
    failed = await client.runs.wait(None, "failing", input={}, raise_error=False)
    assert failed["__error__"]["error"] == "ValueError"
    with pytest.raises(Exception, match="ValueError"):
        await client.runs.wait(None, "failing", input={})


async def test_fields_of_the_platform_schema_and_unknown_fields_are_accepted(
    server: ServerProcess,
):
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post(
            "/runs/wait",
            json={
                "assistant_id": "counter",
                "input": {"count": 0},
                "feedback_keys": ["correctness"],
                "langsmith_tracer": {"project_name": "p"},
                "a_field_from_a_future_sdk": {"x": 1},
            },
        )
        assert response.status_code == 200, response.text
        assert response.json()["count"] == 2


async def test_get_assistants_lists_them_in_a_data_envelope(
    client: LangGraphClient, server: ServerProcess
):
    made = await client.assistants.create("chat", name=f"listed-{uuid.uuid4()}")
    async with httpx.AsyncClient(base_url=server.url) as http:
        page = (await http.get("/assistants", params={"limit": 1000})).json()
        assert made["assistant_id"] in {a["assistant_id"] for a in page["data"]}
        only_chat = (await http.get("/assistants", params={"graph_id": "chat"})).json()["data"]
        assert only_chat and {a["graph_id"] for a in only_chat} == {"chat"}
        first_two = (await http.get("/assistants", params={"limit": 2})).json()["data"]
        next_two = (await http.get("/assistants", params={"limit": 2, "offset": 2})).json()
        assert len(first_two) == 2
        assert not {a["assistant_id"] for a in first_two} & {
            a["assistant_id"] for a in next_two["data"]
        }
        bad = await http.get("/assistants", params={"limit": 0})
        assert bad.status_code == 422 and "limit" in bad.json()["detail"]


def _sse_ids(body: str) -> list[str]:
    return [line.removeprefix("id: ") for line in body.splitlines() if line.startswith("id: ")]


async def test_after_event_id_query_replays_like_last_event_id(
    client: LangGraphClient, server: ServerProcess
):
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"], "counter", input={"count": 0}, stream_mode=["values", "updates"]
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    path = f"/threads/{thread['thread_id']}/runs/{run['run_id']}/stream"
    async with httpx.AsyncClient(base_url=server.url) as http:
        everything = _sse_ids((await http.get(path, params={"after_event_id": "-1"})).text)
        assert everything == [str(i) for i in range(len(everything))] and len(everything) > 3
        by_query = await http.get(path, params={"after_event_id": everything[1]})
        by_header = await http.get(path, headers={"Last-Event-ID": everything[1]})
        assert _sse_ids(by_query.text) == _sse_ids(by_header.text) == everything[2:]
        assert (await http.get(path)).text == ""  # nothing without a resume point: live only
        bad = await http.get(path, params={"after_event_id": "soon"})
        assert bad.status_code == 422

        # The thread stream takes the same parameter.
        thread_path = f"/threads/{thread['thread_id']}/stream"
        async with http.stream("GET", thread_path, params={"after_event_id": "x:3"}) as bad_t:
            assert bad_t.status_code == 422
