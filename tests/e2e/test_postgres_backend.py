"""`olg serve --database-url postgresql://...`: the same API, stored in PostgreSQL.

A live server on a fresh database, driven through `langgraph_sdk`: runs, interrupts and
resumes, thread copy and delete, a kill -9 and restart that keeps everything, and the one
server per database rule.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import Command

from tests.fixtures.backend import SQLITE
from tests.fixtures.postgres import fresh_database
from tests.fixtures.server import ServerProcess, write_config

pytestmark = pytest.mark.e2e


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def _server(tmp_path: Path, database: str) -> ServerProcess:
    # The SQLite path must stay unused: the URL in DATABASE_URI chooses PostgreSQL. So the
    # command line carries `--db` only, whatever OLG_TEST_BACKEND says (backend=SQLITE), and
    # the `database` fixture, not the ServerProcess, owns the database.
    return ServerProcess(
        write_config(tmp_path),
        tmp_path / "unused" / "olg.db",
        tmp_path / "server.log",
        env={"DATABASE_URI": database},
        backend=SQLITE,
    )


async def test_serving_from_postgres_survives_a_kill_and_restart(tmp_path: Path, database: str):
    server = _server(tmp_path, database)
    server.start()
    try:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create(metadata={"owner": "pg"}))["thread_id"]
        result = await client.runs.wait(thread_id, "counter", input={"count": 0})
        assert result["count"] == 2
        history = await client.threads.get_history(thread_id, limit=100)
        assert len(history) >= 3

        asked = (await client.threads.create())["thread_id"]
        await client.runs.wait(asked, "hitl", input={"request": "deploy"})
        assert (await client.threads.get(asked))["status"] == "interrupted"

        copy = await client.threads.copy(thread_id)
        assert (await client.threads.get_state(copy["thread_id"]))["values"]["count"] == 2
        doomed = (await client.threads.create())["thread_id"]
        await client.runs.wait(doomed, "counter", input={"count": 5})
        await client.threads.delete(doomed)
        found = await client.threads.search(metadata={"owner": "pg"})
        assert {t["thread_id"] for t in found} == {thread_id, copy["thread_id"]}
        # JSONB refuses a NUL character that SQLite would store: bad input, not a 500.
        refused = httpx.post(f"{server.url}/threads", json={"metadata": {"a": "x\u0000y"}})
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"].startswith("value cannot be stored")
        await client.http.client.aclose()
    finally:
        server.kill_hard()
    assert not (tmp_path / "unused" / "olg.db").exists()

    server.start()
    try:
        client = get_client(url=server.url)
        assert (await client.threads.get(thread_id))["values"]["count"] == 2
        assert await client.threads.get_history(thread_id, limit=100) == history
        resumed = await client.runs.wait(asked, "hitl", command=Command(resume="yes"))
        assert resumed["decision"] == "deploy: yes"
        assert (await client.threads.get(asked))["status"] == "idle"
        assert (await client.threads.get_state(copy["thread_id"]))["values"]["count"] == 2
        await client.http.client.aclose()
    finally:
        server.close()


def test_a_second_server_on_the_same_database_stops_with_exit_4(tmp_path: Path, database: str):
    first = _server(tmp_path, database)
    first.start()
    try:
        second = subprocess.run(
            [
                *(sys.executable, "-m", "open_langgraph.cli", "serve", "--port", "0"),
                *("--config", str(first.config), "--database-url", database),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        first.close()
    assert second.returncode == 4, second.stderr
    assert "in use by another olg server" in second.stderr
