"""Thread features of the Platform's schema: TTL sweeping, supersteps, search `extract`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

SWEEP_MINUTES = 0.005  # 0.3 s between sweeps
SHORT_TTL = 0.01  # 0.6 s


@pytest.fixture(scope="module")
def ttl_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("olg-ttl")
    ttl = {"strategy": "delete", "default_ttl": 60, "sweep_interval_minutes": SWEEP_MINUTES}
    config = write_config(directory, checkpointer={"ttl": ttl})
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def ttl_client(ttl_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(ttl_server.url) as client:
        yield client


async def _gone(client: LangGraphClient, thread_id: str, seconds: float = 10.0) -> bool:
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        try:
            await client.threads.get(thread_id)
        except httpx.HTTPStatusError as err:
            if err.response.status_code == 404:
                return True
            raise
        await asyncio.sleep(0.1)
    return False


async def test_a_thread_with_a_ttl_is_deleted_when_it_expires(ttl_client: LangGraphClient):
    thread = await ttl_client.threads.create(ttl={"ttl": SHORT_TTL, "strategy": "delete"})
    await ttl_client.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    shown = await ttl_client.threads.get(thread["thread_id"], include=["ttl"])
    assert shown["ttl"]["strategy"] == "delete"
    assert shown["ttl"]["ttl_minutes"] == SHORT_TTL
    assert shown["ttl"]["expires_at"] > shown["created_at"]
    assert await _gone(ttl_client, thread["thread_id"])
    runs = await ttl_client.http.client.get(f"/threads/{thread['thread_id']}/runs")
    assert runs.status_code == 404


async def test_keep_latest_prunes_history_and_keeps_the_state(ttl_client: LangGraphClient):
    thread = await ttl_client.threads.create()
    thread_id = thread["thread_id"]
    await ttl_client.runs.wait(thread_id, "counter", input={"count": 0})
    before = await ttl_client.threads.get_history(thread_id, limit=100)
    assert len(before) > 2
    await ttl_client.threads.update(
        thread_id, metadata={}, ttl={"ttl": SHORT_TTL, "strategy": "keep_latest"}
    )
    first_expiry = (await ttl_client.threads.get(thread_id, include=["ttl"]))["ttl"]["expires_at"]
    for _ in range(100):
        history = await ttl_client.threads.get_history(thread_id, limit=100)
        if len(history) == 1:
            break
        await asyncio.sleep(0.1)
    assert len(history) == 1
    assert history[0]["values"] == before[0]["values"] == {"count": 2, "trail": ["a", "b"]}
    # The TTL is set again, so an unused thread keeps being pruned, and never deleted.
    again = (await ttl_client.threads.get(thread_id, include=["ttl"]))["ttl"]
    assert again["strategy"] == "keep_latest" and again["expires_at"] > first_expiry


async def test_the_config_default_ttl_applies_to_new_threads_only_when_none_is_given(
    ttl_client: LangGraphClient,
):
    plain = await ttl_client.threads.create()
    ttl = (await ttl_client.threads.get(plain["thread_id"], include=["ttl"]))["ttl"]
    assert (ttl["ttl_minutes"], ttl["strategy"]) == (60, "delete")
    by_minutes = await ttl_client.threads.create(ttl=30)
    ttl = (await ttl_client.threads.get(by_minutes["thread_id"], include=["ttl"]))["ttl"]
    assert (ttl["ttl_minutes"], ttl["strategy"]) == (30, "delete")
    # Threads a run creates (`if_not_exists="create"`) get the default too.
    thread_id = str(uuid.uuid4())
    await ttl_client.runs.wait(thread_id, "counter", input={"count": 0}, if_not_exists="create")
    made = (await ttl_client.threads.get(thread_id, include=["ttl"]))["ttl"]
    assert made["ttl_minutes"] == 60


async def test_a_busy_thread_is_swept_only_after_its_run(ttl_client: LangGraphClient):
    thread = await ttl_client.threads.create(ttl={"ttl": SHORT_TTL})
    run = await ttl_client.runs.create(
        thread["thread_id"], "slow", input={"seconds": 0, "label": "busy", "hold": True}
    )
    # A thread expiring no sooner than the busy one: once a sweep has taken it, a sweep has
    # also seen the busy thread expired, and left it alone.
    witness = await ttl_client.threads.create(ttl={"ttl": SHORT_TTL})
    assert await _gone(ttl_client, witness["thread_id"])
    assert (await ttl_client.threads.get(thread["thread_id"]))["status"] == "busy"
    await ttl_client.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
    assert await _gone(ttl_client, thread["thread_id"])


async def test_threads_without_a_ttl_show_none(client: LangGraphClient):
    thread = await client.threads.create()
    assert (await client.threads.get(thread["thread_id"], include=["ttl"]))["ttl"] is None
    assert "ttl" not in await client.threads.get(thread["thread_id"])


@pytest.mark.parametrize(
    "ttl",
    [0, -1, {"ttl": 0}, {"ttl": 5, "strategy": "forever"}, {"strategy": "delete"}, 1e12, "x"],
)
async def test_bad_ttls_are_refused_with_a_reason(server: ServerProcess, ttl):
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post("/threads", json={"ttl": ttl})
    assert response.status_code == 422, response.text
    assert "ttl" in response.json()["detail"]


# -- supersteps ---------------------------------------------------------------------------
async def test_supersteps_rebuild_a_thread_that_runs_on_from_there(client: LangGraphClient):
    thread = await client.threads.create(
        graph_id="counter",
        supersteps=[
            {"updates": [{"values": {"count": 5}, "as_node": "__input__"}]},
            {"updates": [{"values": {"count": 6, "trail": ["a"]}, "as_node": "a"}]},
        ],
    )
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"] == {"count": 6, "trail": ["a"]}
    assert state["next"] == ["b"]
    assert thread["values"] == {"count": 6, "trail": ["a"]}
    assert thread["metadata"]["graph_id"] == "counter"
    assert len(await client.threads.get_history(thread["thread_id"])) >= 2
    # The copied thread goes on exactly where the original would have.
    result = await client.runs.wait(thread["thread_id"], "counter", input=None)
    assert result == {"count": 7, "trail": ["a", "b"]}


async def test_supersteps_need_a_served_graph_and_fail_whole(
    client: LangGraphClient, server: ServerProcess
):
    async with httpx.AsyncClient(base_url=server.url) as http:
        no_graph = await http.post(
            "/threads", json={"supersteps": [{"updates": [{"values": {}, "as_node": "a"}]}]}
        )
        assert no_graph.status_code == 422 and "graph_id" in no_graph.json()["detail"]
        thread_id = str(uuid.uuid4())
        bad_node = await http.post(
            "/threads",
            json={
                "thread_id": thread_id,
                "metadata": {"graph_id": "counter"},
                "supersteps": [{"updates": [{"values": {"count": 1}, "as_node": "nope"}]}],
            },
        )
        assert bad_node.status_code == 400 and "supersteps" in bad_node.json()["detail"]
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.get(thread_id)
    assert err.value.response.status_code == 404


async def test_supersteps_never_rewrite_an_existing_thread(client: LangGraphClient):
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    again = await client.threads.create(
        thread_id=thread["thread_id"],
        if_exists="do_nothing",
        graph_id="counter",
        supersteps=[{"updates": [{"values": {"count": 9}, "as_node": "__input__"}]}],
    )
    assert again["thread_id"] == thread["thread_id"]
    assert (await client.threads.get_state(thread["thread_id"]))["values"] == {}


# -- extract ------------------------------------------------------------------------------
async def test_search_extract_picks_values_out_of_each_thread(client: LangGraphClient):
    tag = str(uuid.uuid4())
    thread = await client.threads.create(metadata={"tag": tag})
    await client.runs.wait(thread["thread_id"], "counter", input={"count": 40})
    found = await client.threads.search(
        metadata={"tag": tag},
        extract={
            "last_step": "values.trail[-1]",
            "count": "values.count",
            "graph": "metadata.graph_id",
            "missing": "values.trail[7].x",
        },
        select=["thread_id"],
    )
    assert found == [
        {
            "thread_id": thread["thread_id"],
            "extracted": {"last_step": "b", "count": 42, "graph": "counter", "missing": None},
        }
    ]


@pytest.mark.parametrize(
    "extract",
    [
        {"x": "state.count"},
        {"x": "values..count"},
        {"x": "values[abc]"},
        {str(i): "values" for i in range(11)},
    ],
)
async def test_bad_extract_paths_are_refused(server: ServerProcess, extract):
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post("/threads/search", json={"extract": extract})
    assert response.status_code == 422, response.text
    assert "extract" in response.json()["detail"]
