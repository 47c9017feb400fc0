"""Threads in SQLite: the shared queries (`storage/_threads.py`) and checkpoint pruning."""

from __future__ import annotations

from open_langgraph.storage._threads import ThreadQueries
from open_langgraph.storage.base import TTLStrategy
from open_langgraph.storage.sqlite import _checkpoints
from open_langgraph.storage.sqlite._db import SqliteBase


class ThreadsMixin(ThreadQueries, SqliteBase):
    async def _prune_checkpoints(self, thread_ids: list[str], strategy: TTLStrategy) -> None:
        if strategy == "delete":
            for thread_id in thread_ids:
                await self.checkpointer.adelete_thread(thread_id)
            return
        # The saver has no public prune (`_checkpoints` says why).
        async with self.transaction() as conn:
            for thread_id in thread_ids:
                await _checkpoints.keep_latest(conn, thread_id)
