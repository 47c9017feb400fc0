"""Runs in SQLite: the shared queries (`storage/_runs.py`), rollback of their checkpoints and
what those take."""

from __future__ import annotations

from collections.abc import Sequence

from open_langgraph.storage._runs import RunQueries
from open_langgraph.storage.base import CheckpointBytes
from open_langgraph.storage.sqlite import _checkpoints
from open_langgraph.storage.sqlite._db import SqliteBase


class RunsMixin(RunQueries, SqliteBase):
    async def delete_checkpoints_of_runs(self, thread_id: str, run_ids: Sequence[str]) -> None:
        async with self.transaction() as conn:
            await _checkpoints.delete_checkpoints_of_runs(conn, thread_id, run_ids)

    async def checkpoint_bytes(self, thread_id: str) -> CheckpointBytes:
        return await _checkpoints.checkpoint_bytes(self.conn, thread_id)
