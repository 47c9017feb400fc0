"""The checkpoint a run wrote last, kept in memory for the state read at the run's end.

When a run ends, its thread's record gets the state the run left (values, interrupts,
status) from `graph.aget_state`. The checkpoint that reads is the one the run has just
written: on PostgreSQL, reading it back (a round trip, its channel blobs joined in) was about
5 % of both the server's CPU per run and PostgreSQL's (docs/performance.md, sixth pass).
While a run holds `KeptCheckpoint.keep()`, the saver remembers the root checkpoint it last
stored for the run's thread, as LangGraph handed it over; inside `serving()` a read of that
thread's latest checkpoint gets it from memory.

It is served only when it is certainly what the database would return:

- written by this run (the context variable is the run task's own) for its thread, in the
  root namespace, stored without error, and no later write failed;
- no pending writes recorded against it (an interrupt's, for one): then the database
  is read, as before, so `tasks` and `interrupts` come out exactly as LangGraph reads them;
- a run owns its thread while it runs (runs on a thread are serialised), so no other write
  comes between.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)


class KeptCheckpoint:
    """One run's newest root checkpoint of its thread, while the run executes."""

    __slots__ = ("_serving", "found", "thread_id", "written")

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.found: CheckpointTuple | None = None
        #: Checkpoints with pending writes. LangGraph may send a step's writes before the
        #: step's checkpoint is stored (durability "async"), so this is by id, not by order.
        self.written: set[str] = set()
        self._serving = False

    @contextlib.contextmanager
    def keep(self) -> Iterator[None]:
        """Remember what the run stores while the block runs (one attempt of the run)."""
        self.found = None
        self.written.clear()
        token = _KEPT.set(self)
        try:
            yield
        finally:
            _KEPT.reset(token)

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Answer reads of the thread's latest checkpoint from memory while the block runs."""
        self._serving = True
        try:
            yield
        finally:
            self._serving = False

    def _owns(self, config: RunnableConfig) -> bool:
        configurable = config.get("configurable") or {}
        return str(configurable.get("thread_id")) == self.thread_id and not configurable.get(
            "checkpoint_ns"
        )


_KEPT: ContextVar[KeptCheckpoint | None] = ContextVar("olg_kept_checkpoint", default=None)


class RemembersLastCheckpoint:
    """Put before the saver's other layers in the bases (its input is still plaintext)."""

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        kept = _KEPT.get()
        if kept is None or not kept._owns(config):
            return await super().aput(config, checkpoint, metadata, new_versions)  # type: ignore[misc]
        kept.found = None
        stored: RunnableConfig = await super().aput(config, checkpoint, metadata, new_versions)  # type: ignore[misc]
        parent_id = config["configurable"].get("checkpoint_id")
        parent = (
            None
            if parent_id is None
            else {
                "configurable": {
                    "thread_id": kept.thread_id,
                    "checkpoint_ns": "",
                    "checkpoint_id": parent_id,
                }
            }
        )
        # The metadata as the savers store it, with the config's run fields merged in.
        stored_metadata = get_checkpoint_metadata(config, metadata)
        kept.found = CheckpointTuple(stored, checkpoint, stored_metadata, parent, [])
        return stored

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        kept = _KEPT.get()
        if kept is not None and kept._owns(config):
            # Writes against a checkpoint make the database's answer the one to give.
            kept.written.add(str(config["configurable"].get("checkpoint_id")))
        await super().aput_writes(config, writes, task_id, task_path)  # type: ignore[misc]

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        kept = _KEPT.get()
        if (
            kept is not None
            and kept._serving
            and (found := kept.found) is not None
            and found.config["configurable"]["checkpoint_id"] not in kept.written
            and kept._owns(config)
            and not config["configurable"].get("checkpoint_id")
        ):
            return found
        return await super().aget_tuple(config)  # type: ignore[misc]
