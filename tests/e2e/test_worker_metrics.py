"""`olg worker --metrics-port`: a worker started apart from the API (its own container, as in
compose.yaml) serves the metrics of the runs it executed, which the API's `/metrics` never
sees. Real processes: an `olg serve --api-only`, an `olg worker`, PostgreSQL and Redis; the
scrape is parsed with prometheus-client's parser."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.metrics_scrape import names, scrape, value
from tests.fixtures.queue_cluster import Member, QueueCluster, queue_cluster
from tests.fixtures.scripted_react import MODEL_NAME, USAGE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, free_port, write_config

pytestmark = pytest.mark.e2e

GRAPHS = {**TEST_GRAPHS, "react_agent": "tests.fixtures.scripted_react:graph"}
QUESTION = {"messages": [{"role": "user", "content": "What is 6 * 7?"}]}
KEY = {"x-api-key": "key-a"}


class Deployment:
    def __init__(self, cluster: QueueCluster, api: Member, worker: Member, metrics_url: str):
        self.cluster = cluster
        self.api = api
        self.worker = worker
        self.metrics_url = metrics_url


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """An API that executes nothing and one worker with its metrics on a port of its own,
    both behind the config's auth."""
    directory = tmp_path_factory.mktemp("worker-metrics")
    auth = {"path": "tests.fixtures.auth_api_key:auth"}
    with queue_cluster(directory, apis=1, workers=0, graphs=GRAPHS, auth=auth) as cluster:
        port = free_port()
        worker = cluster.add_worker("--metrics-port", str(port), "--metrics-host", "127.0.0.1")
        worker.wait_ready()
        yield Deployment(cluster, cluster.apis[0], worker, f"http://127.0.0.1:{port}")


async def _run(url: str, graph: str) -> None:
    async with sdk_client(url, api_key="key-a") as client:
        thread = await client.threads.create()
        await client.runs.wait(thread["thread_id"], graph, input=QUESTION, raise_error=False)


async def test_the_worker_serves_the_metrics_of_its_runs(deployment: Deployment) -> None:
    before = scrape(deployment.metrics_url, KEY)
    await _run(deployment.api.url, "react_agent")
    await _run(deployment.api.url, "failing")
    after = scrape(deployment.metrics_url, KEY)
    api = scrape(deployment.api.url, KEY)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    success = {"graph_id": "react_agent", "status": "success"}
    assert moved("olg_runs_total", **success) == 1
    assert moved("olg_runs_total", graph_id="failing", status="error") == 1
    assert moved("olg_run_duration_seconds_count", **success) == 1
    assert moved("olg_run_duration_seconds_sum", **success) > 0
    assert moved("olg_run_queue_wait_seconds_count", graph_id="react_agent") == 1
    # Two model calls (the tool call, then the answer), each with its usage and its seconds.
    tokens = {"model": MODEL_NAME}
    assert moved("olg_model_tokens_total", **tokens, kind="input") == 2 * USAGE["input_tokens"]
    assert moved("olg_model_tokens_total", **tokens, kind="output") == 2 * USAGE["output_tokens"]
    assert moved("olg_model_call_duration_seconds_count", **tokens) == 2
    assert moved("olg_model_call_duration_seconds_sum", **tokens) > 0
    assert value(after, "olg_runs_executing") == 0
    # The queue depth is the API's to report (from the database): one source, never summed
    # twice. And the API, which executed nothing, counted no run: hence this port.
    assert "olg_runs_in_flight" not in names(after)
    assert value(api, "olg_runs_in_flight", status="pending") == 0
    assert value(api, "olg_runs_total", **success) == 0
    assert value(api, "olg_model_tokens_total", **tokens, kind="output") == 0


async def test_the_worker_port_honours_auth_and_serves_metrics_and_probes(
    deployment: Deployment,
) -> None:
    async with httpx.AsyncClient(base_url=deployment.metrics_url) as http:
        anonymous = await http.get("/metrics")
        wrong_key = await http.get("/metrics", headers={"x-api-key": "nope"})
        as_json = await http.get("/metrics", params={"format": "json"}, headers=KEY)
        bad_format = await http.get("/metrics", params={"format": "xml"}, headers=KEY)
        elsewhere = await http.get("/threads", headers=KEY)
        posted = await http.post("/metrics", headers=KEY)
        rebound = await http.get("/metrics", headers={**KEY, "host": "evil.example"})
        # The probes' routes need no key (deploy/kubernetes): alive, and its PostgreSQL and
        # Redis answer.
        alive = await http.get("/ok")
        ready = await http.get("/ok", params={"check_db": 1})
    assert anonymous.status_code == 401 and anonymous.json()["detail"]
    assert wrong_key.status_code == 401
    assert as_json.status_code == 200
    assert "olg_model_call_duration_seconds_count" in as_json.json()
    assert bad_format.status_code == 422 and "format" in bad_format.json()["detail"]
    assert elsewhere.status_code == 404 and elsewhere.json()["detail"]
    assert posted.status_code == 405 and posted.json()["detail"]
    # A loopback bind answers loopback names only (DNS rebinding), as the API does.
    assert rebound.status_code == 403
    assert alive.status_code == 200 and alive.json() == {"ok": True}
    assert ready.status_code == 200, ready.text
    assert ready.json()["services"] == {"database": "healthy", "redis": "healthy"}


def _worker(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`olg worker` with settings that pass validation; it must exit before connecting."""
    config = write_config(directory)
    return subprocess.run(
        [
            *(sys.executable, "-m", "open_langgraph.cli", "worker", "--config", str(config)),
            *("--database-url", "postgresql://127.0.0.1:1/none"),
            *("--redis-url", "redis://127.0.0.1:1/0", *args),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_metrics_port_in_use_or_invalid_is_refused(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        busy = _worker(tmp_path, "--metrics-port", str(port), "--metrics-host", "127.0.0.1")
    assert busy.returncode == 2
    assert f"cannot serve metrics on 127.0.0.1:{port}" in busy.stderr
    assert "Traceback" not in busy.stderr
    for wrong in ("0", "70000", "nine"):
        refused = _worker(tmp_path, "--metrics-port", wrong)
        assert refused.returncode == 2
        assert "--metrics-port" in refused.stderr and "Traceback" not in refused.stderr
