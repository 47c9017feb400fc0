"""Threads in PostgreSQL: the shared queries (`storage/_threads.py`), pruned by the saver."""

from __future__ import annotations

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from open_langgraph.storage._threads import ThreadQueries, thread_update_statement
from open_langgraph.storage.base import ThreadUpdate, TTLStrategy
from open_langgraph.storage.postgres._db import POSTGRES, Conn, OnConnection, PostgresBase


async def apply_thread_update(conn: Conn, thread_id: str, update: ThreadUpdate) -> None:
    """Run the UPDATE for `update` inside the caller's transaction."""
    await OnConnection(conn).run(*thread_update_statement(POSTGRES, thread_id, update))


class ThreadsMixin(ThreadQueries, PostgresBase):
    checkpointer: AsyncPostgresSaver

    async def _prune_checkpoints(self, thread_ids: list[str], strategy: TTLStrategy) -> None:
        await self.checkpointer.aprune(thread_ids, strategy=strategy)
