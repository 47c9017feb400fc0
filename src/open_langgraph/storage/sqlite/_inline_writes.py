"""The official SQLite saver's two writes, executed straight on our inline connection.

A two-node run makes nine checkpoint writes (`aput` per step, `aput_writes` per task).
`AsyncSqliteSaver` runs each through aiosqlite's result and cursor wrappers and takes its lock
twice (once more in `setup()`); on the inline connection (`_inline.py`) those wrappers cost
more than the statements. These overrides keep everything the saver guarantees: the same
rows in langgraph-checkpoint-sqlite 3.x's tables (its `aget_tuple` and `alist` read them
back; tests/unit/test_sqlite_inline_writes.py compares them with the saver's own), one commit
per call, under the saver's lock, with the inline connection's wait-and-retry on a locked
database.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_checkpoint_metadata,
)

from open_langgraph.storage.sqlite._inline import InlineConnection

_PUT = (
    "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
    "parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_WRITES_COLUMNS = (
    "INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, "
    "type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# Special channels (errors, interrupts...) replace an earlier write of the same index; task
# writes are kept as first written, as the saver does.
_REPLACE_WRITES = "INSERT OR REPLACE " + _WRITES_COLUMNS
_KEEP_WRITES = "INSERT OR IGNORE " + _WRITES_COLUMNS


class InlineWrites:
    """Put right before `AsyncSqliteSaver` in the bases; reads stay the saver's own."""

    conn: Any
    lock: Any
    is_setup: bool
    serde: Any

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        if not isinstance(self.conn, InlineConnection):
            return await super().aput(config, checkpoint, metadata, new_versions)  # type: ignore[misc]
        if not self.is_setup:
            await self.setup()  # type: ignore[attr-defined]
        configurable = config["configurable"]
        thread_id = configurable["thread_id"]
        checkpoint_ns = configurable["checkpoint_ns"]
        type_, serialized = self.serde.dumps_typed(checkpoint)
        serialized_metadata = json.dumps(
            get_checkpoint_metadata(config, metadata), ensure_ascii=False
        ).encode("utf-8", "ignore")
        row = (
            str(thread_id),
            checkpoint_ns,
            checkpoint["id"],
            configurable.get("checkpoint_id"),
            type_,
            serialized,
            serialized_metadata,
        )
        async with self.lock:
            (await self.conn.execute_now(_PUT, row)).close()
            await self.conn.commit()
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
        if not isinstance(self.conn, InlineConnection):
            await super().aput_writes(config, writes, task_id, task_path)  # type: ignore[misc]
            return
        query = _REPLACE_WRITES if all(w[0] in WRITES_IDX_MAP for w in writes) else _KEEP_WRITES
        if not self.is_setup:
            await self.setup()  # type: ignore[attr-defined]
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = str(configurable["checkpoint_ns"])
        checkpoint_id = str(configurable["checkpoint_id"])
        rows = [
            (
                thread_id,
                checkpoint_ns,
                checkpoint_id,
                task_id,
                task_path,
                WRITES_IDX_MAP.get(channel, idx),
                channel,
                *self.serde.dumps_typed(value),
            )
            for idx, (channel, value) in enumerate(writes)
        ]
        async with self.lock:
            (await self.conn.executemany_now(query, rows)).close()
            await self.conn.commit()
