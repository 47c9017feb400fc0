"""The store in a queue-mode deployment of separate processes: runs executed by an
`olg worker` (the API process is `--api-only`) read and write the same store the API serves
under `/store`."""

from __future__ import annotations

import uuid
from pathlib import Path

from langgraph_sdk import get_client

from tests.fixtures.queue_cluster import queue_cluster
from tests.fixtures.server import TEST_GRAPHS

STORE_GRAPHS = {**TEST_GRAPHS, "memory": "tests.fixtures.store_graphs:memory"}


async def test_a_worker_process_runs_graphs_on_the_apis_store(tmp_path: Path) -> None:
    store = {"ttl": {"default_ttl": 60, "sweep_interval_minutes": 1}}
    with queue_cluster(tmp_path, apis=1, workers=1, graphs=STORE_GRAPHS, store=store) as cluster:
        client = get_client(url=cluster.apis[0].url)
        user = f"u-{uuid.uuid4().hex[:8]}"
        await client.store.put_item(["memories", user], key="seed", value={"text": "from api"})
        values = await client.runs.wait(None, "memory", input={"user": user, "text": "worker"})
        assert values["remembered"] == ["from api", "worker"]
        assert values["seen_by_parameter"] == values["seen_by_get_store"] == 2
        found = await client.store.search_items(["memories", user])
        assert sorted(item["value"]["text"] for item in found["items"]) == ["from api", "worker"]
        await client.http.client.aclose()
