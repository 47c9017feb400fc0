"""The checkpoint operations the official PostgreSQL saver has no public API for: rollback, and
measuring what a thread's checkpoints take.

Deleting and pruning a thread's checkpoints go through the saver's public API
(`adelete_thread`, `aprune`), and copying through `alist`/`aput`/`aput_writes`
(`storage/_thread_checkpoints.py`). Removing the checkpoints some runs created has no public
API (`adelete_for_runs` is not implemented by the saver), so this module is the one documented
adapter onto the saver's schema, `checkpoints`, `checkpoint_writes` and `checkpoint_blobs` as
langgraph-checkpoint-postgres 3.x creates them: it deletes the checkpoints whose metadata names
one of the runs, their pending writes, and the blobs no remaining checkpoint of the thread
refers to. The measurement sums the stored (possibly compressed) sizes of those three tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from open_langgraph.storage.base import CheckpointBytes, StoredBytes
from open_langgraph.storage.postgres._db import Conn


async def delete_checkpoints_of_runs(conn: Conn, thread_id: str, run_ids: Sequence[str]) -> None:
    """Remove what `run_ids` checkpointed on the thread, inside the caller's transaction."""
    created = (
        "SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = %s "
        "AND metadata ->> 'run_id' = ANY(%s)"
    )
    ids = list(run_ids)
    await conn.execute(
        "DELETE FROM checkpoint_writes WHERE thread_id = %s AND (checkpoint_ns, checkpoint_id) "
        f"IN ({created})",
        (thread_id, thread_id, ids),
    )
    await conn.execute(
        "DELETE FROM checkpoints WHERE thread_id = %s AND metadata ->> 'run_id' = ANY(%s)",
        (thread_id, ids),
    )
    # A blob is shared by every checkpoint whose channel_versions name its version.
    await conn.execute(
        "DELETE FROM checkpoint_blobs b WHERE b.thread_id = %s AND NOT EXISTS ("
        "SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id "
        "AND c.checkpoint_ns = b.checkpoint_ns "
        "AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)",
        (thread_id,),
    )


async def checkpoint_bytes(conn: Conn, thread_id: str) -> CheckpointBytes:
    """Rows and stored bytes of the thread's checkpoints, channel value blobs (per channel) and
    pending writes (one statement: one snapshot)."""
    cur = await conn.execute(
        "SELECT 'checkpoints' AS kind, NULL AS channel, COUNT(*) AS n, "
        "COALESCE(SUM(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) AS size "
        "FROM checkpoints WHERE thread_id = %s "
        "UNION ALL SELECT 'writes', NULL, COUNT(*), COALESCE(SUM(pg_column_size(blob)), 0) "
        "FROM checkpoint_writes WHERE thread_id = %s "
        "UNION ALL SELECT 'blobs', channel, COUNT(*), COALESCE(SUM(pg_column_size(blob)), 0) "
        "FROM checkpoint_blobs WHERE thread_id = %s GROUP BY channel",
        (thread_id, thread_id, thread_id),
    )
    rows = await cur.fetchall()
    by_channel = {
        r["channel"]: StoredBytes(int(r["n"]), int(r["size"])) for r in rows if r["kind"] == "blobs"
    }
    single = {
        r["kind"]: StoredBytes(int(r["n"]), int(r["size"])) for r in rows if r["kind"] != "blobs"
    }
    return CheckpointBytes(
        checkpoints=single["checkpoints"],
        channel_values=StoredBytes(
            sum(c.count for c in by_channel.values()), sum(c.bytes for c in by_channel.values())
        ),
        by_channel=dict(sorted(by_channel.items())),
        pending_writes=single["writes"],
    )
