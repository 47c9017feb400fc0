"""`GET /metrics` of a live server, scraped before and after runs and parsed with
prometheus-client's own parser: counters and histograms move as the runs did. On the backend
`OLG_TEST_BACKEND` selects (queue mode too), and with `olg serve --workers 2`, whose runs
execute in child processes whose metrics the server adds up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.metrics_scrape import Samples, scrape, value
from tests.fixtures.queue_cluster import Member, queue_cluster
from tests.fixtures.scripted_react import MODEL_NAME, USAGE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, free_port, serving, write_config

pytestmark = pytest.mark.e2e

GRAPHS = {**TEST_GRAPHS, "react_agent": "tests.fixtures.scripted_react:graph"}
QUESTION = {"messages": [{"role": "user", "content": "What is 6 * 7?"}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("metrics")
    with serving(directory, write_config(directory, graphs=GRAPHS)) as process:
        yield process


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


async def _runs(client: LangGraphClient) -> None:
    """One agent run that calls the model twice, one run that fails, one streamed run."""
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "react_agent", input=QUESTION)
    failing = await client.threads.create()
    await client.runs.wait(failing["thread_id"], "failing", input={}, raise_error=False)
    async for _ in client.runs.stream(None, "counter", input={}):
        pass


async def test_counters_and_histograms_move_with_runs(
    served: ServerProcess, client: LangGraphClient
) -> None:
    before = scrape(served.url)
    await _runs(client)
    after = scrape(served.url)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("olg_runs_total", graph_id="react_agent", status="success") == 1
    assert moved("olg_runs_total", graph_id="failing", status="error") == 1
    assert moved("olg_runs_total", graph_id="counter", status="success") == 1
    assert moved("olg_run_duration_seconds_count", graph_id="react_agent", status="success") == 1
    assert moved("olg_run_duration_seconds_sum", graph_id="react_agent", status="success") > 0
    assert moved("olg_run_queue_wait_seconds_count", graph_id="failing") == 1
    # The model was called twice (tool call, then the answer), each reporting its usage.
    assert (
        moved("olg_model_tokens_total", model=MODEL_NAME, kind="input") == 2 * USAGE["input_tokens"]
    )
    assert (
        moved("olg_model_tokens_total", model=MODEL_NAME, kind="output")
        == 2 * USAGE["output_tokens"]
    )
    assert moved("olg_model_call_duration_seconds_count", model=MODEL_NAME) == 2
    # Requests by route template (never the raw path, which holds ids) and status.
    wait = {"method": "POST", "route": "/threads/{thread_id}/runs/wait"}
    assert moved("olg_http_requests_total", **wait, status="200") == 2
    assert moved("olg_http_request_duration_seconds_count", **wait) == 2
    assert moved("olg_http_requests_total", method="POST", route="/runs/stream", status="200") == 1
    assert not any("thread_id=" in str(labels) for _, labels in after)
    # Nothing is left in flight, nor open, once the runs and streams are over.
    assert value(after, "olg_runs_in_flight", status="pending") == 0
    assert value(after, "olg_runs_in_flight", status="running") == 0
    assert value(after, "olg_runs_executing") == 0
    assert value(after, "olg_active_streams") == 0


async def test_open_streams_and_executing_runs_are_gauges(
    served: ServerProcess, client: LangGraphClient
) -> None:
    thread = await client.threads.create()
    run = await client.runs.create(thread["thread_id"], "slow", input={"seconds": 1.0})

    async def follow() -> None:
        async for _ in client.runs.join_stream(thread["thread_id"], run["run_id"]):
            pass

    following = asyncio.create_task(follow())
    seen: Samples = {}
    for _ in range(50):
        seen = await asyncio.to_thread(scrape, served.url)
        if value(seen, "olg_active_streams") >= 1:
            break
        await asyncio.sleep(0.05)
    assert value(seen, "olg_active_streams") >= 1
    assert value(seen, "olg_runs_in_flight", status="running") == 1
    await following
    after = await asyncio.to_thread(scrape, served.url)
    assert value(after, "olg_active_streams") == 0
    assert value(after, "olg_runs_in_flight", status="running") == 0


async def test_json_format_and_bad_format(served: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=served.url) as http:
        as_json = await http.get("/metrics", params={"format": "json"})
        refused = await http.get("/metrics", params={"format": "xml"})
    assert as_json.status_code == 200
    families = as_json.json()
    assert {"olg_http_requests_total", "olg_runs_in_flight"} <= set(families)
    assert refused.status_code == 422
    assert "detail" in refused.json()


async def test_worker_processes_are_added_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`olg serve --workers 2` (queue mode): runs execute in the children, and the server's
    `/metrics` counts them, with the children's HTTP-less metrics summed into its own. An
    `OLG_METRICS_PORT` in the environment is not handed to the children (they would fight
    over the port, and the server adds them up already)."""
    worker_port = free_port()
    monkeypatch.setenv("OLG_METRICS_PORT", str(worker_port))
    with queue_cluster(tmp_path, apis=0, workers=0, graphs=GRAPHS) as cluster:
        port = free_port()
        server = Member(
            [
                "serve",
                "--workers",
                "2",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *cluster._queue_args(),
            ],
            tmp_path / "serve.log",
            port,
        )
        server.start()
        try:
            server.wait_ready()
            async with sdk_client(server.url) as client:
                before = scrape(server.url)
                for _ in range(3):
                    thread = await client.threads.create()
                    await client.runs.wait(thread["thread_id"], "react_agent", input=QUESTION)
            after = scrape(server.url)
            with pytest.raises(httpx.ConnectError):  # no child took the port
                httpx.get(f"http://127.0.0.1:{worker_port}/metrics")
        finally:
            server.stop()
    success = {"graph_id": "react_agent", "status": "success"}
    assert (
        value(after, "olg_runs_total", **success) - value(before, "olg_runs_total", **success) == 3
    )
    tokens = value(after, "olg_model_tokens_total", model=MODEL_NAME, kind="output")
    assert tokens == 3 * 2 * USAGE["output_tokens"]
    assert value(after, "olg_runs_executing") == 0
    assert "cannot serve metrics" not in (tmp_path / "serve.log").read_text()
