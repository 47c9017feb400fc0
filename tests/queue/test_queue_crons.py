"""Crons in a deployment of several API processes on one PostgreSQL database: each runs a
scheduler, and a due time still fires once between them. Real processes (three
`olg serve --api-only` and a worker, tests/fixtures/queue_cluster.py), one real minute."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from tests.fixtures.queue_cluster import queue_cluster

pytestmark = pytest.mark.timeout(300)

#: Up to a minute until the next `* * * * *` time, plus the run itself.
FIRING_TIMEOUT = 90.0


async def test_three_api_processes_fire_a_due_cron_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every scheduler looks each second: three of them race for each due time.
    monkeypatch.setenv("OLG_CRON_POLL_SECONDS", "1")
    with queue_cluster(tmp_path, apis=3, workers=1) as cluster:
        clients = [get_client(url=api.url) for api in cluster.apis]
        first = clients[0]
        thread_id = (await first.threads.create())["thread_id"]
        on_thread = await first.crons.create_for_thread(
            thread_id, "counter", schedule="* * * * *", input={"count": 0}
        )
        keep = await first.crons.create(
            "counter", schedule="* * * * *", input={"count": 0}, on_run_completed="keep"
        )
        due = datetime.fromisoformat(on_thread["next_run_date"])
        deadline = time.monotonic() + FIRING_TIMEOUT
        while not await first.runs.list(thread_id):
            assert time.monotonic() < deadline, f"no firing by {due}"
            await asyncio.sleep(0.5)
        # The other schedulers have looked several times since: still one run each.
        await asyncio.sleep(4)
        assert datetime.now(UTC) < due.replace(second=59), "too slow to tell one minute's runs"
        runs = await first.runs.list(thread_id)
        assert len(runs) == 1, runs
        fired = [
            t["thread_id"]
            for t in await first.threads.search(limit=100)
            if t["thread_id"] != thread_id
        ]
        assert len(fired) == 1, fired
        for client in clients:  # every process sees the claim
            cron = await client.http.get(f"/runs/crons/{on_thread['cron_id']}")
            assert datetime.fromisoformat(cron["next_run_date"]) > due
        for cron_id in (on_thread["cron_id"], keep["cron_id"]):
            await first.crons.delete(cron_id)
        for client in clients:
            await client.http.client.aclose()
