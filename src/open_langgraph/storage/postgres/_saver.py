"""The official `AsyncPostgresSaver`, without the per-run signature cost (`storage/_saver.py`)
and without its process-wide lock when it draws connections from a pool; encrypting when
`encryption.path` is configured (`storage/_encrypted_saver.py`); serialising a task's writes
and a checkpoint's channel values on the event loop rather than on a thread; and sending a
write of one statement without pipeline mode (`_Batch`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._encrypted_saver import EncryptedCheckpoints
from open_langgraph.storage._last_checkpoint import RemembersLastCheckpoint
from open_langgraph.storage._saver import PrecomputedSignature

try:
    from langgraph.checkpoint.serde.types import _DeltaSnapshot
except ImportError:  # langgraph-checkpoint before delta channels: no value is one

    class _DeltaSnapshot:  # type: ignore[no-redef]
        pass


class _WritesOnTheLoop:
    """Put right before `AsyncPostgresSaver` in the bases (after `PrecomputedSignature`,
    whose signature LangGraph reads)."""

    UPSERT_CHECKPOINTS_SQL: str
    UPSERT_CHECKPOINT_BLOBS_SQL: str
    UPSERT_CHECKPOINT_WRITES_SQL: str
    INSERT_CHECKPOINT_WRITES_SQL: str
    _dump_blobs: Any
    _dump_writes: Any
    _cursor: Any

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """The saver's own (langgraph-checkpoint-postgres 3.x), serialising the channel
        values it stores as blobs here instead of in `asyncio.to_thread`, for the reason
        `aput_writes` gives. Same statements, same rows (test_postgres_writes_on_loop.py
        compares them with the official saver's)."""
        configurable = config["configurable"]
        thread_id = configurable["thread_id"]
        checkpoint_ns = configurable["checkpoint_ns"]
        copy = checkpoint.copy()
        copy["channel_values"] = inline = dict(checkpoint["channel_values"])
        # Primitive values stay inline in the checkpoint row; others go to the blobs table.
        blob_values = {}
        for channel, value in checkpoint["channel_values"].items():
            if isinstance(value, _DeltaSnapshot):
                blob_values[channel] = inline.pop(channel)
                inline[channel] = True
            elif value is not None and not isinstance(value, str | int | float | bool):
                blob_values[channel] = inline.pop(channel)
        async with self._cursor(pipeline=True) as cur:
            if blob_versions := {k: v for k, v in new_versions.items() if k in blob_values}:
                await cur.executemany(
                    self.UPSERT_CHECKPOINT_BLOBS_SQL,
                    self._dump_blobs(thread_id, checkpoint_ns, blob_values, blob_versions),
                )
            await cur.execute(
                self.UPSERT_CHECKPOINTS_SQL,
                (
                    thread_id,
                    checkpoint_ns,
                    checkpoint["id"],
                    configurable.get("checkpoint_id"),
                    Jsonb(copy),
                    Jsonb(get_serializable_checkpoint_metadata(config, metadata)),
                ),
            )
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": checkpoint_ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

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


class _Batch:
    """The statements of one write of the saver (`_cursor(pipeline=True)`), sent when the
    write is complete: a single one as it is, several in pipeline mode.

    The saver writes a checkpoint, a task's writes or a thread's deletion in pipeline mode,
    so that their statements go in one round trip and, on an autocommitted connection, as
    one implicit transaction. Most writes of a run are one statement (a checkpoint whose
    channel values are all inline, a task's single write); for those, entering and leaving
    pipeline mode was a third of the write's client CPU for nothing. Those writers only
    send statements and read nothing back, which is what this records.
    """

    def __init__(self) -> None:
        self._statements: list[tuple[str, Sequence[Any]]] = []

    async def execute(self, query: str, params: Sequence[Any]) -> None:
        self._statements.append((query, params))

    async def executemany(self, query: str, params_seq: Sequence[Sequence[Any]]) -> None:
        self._statements.extend((query, params) for params in params_seq)

    async def send(self, pool: AsyncConnectionPool[Any]) -> None:
        if not self._statements:
            return
        async with pool.connection() as conn:
            if len(self._statements) == 1:
                async with conn.cursor(binary=True, row_factory=dict_row) as cur:
                    await cur.execute(*self._statements[0])
                return
            async with conn.pipeline(), conn.cursor(binary=True, row_factory=dict_row) as cur:
                for query, params in self._statements:
                    await cur.execute(query, params)


class PostgresCheckpointer(
    PrecomputedSignature,
    RemembersLastCheckpoint,
    EncryptedCheckpoints,
    _WritesOnTheLoop,
    AsyncPostgresSaver,
):
    inlines_primitives = True

    def __init__(self, conn: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(conn, *args, **kwargs)
        if isinstance(conn, AsyncConnectionPool):
            # The saver holds `self.lock` around every call, which protects a single shared
            # connection; each call on a pool gets a connection of its own, so the lock only
            # queued every run's checkpoint writes in the process behind one another.
            self.lock = contextlib.nullcontext()  # type: ignore[assignment]

    @contextlib.asynccontextmanager
    async def _cursor(self, *, pipeline: bool = False) -> AsyncIterator[Any]:
        """The saver's own cursor, except for its pipelined writes on a pool (`_Batch`)."""
        if not pipeline or not isinstance(self.conn, AsyncConnectionPool):
            async with super()._cursor(pipeline=pipeline) as cur:
                yield cur
            return
        batch = _Batch()
        yield batch
        await batch.send(self.conn)
