"""The official `AsyncPostgresSaver`, without the per-run signature cost LangGraph adds.

As for SQLite (`storage/sqlite/_saver.py`): each graph invocation asks `inspect.signature`
whether `aput_writes` accepts `task_path`; a precomputed `__signature__` answers at no cost.
Storage, schema and serialisation are the official saver's, untouched.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver


class PostgresCheckpointer(AsyncPostgresSaver):
    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await super().aput_writes(config, writes, task_id, task_path)

    aput_writes.__signature__ = inspect.signature(aput_writes)  # type: ignore[attr-defined]
