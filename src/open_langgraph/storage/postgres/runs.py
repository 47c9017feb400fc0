"""Runs and their stored stream events in PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence

from open_langgraph.storage._runs import RunQueries
from open_langgraph.storage.base import CheckpointBytes
from open_langgraph.storage.postgres import _checkpoints
from open_langgraph.storage.postgres._db import PostgresBase


class RunsMixin(RunQueries, PostgresBase):
    """The shared run queries (`storage/_runs.py`), and rollback and measurement of checkpoints
    through `_checkpoints`."""

    async def delete_checkpoints_of_runs(self, thread_id: str, run_ids: Sequence[str]) -> None:
        async with self.transaction() as conn:
            await _checkpoints.delete_checkpoints_of_runs(conn, thread_id, run_ids)

    async def checkpoint_bytes(self, thread_id: str) -> CheckpointBytes:
        async with self.transaction() as conn:
            return await _checkpoints.checkpoint_bytes(conn, thread_id)
