"""Every storage backend, opened fresh for each test: the contract suite runs on all of them.

PostgreSQL is the server at `OLG_TEST_POSTGRES_URL` (default: the local one, trust auth). A
database of its own is created for the session and dropped after; each test starts from empty
tables. A server that cannot be reached fails these tests: it is never a skip.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from open_langgraph.storage.base import Storage
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.sqlite import SqliteStorage
from tests.fixtures.postgres import fresh_database

BACKENDS = ["sqlite", "postgres"]

_TABLES = (
    "assistants, assistant_versions, threads, thread_ttls, runs, run_events, crons, "
    "checkpoints, checkpoint_blobs, checkpoint_writes, store"
)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database for this test session, dropped at its end."""
    with fresh_database() as url:
        yield url


@pytest.fixture(params=BACKENDS)
async def storage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    if request.param == "sqlite":
        async with SqliteStorage.from_path(tmp_path / "olg.db") as opened:
            yield opened
        return
    url = request.getfixturevalue("postgres_url")
    async with PostgresStorage.from_url(url) as opened:
        async with opened.pool.connection() as conn:
            await conn.execute(f"TRUNCATE {_TABLES}")
        yield opened
