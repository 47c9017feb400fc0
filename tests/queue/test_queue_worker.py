"""A queue worker keeps the runs it holds while a model load freezes its process, and only
then: once the load is over, its leases are the usual length again, so that a worker dying
later is replaced as fast as any other."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import psycopg

from open_langgraph.config import load_config
from open_langgraph.models.local.runner import announced_load
from open_langgraph.runtime.bus_redis import RedisBus
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.queue_worker import QueueWorker
from open_langgraph.storage.base import ThreadUpdate
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.postgres.queue import PostgresRunQueue
from tests.fixtures.backend import REDIS_URL
from tests.fixtures.postgres import fresh_database
from tests.fixtures.queued_runs import pending_run
from tests.fixtures.server import write_config


def _lease_left(url: str, run_id: str) -> float:
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(
            "SELECT EXTRACT(EPOCH FROM lease_expires_at - now()) FROM runs WHERE run_id = %s",
            (run_id,),
        ).fetchone()
    assert row is not None and row[0] is not None
    return float(row[0])


async def test_leases_are_extended_for_a_model_load_and_no_longer(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path))
    graphs = GraphRegistry(config)
    with fresh_database() as url:
        async with PostgresStorage.from_url(url) as storage:
            graphs.bind(storage.checkpointer)
            queue = PostgresRunQueue(storage.pool, storage.relaxed_pool)
            bus = RedisBus(REDIS_URL, f"olg-test-{uuid.uuid4().hex}:")
            await bus.start()
            run = await pending_run(storage, "slow", {"seconds": 30})
            run_id = run["run_id"]
            await queue.enqueue(run, ThreadUpdate(status="busy"), "enqueue", 0)
            worker = QueueWorker(
                storage, queue, bus, graphs, lease_seconds=2.0, poll_seconds=0.1, grace_seconds=0
            )
            await worker.start()
            try:
                for _ in range(100):
                    if worker.manager.handle(run_id) is not None:
                        break
                    await asyncio.sleep(0.05)
                assert _lease_left(url, run_id) <= 2.5
                loaded = asyncio.Event()
                unloaded = asyncio.Event()
                loop = asyncio.get_running_loop()

                def load() -> None:
                    # What the embedded model's loader does around the load that holds the
                    # interpreter; here the "load" lasts until the test lets it end.
                    with announced_load(60):
                        loop.call_soon_threadsafe(loaded.set)
                        asyncio.run_coroutine_threadsafe(unloaded.wait(), loop).result()

                loading = asyncio.create_task(asyncio.to_thread(load))
                await loaded.wait()
                assert _lease_left(url, run_id) > 55
                # Renewals during the load keep the longer lease rather than shortening it.
                await asyncio.sleep(1.5)
                assert _lease_left(url, run_id) > 55
                unloaded.set()
                await loading
                # After it, the next renewal brings the lease back to its usual length.
                for _ in range(40):
                    if _lease_left(url, run_id) <= 2.5:
                        break
                    await asyncio.sleep(0.1)
                assert _lease_left(url, run_id) <= 2.5
            finally:
                await worker.stop()
                await bus.close()
