"""TCP keepalives on both ends of every connection the storage opens, so a peer that is gone
(a worker's host cut off) is noticed in seconds, not hours: PostgreSQL then ends the session
and frees the row locks it held (tests/queue/test_multi_host.py shows why that matters)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from open_langgraph.storage.postgres import KEEPALIVE, PostgresStorage


async def _settings(pool: Any) -> dict[str, str]:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN "
            "('tcp_keepalives_idle', 'tcp_keepalives_interval', 'tcp_keepalives_count', "
            "'synchronous_commit', 'search_path')"
        )
        return {row["name"]: row["setting"] for row in await cur.fetchall()}


async def test_both_pools_ask_the_server_for_keepalives(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OLG_PG_KEEPALIVES", raising=False)
    async with PostgresStorage.from_url(postgres_url) as storage:
        for pool in (storage.pool, storage.relaxed_pool):
            settings = await _settings(pool)
            assert (
                int(settings["tcp_keepalives_idle"]),
                int(settings["tcp_keepalives_interval"]),
                int(settings["tcp_keepalives_count"]),
            ) == KEEPALIVE
        # The checkpoint pool keeps its own setting beside them.
        assert (await _settings(storage.relaxed_pool))["synchronous_commit"] == "off"


async def test_options_in_the_url_are_kept(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OLG_PG_KEEPALIVES", raising=False)
    separator = "&" if "?" in postgres_url else "?"
    url = f"{postgres_url}{separator}options={quote('-c search_path=olg_test,public')}"
    async with PostgresStorage.from_url(url) as storage:
        settings = await _settings(storage.pool)
    assert settings["search_path"].replace(" ", "") == "olg_test,public"
    assert int(settings["tcp_keepalives_idle"]) == KEEPALIVE[0]


async def test_keepalives_can_be_turned_off_for_a_proxy(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PgBouncer refuses startup `options` unless told to ignore them."""
    monkeypatch.setenv("OLG_PG_KEEPALIVES", "off")
    async with PostgresStorage.from_url(postgres_url) as storage:
        settings = await _settings(storage.pool)
    assert int(settings["tcp_keepalives_idle"]) != KEEPALIVE[0]
