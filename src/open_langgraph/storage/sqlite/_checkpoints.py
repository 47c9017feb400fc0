"""The checkpoint operations the official SQLite saver has no public API for.

`AsyncSqliteSaver` (langgraph-checkpoint-sqlite 3.x) offers `alist`, `aput`, `aput_writes`
and `adelete_thread`, which the storage uses to copy and delete a thread's checkpoints. Unlike
the PostgreSQL saver it has no `aprune`, and no saver can delete single checkpoints. Keeping
only the latest checkpoint of each namespace (`keep_latest` pruning), rollback (removing the
checkpoints some runs created) and measuring what a thread stores are therefore done here, the
one module that touches the saver's `checkpoints` and `writes` tables, as that version creates
them. The two writes run inside the caller's transaction, which holds the saver's lock; the
measurement is one read.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

from open_langgraph.storage.base import CheckpointBytes, StoredBytes


async def keep_latest(conn: aiosqlite.Connection, thread_id: str) -> None:
    """Delete all but the newest checkpoint of each namespace of the thread, with its writes."""
    keep = "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? GROUP BY checkpoint_ns"
    for table in ("writes", "checkpoints"):
        await conn.execute(
            f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id NOT IN ({keep})",
            (thread_id, thread_id),
        )


async def delete_checkpoints_of_runs(
    conn: aiosqlite.Connection, thread_id: str, run_ids: Sequence[str]
) -> None:
    """Remove what `run_ids` checkpointed on the thread (their metadata names the run)."""
    marks = ",".join("?" * len(run_ids))
    created = (
        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND "
        f"json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
    )
    for table in ("writes", "checkpoints"):
        await conn.execute(
            f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id IN ({created})",
            (thread_id, thread_id, *run_ids),
        )


async def checkpoint_bytes(conn: aiosqlite.Connection, thread_id: str) -> CheckpointBytes:
    """Rows and bytes of the thread's checkpoints and pending writes. This saver keeps channel
    values inside the checkpoint blob, so they count as checkpoint bytes, not on their own."""
    sizes = (
        "SELECT COUNT(*), COALESCE(SUM(LENGTH(checkpoint) + COALESCE(LENGTH(metadata), 0)), 0) "
        "FROM checkpoints WHERE thread_id = ? "
        "UNION ALL SELECT COUNT(*), COALESCE(SUM(COALESCE(LENGTH(value), 0)), 0) "
        "FROM writes WHERE thread_id = ?"
    )
    async with conn.execute(sizes, (thread_id, thread_id)) as cur:
        (checkpoints, writes) = [StoredBytes(int(n), int(b)) for n, b in await cur.fetchall()]
    return CheckpointBytes(
        checkpoints=checkpoints,
        channel_values=StoredBytes(),
        by_channel={},
        pending_writes=writes,
    )
