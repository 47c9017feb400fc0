"""LangGraph's `AsyncPostgresStore` on the storage's pool; semantic search through pgvector."""

from __future__ import annotations

from typing import Any

from langgraph.store.postgres.aio import AsyncPostgresStore
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._store import StoreUnavailable
from open_langgraph.storage.base import StoreSettings

PGVECTOR_HINT = (
    "store.index on PostgreSQL needs the pgvector extension on the database server "
    "(Debian: apt-get install postgresql-15-pgvector; see docs/deploy.md)"
)


def postgres_store(pool: AsyncConnectionPool[Any], settings: StoreSettings) -> AsyncPostgresStore:
    """The store on `pool` (autocommit, dict rows: what it needs, like the saver); not set
    up yet (`setup_postgres_store`)."""
    return AsyncPostgresStore(pool, index=settings.index, ttl=settings.ttl)  # type: ignore[arg-type]


async def setup_postgres_store(store: AsyncPostgresStore) -> None:
    """Run the store's migrations; with an index, first check that pgvector can be created,
    so a server without it stops with a message saying what to install."""
    if store.index_config:
        async with store.conn.connection() as conn:  # type: ignore[union-attr]
            cur = await conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            if await cur.fetchone() is None:
                raise StoreUnavailable(PGVECTOR_HINT)
    await store.setup()
