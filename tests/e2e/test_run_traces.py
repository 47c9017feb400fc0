"""A run's trace (`GET /threads/{thread_id}/runs/{run_id}/trace`) from a live server: the
nodes, model calls and tool calls of the project's `react_agent` on a scripted model that
reports token usage, a subgraph's nodes under the node that ran it, a failed node, an
interrupt, a run still executing, and another user's run as missing as an unknown one."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import NotFoundError

from tests.fixtures.scripted_react import MODEL_NAME, USAGE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, write_config

pytestmark = pytest.mark.e2e

QUESTION = {"messages": [{"role": "user", "content": "What is 6 * 7?"}]}


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("run-traces")
    config = write_config(
        directory,
        graphs={**TEST_GRAPHS, "react_agent": "tests.fixtures.scripted_react:graph"},
        auth={"path": "tests.fixtures.auth_api_key:auth"},
    )
    with ServerProcess(config, directory / "olg.db", directory / "server.log") as process:
        yield process


async def _trace(client: LangGraphClient, thread_id: str, run_id: str) -> dict[str, Any]:
    return await client.http.get(f"/threads/{thread_id}/runs/{run_id}/trace")


async def _finished_run(client: LangGraphClient, graph: str, payload: Any) -> tuple[str, str]:
    thread = await client.threads.create()
    run = await client.runs.create(thread["thread_id"], graph, input=payload)
    await client.runs.join(thread["thread_id"], run["run_id"])
    return thread["thread_id"], run["run_id"]


def _by_kind(trace: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [span for span in trace["spans"] if span["kind"] == kind]


async def test_a_react_run_traces_its_nodes_model_calls_with_tokens_and_its_tool_call(
    traced: ServerProcess,
):
    async with sdk_client(traced.url, api_key="key-a") as client:
        thread_id, run_id = await _finished_run(client, "react_agent", QUESTION)
        trace = await _trace(client, thread_id, run_id)

    assert (trace["run_id"], trace["status"], trace["complete"]) == (run_id, "success", True)
    nodes = _by_kind(trace, "node")
    assert [n["name"] for n in nodes] == ["model", "tools", "model"]
    assert [n["step"] for n in nodes] == [1, 2, 3]
    models = _by_kind(trace, "model")
    assert len(models) == 2
    for call, node in zip(models, (nodes[0], nodes[2]), strict=True):
        assert call["name"] == MODEL_NAME
        assert call["parent"] == node["id"]
        assert call["tokens"] == {
            "input": USAGE["input_tokens"],
            "output": USAGE["output_tokens"],
            "cached": 0,
        }
        assert node["start_ms"] <= call["start_ms"] <= call["end_ms"] <= node["end_ms"]
        assert call["status"] == "success"
    first_prompt = models[0]["prompt"]["messages"]
    assert first_prompt[-1] == {"type": "human", "content": "What is 6 * 7?"}
    assert models[0]["reply"]["tool_calls"] == [
        {"name": "calculator", "args": {"expression": "6 * 7"}}
    ]
    assert models[1]["reply"]["content"] == "The answer is 42."
    [tool] = _by_kind(trace, "tool")
    assert (tool["name"], tool["args"], tool["result"]) == (
        "calculator",
        {"expression": "6 * 7"},
        "42",
    )
    assert tool["parent"] == nodes[1]["id"]
    assert tool["end_ms"] >= tool["start_ms"]
    assert trace["duration_ms"] >= nodes[-1]["end_ms"]


async def test_subgraph_nodes_hang_off_the_node_that_ran_them(traced: ServerProcess):
    async with sdk_client(traced.url, api_key="key-a") as client:
        thread_id, run_id = await _finished_run(client, "nested", {})
        trace = await _trace(client, thread_id, run_id)
    nodes = {n["name"]: n for n in _by_kind(trace, "node")}
    assert set(nodes) == {"prepare", "inner", "a", "b"}
    assert nodes["prepare"]["parent"] is None and nodes["inner"]["parent"] is None
    assert nodes["a"]["parent"] == nodes["b"]["parent"] == nodes["inner"]["id"]


async def test_a_failed_node_and_an_interrupted_one_say_so(traced: ServerProcess):
    async with sdk_client(traced.url, api_key="key-a") as client:
        thread_id, run_id = await _finished_run(client, "failing", {})
        failed = await _trace(client, thread_id, run_id)
        thread_id, run_id = await _finished_run(client, "hitl", {"request": "deploy"})
        stopped = await _trace(client, thread_id, run_id)

    [explode] = _by_kind(failed, "node")
    assert failed["status"] == "error"
    assert explode["status"] == "error"
    assert explode["error"] == {
        "error": "ValueError",
        "message": "the failing node failed on purpose",
    }
    [ask] = _by_kind(stopped, "node")
    # The run ended as it should, at an interrupt (`success`, as on the Platform); its node
    # is the one that stopped.
    assert (stopped["status"], ask["status"]) == ("success", "interrupted")


async def test_a_running_run_shows_its_trace_so_far(traced: ServerProcess):
    async with sdk_client(traced.url, api_key="key-a") as client:
        thread = await client.threads.create()
        run = await client.runs.create(
            thread["thread_id"], "slow", input={"seconds": 0.05, "hold": True}
        )
        for _ in range(200):
            trace = await _trace(client, thread["thread_id"], run["run_id"])
            if len(trace["spans"]) == 2:
                break
            await asyncio.sleep(0.05)
        await client.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
        ended = await _trace(client, thread["thread_id"], run["run_id"])

    assert (trace["status"], trace["complete"]) == ("running", False)
    first, second = trace["spans"]
    assert (first["name"], first["status"]) == ("first", "success")
    assert (second["name"], second["status"], second["end_ms"]) == ("second", "running", None)
    assert ended["complete"] is True
    assert ended["status"] == "interrupted"


async def test_another_users_run_trace_is_not_found(traced: ServerProcess):
    async with sdk_client(traced.url, api_key="key-a") as owner:
        thread_id, run_id = await _finished_run(owner, "react_agent", QUESTION)
    async with sdk_client(traced.url, api_key="key-b") as other:
        with pytest.raises(NotFoundError):
            await _trace(other, thread_id, run_id)
    async with sdk_client(traced.url, api_key="key-a") as owner:
        with pytest.raises(NotFoundError):
            await _trace(owner, thread_id, str(uuid.uuid4()))
        other_thread = await owner.threads.create()
        with pytest.raises(NotFoundError):
            await _trace(owner, other_thread["thread_id"], run_id)


async def test_the_trace_outlives_a_restart_and_goes_with_its_thread(
    tmp_path: Path,
):
    config = write_config(tmp_path, graphs={"react_agent": "tests.fixtures.scripted_react:graph"})
    process = ServerProcess(config, tmp_path / "olg.db", tmp_path / "server.log")
    with process:
        async with sdk_client(process.url) as client:
            thread_id, run_id = await _finished_run(client, "react_agent", QUESTION)
            before = await _trace(client, thread_id, run_id)
        process.stop()
        process.start()
        async with sdk_client(process.url) as client:
            after = await _trace(client, thread_id, run_id)
            await client.threads.delete(thread_id)
            with pytest.raises(NotFoundError):
                await _trace(client, thread_id, run_id)
    assert len(before["spans"]) == 6
    assert after == before
