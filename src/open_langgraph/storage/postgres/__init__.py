"""The server backend: PostgreSQL holding LangGraph's official checkpoint tables and ours.

Checkpoints are written by langgraph-checkpoint-postgres's `AsyncPostgresSaver`; assistants,
threads, runs and run events live in our tables, versioned by `migrations`. Both share one
psycopg 3 connection pool (autocommit, dict rows: what the saver requires).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage.base import Storage
from open_langgraph.storage.postgres import migrations
from open_langgraph.storage.postgres._db import Conn
from open_langgraph.storage.postgres._saver import PostgresCheckpointer
from open_langgraph.storage.postgres.assistants import AssistantsMixin
from open_langgraph.storage.postgres.runs import RunsMixin
from open_langgraph.storage.postgres.threads import ThreadsMixin

#: Connections kept open by one server: the saver serialises its own calls on one lock, so
#: a few connections serve it and our concurrent requests.
POOL_MAX_SIZE = 10


def connection_kwargs() -> dict[str, Any]:
    """What every connection needs: autocommit and dict rows (for the official saver), and no
    server-side prepared statements, so a transaction-pooling proxy in between works."""
    return {"autocommit": True, "prepare_threshold": None, "row_factory": dict_row}


class PostgresStorage(AssistantsMixin, ThreadsMixin, RunsMixin, Storage):
    """Storage in a PostgreSQL database named by a `postgresql://` URL."""

    checkpointer: PostgresCheckpointer

    def __init__(self, pool: AsyncConnectionPool[Conn]) -> None:
        super().__init__(pool)
        self.checkpointer = PostgresCheckpointer(pool)  # type: ignore[arg-type]

    @classmethod
    @contextlib.asynccontextmanager
    async def from_url(
        cls, url: str, *, max_size: int = POOL_MAX_SIZE
    ) -> AsyncIterator[PostgresStorage]:
        """Open a pool on `url`, migrate the schema, and close the pool on exit."""
        # Fail at once, with the server's own message, on a wrong URL or a server that is
        # down: a pool would retry in the background and report only a timeout.
        probe = await AsyncConnection.connect(url, **connection_kwargs())
        await probe.close()
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs=connection_kwargs(),
            open=False,
            connection_class=AsyncConnection[Any],
        )
        await pool.open(wait=True, timeout=30.0)
        storage = cls(pool)
        try:
            await storage.setup()
            yield storage
        finally:
            await storage.close()

    async def setup(self) -> None:
        async with self.pool.connection() as conn:
            await migrations.upgrade(conn)
        await self.checkpointer.setup()

    async def close(self) -> None:
        await self.pool.close()


__all__ = ["PostgresStorage", "migrations"]
