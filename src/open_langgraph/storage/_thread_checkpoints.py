"""Copying a thread's checkpoints through a LangGraph saver's public API, for any backend.

Neither official saver has a public copy, but `alist`, `aput` and `aput_writes` suffice: every
checkpoint is read and written again under the new thread id, oldest first so each parent
exists before its child. No backend's checkpoint tables are touched here.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver


async def copy_checkpoints(saver: BaseCheckpointSaver, source: str, target: str) -> None:
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
