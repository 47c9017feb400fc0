"""PostgreSQL schema versions: applied once each, in order, recorded, and safe to re-run."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from open_langgraph.storage.postgres import PostgresStorage, connection_kwargs, migrations
from tests.fixtures.postgres import fresh_database


@pytest.fixture
def empty_database() -> Iterator[str]:
    """A database of this test's own, with nothing in it yet."""
    with fresh_database() as url:
        yield url


async def test_upgrade_applies_each_step_once_and_records_it(empty_database: str):
    async with await psycopg.AsyncConnection.connect(
        empty_database, **connection_kwargs(empty_database)
    ) as conn:
        assert await migrations.current(conn) is None
        applied = await migrations.upgrade(conn)
        assert applied == [m.version for m in migrations.MIGRATIONS]
        assert await migrations.current(conn) == migrations.LATEST
        assert await migrations.upgrade(conn) == []
        cur = await conn.execute("SELECT version, name FROM schema_migrations ORDER BY version")
        rows = await cur.fetchall()
        assert [(r["version"], r["name"]) for r in rows] == [
            (m.version, m.name) for m in migrations.MIGRATIONS
        ]


async def test_opening_storage_migrates_our_tables_the_checkpointers_and_the_stores(
    empty_database: str,
):
    async with PostgresStorage.from_url(empty_database) as storage:
        await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
        async with storage.pool.connection() as conn:
            assert await migrations.current(conn) == migrations.LATEST
            for langgraph_table in ("checkpoint_migrations", "store_migrations"):
                cur = await conn.execute(f"SELECT COUNT(*) AS n FROM {langgraph_table}")
                assert (await cur.fetchone())["n"] > 0
    # Opening again finds everything in place and keeps the data.
    async with PostgresStorage.from_url(empty_database) as storage:
        assert await storage.get_thread("t") is not None


async def test_an_unreachable_server_fails_at_open():
    with pytest.raises(psycopg.OperationalError):
        async with PostgresStorage.from_url(
            "postgresql://postgres@127.0.0.1:1/none?connect_timeout=2"
        ):
            pass


async def test_processes_starting_together_on_an_empty_database_all_start(empty_database: str):
    """API and worker processes of one deployment start at once: each migrates (ours, the
    saver's and the store's tables) under one lock, so none fails on a duplicate key or a
    deadlock."""
    import asyncio
    import contextlib

    async def open_one() -> None:
        async with contextlib.AsyncExitStack() as stack:
            storage = await stack.enter_async_context(PostgresStorage.from_url(empty_database))
            assert await storage.count_threads(metadata=None, values=None, status=None) == 0

    for _ in range(3):
        await asyncio.gather(*(open_one() for _ in range(4)))


async def test_a_step_missing_below_the_latest_recorded_one_is_applied(empty_database: str):
    """Versions need not be contiguous: a database migrated by a branch that numbered its
    step after a gap still gets the step merged into the gap later (here: a version 0)."""
    async with await psycopg.AsyncConnection.connect(
        empty_database, **connection_kwargs(empty_database)
    ) as conn:
        await migrations.upgrade(conn)
        gap = migrations.Migration(0, "filled in", "CREATE TABLE olg_gap (x INT)")
        original = migrations.MIGRATIONS
        migrations.MIGRATIONS = (gap, *original)
        try:
            assert await migrations.upgrade(conn) == [0]
            assert await migrations.upgrade(conn) == []
        finally:
            migrations.MIGRATIONS = original
        cur = await conn.execute("SELECT to_regclass('olg_gap') IS NOT NULL AS made")
        assert (await cur.fetchone())["made"]
        assert await migrations.current(conn) == migrations.LATEST
