"""Thread-wide checkpoint operations on LangGraph's official PostgreSQL saver.

Deleting and pruning go through the saver's public API (`adelete_thread`, `aprune`). Copying
does too: every checkpoint is read with `alist` and written again under the new thread id
with `aput` and `aput_writes`, oldest first so each parent exists before its child.

Rollback (removing the checkpoints some runs created) has no public API, so it is the one
documented adapter onto the saver's schema, `checkpoints`, `checkpoint_writes` and
`checkpoint_blobs` as langgraph-checkpoint-postgres 3.x creates them: it deletes the
checkpoints whose metadata names one of the runs, their pending writes, and the blobs no
remaining checkpoint of the thread refers to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from open_langgraph.storage.postgres._db import Conn


async def copy_checkpoints(saver: AsyncPostgresSaver, source: str, target: str) -> None:
    """Write every checkpoint (all namespaces) and pending write of `source` under `target`.

    Task paths of pending writes are not part of the public API and are stored empty; they
    only order the writes of one step, which `aput_writes` keeps per task.
    """
    found = [item async for item in saver.alist({"configurable": {"thread_id": source}})]
    for item in sorted(found, key=lambda t: t.checkpoint["id"]):
        configurable = item.config["configurable"]
        parent: dict[str, Any] = {
            "thread_id": target,
            "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        }
        if item.parent_config is not None:
            parent["checkpoint_id"] = item.parent_config["configurable"]["checkpoint_id"]
        saved = await saver.aput(
            RunnableConfig(configurable=parent),
            item.checkpoint,
            item.metadata,
            dict(item.checkpoint["channel_versions"]),
        )
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in item.pending_writes or ():
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            await saver.aput_writes(saved, writes, task_id)


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
