"""Server-side prepared statements: on by default (less PostgreSQL CPU per run), and off on
request for pooling proxies that cannot keep them. Every pool connection is opened with
`connection_kwargs()`, so one such connection shows what the pools do."""

from __future__ import annotations

import psycopg
import pytest

from open_langgraph.storage.postgres import PostgresStorage, connection_kwargs


async def _prepared_after_repeats(url: str) -> int:
    """How many statements a connection holds prepared after running one 8 times."""
    async with await psycopg.AsyncConnection.connect(url, **connection_kwargs(url)) as conn:
        for _ in range(8):
            await conn.execute("SELECT %s::int + 1 AS n", (1,))
        cur = await conn.execute("SELECT COUNT(*) AS n FROM pg_prepared_statements")
        row = await cur.fetchone()
        assert row is not None
        return int(row["n"])


async def test_repeated_statements_are_prepared_by_default(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("OLG_PG_PREPARED_STATEMENTS", raising=False)
    assert await _prepared_after_repeats(postgres_url) >= 1


async def test_prepared_statements_can_be_turned_off(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("OLG_PG_PREPARED_STATEMENTS", "off")
    assert await _prepared_after_repeats(postgres_url) == 0


async def test_a_bad_setting_is_refused_with_its_name(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("OLG_PG_PREPARED_STATEMENTS", "sometimes")
    with pytest.raises(ValueError, match="OLG_PG_PREPARED_STATEMENTS"):
        async with PostgresStorage.from_url(postgres_url):
            pass
