"""The official `AsyncPostgresSaver`, without the per-run signature cost (`storage/_saver.py`)
and without its process-wide lock when it draws connections from a pool; encrypting when
`encryption.path` is configured (`storage/_encrypted_saver.py`); serialising a task's writes
on the event loop rather than on a thread."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._encrypted_saver import EncryptedCheckpoints
from open_langgraph.storage._saver import PrecomputedSignature


class _WritesOnTheLoop:
    """Put right before `AsyncPostgresSaver` in the bases (after `PrecomputedSignature`,
    whose signature LangGraph reads)."""

    UPSERT_CHECKPOINT_WRITES_SQL: str
    INSERT_CHECKPOINT_WRITES_SQL: str
    _dump_writes: Any
    _cursor: Any

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """The saver's own, serialising the writes here instead of in `asyncio.to_thread`.

        Serialising holds the GIL either way, so the thread let nothing else run meanwhile;
        the hop to it and back was a twentieth of a queue worker's CPU (five per two-node
        run). The SQLite saver serialises on the loop too. Same statements, same rows.
        """
        configurable = config["configurable"]
        query = (
            self.UPSERT_CHECKPOINT_WRITES_SQL
            if all(w[0] in WRITES_IDX_MAP for w in writes)
            else self.INSERT_CHECKPOINT_WRITES_SQL
        )
        params = self._dump_writes(
            configurable["thread_id"],
            configurable["checkpoint_ns"],
            configurable["checkpoint_id"],
            task_id,
            task_path,
            writes,
        )
        async with self._cursor(pipeline=True) as cur:
            await cur.executemany(query, params)


class PostgresCheckpointer(
    PrecomputedSignature, EncryptedCheckpoints, _WritesOnTheLoop, AsyncPostgresSaver
):
    inlines_primitives = True

    def __init__(self, conn: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(conn, *args, **kwargs)
        if isinstance(conn, AsyncConnectionPool):
            # The saver holds `self.lock` around every call, which protects a single shared
            # connection; each call on a pool gets a connection of its own, so the lock only
            # queued every run's checkpoint writes in the process behind one another.
            self.lock = contextlib.nullcontext()  # type: ignore[assignment]
