"""LangGraph's store as each backend opens it (`Storage.store`): the same behaviour on both.

The plain `storage` fixture (tests/storage/conftest.py) has a store without TTL or index;
`configured` opens one with both, as `store.ttl` and `store.index` in the config do.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest
from langgraph.store.base import BaseStore

from open_langgraph.storage._store import StoreUnavailable
from open_langgraph.storage.base import Storage, StoreSettings
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.sqlite import SqliteStorage
from tests.fixtures.store_graphs import embed
from tests.storage.conftest import BACKENDS

TTL = StoreSettings(ttl={"refresh_on_read": True, "sweep_interval_minutes": 60})
INDEX = {"dims": 8, "embed": embed, "fields": ["text"]}


def _pgvector(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return found.fetchone() is not None


@pytest.fixture(params=BACKENDS)
async def configured(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[BaseStore]:
    """A store with a TTL config and (where the database can) a semantic index."""
    if request.param == "sqlite":
        settings = StoreSettings(index=INDEX, ttl=TTL.ttl)  # type: ignore[arg-type]
        async with SqliteStorage.from_path(tmp_path / "olg.db", settings) as opened:
            yield opened.store
        return
    url = request.getfixturevalue("postgres_url")
    index = INDEX if _pgvector(url) else None
    settings = StoreSettings(index=index, ttl=TTL.ttl)  # type: ignore[arg-type]
    async with PostgresStorage.from_url(url, store=settings) as opened:
        async with opened.pool.connection() as conn:
            await conn.execute("TRUNCATE store CASCADE")
        yield opened.store


async def test_put_get_overwrite_delete(storage: Storage):
    store = storage.store
    await store.aput(("users", "u1"), "prefs", {"theme": "dark"})
    item = await store.aget(("users", "u1"), "prefs")
    assert item is not None and item.value == {"theme": "dark"}
    assert item.namespace == ("users", "u1") and item.key == "prefs"
    await store.aput(("users", "u1"), "prefs", {"theme": "light"})
    again = await store.aget(("users", "u1"), "prefs")
    assert again is not None and again.value == {"theme": "light"}
    assert again.created_at == item.created_at or again.updated_at >= item.updated_at
    await store.adelete(("users", "u1"), "prefs")
    assert await store.aget(("users", "u1"), "prefs") is None


async def test_search_prefix_filter_and_pages(storage: Storage):
    store = storage.store
    for n in range(5):
        await store.aput(("docs", "even" if n % 2 == 0 else "odd"), f"k{n}", {"n": n})
    await store.aput(("other",), "x", {"n": 0})
    everything = await store.asearch(("docs",), limit=100)
    assert sorted(item.key for item in everything) == [f"k{n}" for n in range(5)]
    evens = await store.asearch(("docs",), filter={"n": {"$lte": 2}}, limit=100)
    assert sorted(item.value["n"] for item in evens) == [0, 1, 2]
    first = await store.asearch(("docs",), limit=3, offset=0)
    second = await store.asearch(("docs",), limit=3, offset=3)
    assert len(first) == 3 and len(second) == 2
    assert {i.key for i in first} | {i.key for i in second} == {f"k{n}" for n in range(5)}


async def test_list_namespaces(storage: Storage):
    store = storage.store
    for namespace in (("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z",)):
        await store.aput(namespace, "k", {"v": 1})
    assert sorted(await store.alist_namespaces(prefix=("a",))) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "x"),
    ]
    assert await store.alist_namespaces(prefix=("a",), suffix=("d",)) == [("a", "b", "d")]
    assert sorted(await store.alist_namespaces(prefix=("a",), max_depth=2)) == [
        ("a", "b"),
        ("a", "x"),
    ]
    assert len(await store.alist_namespaces(limit=2)) == 2


async def test_items_past_their_ttl_are_swept(configured: BaseStore):
    await configured.aput(("ttl",), "brief", {"v": 1}, ttl=1 / 60)  # one second
    await configured.aput(("ttl",), "lasting", {"v": 2})
    assert await configured.aget(("ttl",), "brief", refresh_ttl=False) is not None
    await asyncio.sleep(2.2)
    await configured.sweep_ttl()  # type: ignore[attr-defined]
    assert await configured.aget(("ttl",), "brief") is None
    assert await configured.aget(("ttl",), "lasting") is not None


async def test_semantic_search_ranks_by_the_embedding(tmp_path: Path):
    settings = StoreSettings(index=INDEX)  # type: ignore[arg-type]
    async with SqliteStorage.from_path(tmp_path / "olg.db", settings) as opened:
        await _ranks_by_the_embedding(opened.store)


async def _ranks_by_the_embedding(configured: BaseStore) -> None:
    corpus = {"pets": "dog cat dog", "cars": "car road", "food": "pizza pasta"}
    for key, text in corpus.items():
        await configured.aput(("docs",), key, {"text": text})
    ranked = await configured.asearch(("docs",), query="dog", limit=3)
    assert ranked[0].key == "pets"
    assert ranked[0].score is not None and ranked[0].score > (ranked[1].score or 0)


async def test_an_index_on_postgres_ranks_with_pgvector_and_is_refused_without(
    postgres_url: str,
):
    """Where the server has pgvector, semantic search ranks as on SQLite; where it has not
    (Debian 12 packages none), start-up stops with a message naming what to install."""
    settings = StoreSettings(index=INDEX)  # type: ignore[arg-type]
    if not _pgvector(postgres_url):
        with pytest.raises(StoreUnavailable, match="pgvector"):
            async with PostgresStorage.from_url(postgres_url, store=settings):
                pass
        return
    async with PostgresStorage.from_url(postgres_url, store=settings) as opened:
        async with opened.pool.connection() as conn:
            await conn.execute("TRUNCATE store CASCADE")
        await _ranks_by_the_embedding(opened.store)
