"""A waiter learns of its run's end from the bus, on a channel of the run's own, while the
run's thread still carries every event and the end for its followers.

The dispatcher's poll is a minute here: a wait that returned only after re-reading the
database would take that long.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from open_langgraph.config import load_config
from open_langgraph.runtime.bus_redis import RedisBus
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.queue_dispatch import QueueDispatcher
from open_langgraph.runtime.queue_worker import QueueWorker
from open_langgraph.storage.base import ThreadUpdate
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.postgres.queue import PostgresRunQueue
from tests.fixtures.backend import REDIS_URL
from tests.fixtures.postgres import fresh_database
from tests.fixtures.queued_runs import pending_run
from tests.fixtures.server import write_config

pytestmark = pytest.mark.timeout(60)
_QUIET = 60.0


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[tuple[PostgresStorage, QueueDispatcher]]:
    """A worker and a dispatcher in this process, on a database and bus of their own."""
    graphs = GraphRegistry(load_config(write_config(tmp_path)))
    with fresh_database() as url:
        async with PostgresStorage.from_url(url) as storage:
            graphs.bind(storage.checkpointer)
            queue = PostgresRunQueue(storage.pool, storage.relaxed_pool)
            bus = RedisBus(REDIS_URL, f"olg-test-{uuid.uuid4().hex}:")
            await bus.start()
            worker = QueueWorker(storage, queue, bus, graphs, poll_seconds=_QUIET)
            await worker.start()
            try:
                yield storage, QueueDispatcher(storage, queue, bus, poll_seconds=_QUIET)
            finally:
                await worker.stop()
                await bus.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_a_waiter_hears_the_end_and_followers_of_the_thread_too(
    cluster: tuple[PostgresStorage, QueueDispatcher], watch: bool
) -> None:
    storage, dispatcher = cluster
    run = await pending_run(storage, "counter", {"count": 0})
    listener = await dispatcher.attach(run["thread_id"])
    try:
        await dispatcher.start(run, ThreadUpdate(status="busy"), None, watch=watch)
        outcome = await asyncio.wait_for(dispatcher.wait(run["thread_id"], run["run_id"]), 10)
        assert outcome is not None and outcome.status == "success"
        assert outcome.output["count"] == 2
        # The thread's followers got the run's events in order, then its end.
        seen: list[Any] = []
        while not seen or seen[-1].seq is not None:
            seen.append(await asyncio.wait_for(listener.get(), 10))
        assert [e.event for e in seen] == ["metadata", "values", "values", "values", "metadata"]
        assert orjson.loads(seen[-1].data) == {"status": "run_done", "run_id": run["run_id"]}
        assert [orjson.loads(e.data)["count"] for e in seen if e.event == "values"] == [0, 1, 2]
        thread = await storage.get_thread(run["thread_id"])
        assert thread is not None and thread["status"] == "idle"
    finally:
        await dispatcher.detach(run["thread_id"], listener)


async def test_a_queued_run_ended_by_a_strategy_wakes_its_waiter(
    cluster: tuple[PostgresStorage, QueueDispatcher],
) -> None:
    storage, dispatcher = cluster
    run = await pending_run(storage, "counter", {"count": 0})
    # Not due for a minute: it stays queued until `interrupt` ends it.
    run["kwargs"]["after_seconds"] = 60
    await dispatcher.start(run, ThreadUpdate(status="busy"), None)
    waiting = asyncio.ensure_future(dispatcher.wait(run["thread_id"], run["run_id"]))
    await asyncio.sleep(0.3)
    assert await dispatcher.cancel(
        run["thread_id"], [run["run_id"]], action="interrupt", wait=False
    )
    outcome = await asyncio.wait_for(waiting, 10)
    assert outcome is None or outcome.status == "interrupted"
    stored = await storage.get_run(run["run_id"])
    assert stored is not None and stored["status"] == "interrupted"
