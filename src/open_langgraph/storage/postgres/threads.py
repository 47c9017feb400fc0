"""Threads in PostgreSQL: the shared queries (`storage/_threads.py`), pruned by the saver."""

from __future__ import annotations

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from open_langgraph.storage._threads import ThreadQueries
from open_langgraph.storage.base import TTLStrategy
from open_langgraph.storage.postgres._db import PostgresBase


class ThreadsMixin(ThreadQueries, PostgresBase):
    checkpointer: AsyncPostgresSaver

    async def _prune_checkpoints(self, thread_ids: list[str], strategy: TTLStrategy) -> None:
        await self.checkpointer.aprune(thread_ids, strategy=strategy)
