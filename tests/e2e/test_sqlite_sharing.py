"""The database file with others around it: a connection holding the write lock delays only the
requests that need the database, and a second server on the same file refuses to start.
(That a killed server leaves no stale lock is shown by test_persistence.py, which restarts
on the database of a server killed with SIGKILL.)
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.fixtures.backend import SQLITE
from tests.fixtures.server import ServerProcess, serving

pytestmark = pytest.mark.e2e

EXIT_DATABASE_IN_USE = 4


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("olg-sqlite-sharing")
    # SQLite by nature (its file locks, a second server on the same file): these tests run on
    # SQLite whatever OLG_TEST_BACKEND says; test_postgres_backend.py has PostgreSQL's lock.
    with serving(directory, backend=SQLITE) as process:
        yield process


async def test_a_locked_database_does_not_stop_requests_that_do_not_need_it(
    first: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=first.url, timeout=30) as http:
        holder = sqlite3.connect(first.db, isolation_level=None, timeout=0)
        holder.execute("BEGIN IMMEDIATE")  # what another process writing would hold
        try:
            create = asyncio.create_task(http.post("/threads", json={}))
            run = asyncio.create_task(
                http.post("/runs/wait", json={"assistant_id": "counter", "input": {"count": 0}})
            )
            timings: list[tuple[datetime, float]] = []
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                started, clock = datetime.now(UTC), time.perf_counter()
                assert (await http.get("/ok")).status_code == 200
                timings.append((started, time.perf_counter() - clock))
            assert not create.done() and not run.done(), "the writes did not wait for the lock"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        created = await create
        assert created.status_code == 200
        assert (await run).json()["count"] == 2

    # Only the /ok requests sent once the thread's write was already waiting count.
    arrived = datetime.fromisoformat(created.json()["created_at"])
    while_waiting = [seconds for started, seconds in timings if started >= arrived]
    assert len(while_waiting) >= 5, f"{len(while_waiting)} /ok requests after {arrived}"
    assert statistics.median(while_waiting) < 0.05, sorted(while_waiting)


def test_a_second_server_on_the_same_database_stops_before_touching_it(
    first: ServerProcess, tmp_path: Path
) -> None:
    http = httpx.Client(base_url=first.url, timeout=30)
    thread_id = http.post("/threads", json={}).json()["thread_id"]
    run_id = http.post(
        f"/threads/{thread_id}/runs",
        json={"assistant_id": "slow", "input": {"seconds": 0, "hold": True}},
    ).json()["run_id"]
    run_url = f"/threads/{thread_id}/runs/{run_id}"
    deadline = time.monotonic() + 10
    while http.get(run_url).json()["status"] != "running":
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)

    second = ServerProcess(first.config, first.db, tmp_path / "second.log", backend=SQLITE)
    with pytest.raises(RuntimeError, match="exited with 4"):
        second.start()
    assert second.process is not None and second.process.returncode == EXIT_DATABASE_IN_USE
    last_line = second.log.read_text().strip().splitlines()[-1]
    assert last_line == (
        f"olg: database {first.db} is in use by another process "
        f"(pid {first.process.pid}); stop it or pass another --db"
    )

    # The first server still owns its run: it is running, and cancelling it works.
    assert http.get(run_url).json()["status"] == "running"
    assert http.post(f"{run_url}/cancel", params={"wait": True}).status_code == 200
    assert http.get(run_url).json()["status"] == "interrupted"
    http.close()
