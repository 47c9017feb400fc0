"""LangGraph's `AsyncSqliteStore` in the server's own database file, on a connection of its own.

Not on the serving connection: that one runs inline on the event loop with no busy wait
(`_inline.py`), while the store computes embeddings inside its transactions and may need the
sqlite-vec extension, which the serving connection's Python build may be unable to load. A
second aiosqlite connection (a thread of its own, where SQLite's busy handler may sleep) on
the same file keeps one database to back up, and WAL lets both read while either writes.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import aiosqlite
from langgraph.store.sqlite.aio import AsyncSqliteStore

from open_langgraph.storage._store import StoreUnavailable, swept
from open_langgraph.storage.base import StoreSettings
from open_langgraph.storage.sqlite._inline import BUSY_TIMEOUT_SECONDS


class SqliteStore(AsyncSqliteStore):
    """The official store, with write transactions that wait for the lock up front.

    `BEGIN IMMEDIATE` instead of a deferred `BEGIN`: a deferred transaction that has read and
    then writes (a search refreshing TTLs) fails at once with SQLITE_BUSY when the serving
    connection committed in between, whereas an immediate one waits in the busy handler. A
    failed batch is rolled back, not committed half-done.
    """

    @contextlib.asynccontextmanager
    async def _cursor(self, *, transaction: bool = True) -> AsyncIterator[aiosqlite.Cursor]:
        if not self.is_setup:
            await self.setup()
        async with self.lock:
            if transaction:
                await self.conn.execute("BEGIN IMMEDIATE")
            try:
                async with self.conn.cursor() as cur:
                    yield cur
            except BaseException:
                if transaction:
                    await self.conn.execute("ROLLBACK")
                raise
            if transaction:
                await self.conn.execute("COMMIT")


def vector_support_problem() -> str | None:
    """Why sqlite-vec cannot be loaded here, or None: this Python's sqlite3 was built without
    loadable extensions (pyenv's default) and pysqlite3 is not installed. Nothing is imported."""
    if importlib.util.find_spec("sqlite_vec") is None:
        return "the sqlite-vec package is not installed"
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return None
    if importlib.util.find_spec("pysqlite3") is None:
        return (
            "this Python's sqlite3 cannot load extensions (sqlite-vec), and pysqlite3-binary, "
            "which can, is not installed"
        )
    return None


def sqlite_module(vectors: bool) -> ModuleType:
    """Python's sqlite3, or pysqlite3 when vectors are needed and this Python's sqlite3 was
    built without loadable extensions (pyenv's default), which sqlite-vec needs."""
    if not vectors or hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        import pysqlite3.dbapi2 as pysqlite3  # type: ignore[import-not-found,import-untyped]
    except ImportError:
        raise StoreUnavailable(
            "store.index needs SQLite extension loading (for sqlite-vec), which this Python's "
            "sqlite3 lacks: install pysqlite3-binary, or use a Python built with "
            "--enable-loadable-sqlite-extensions"
        ) from None
    return pysqlite3


@contextlib.asynccontextmanager
async def open_sqlite_store(
    path: str | Path, settings: StoreSettings
) -> AsyncIterator[SqliteStore]:
    """The store on `path` (the server's database file), set up and closed with it."""
    module = sqlite_module(settings.index is not None)

    def connector() -> sqlite3.Connection:
        return module.connect(
            str(path), isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False
        )

    index: dict[str, Any] | None = None
    if settings.index is not None:
        # LangGraph's SQLite store reads the embedded paths from `text_fields`, where
        # `IndexConfig` (and its other stores) name them `fields`.
        index = {**settings.index, "text_fields": settings.index.get("fields") or ["$"]}
    conn = await aiosqlite.Connection(connector, 64)
    try:
        store = SqliteStore(conn, index=index, ttl=settings.ttl)  # type: ignore[arg-type]
        await store.setup()
        async with swept(store):
            yield store
    finally:
        await conn.close()
