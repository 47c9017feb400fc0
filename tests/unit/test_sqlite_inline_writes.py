"""Our inline checkpoint writes store exactly the rows the official `AsyncSqliteSaver` does,
so its reads (and every other reader of those tables) see no difference."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from open_langgraph.storage.sqlite._inline import connect_inline
from open_langgraph.storage.sqlite._saver import SqliteCheckpointer

_CONFIG = {"configurable": {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": "c0"}}
_METADATA = {"source": "loop", "step": 1, "parents": {}}
_WRITES = [("count", 1), ("__error__", "boom"), ("note", {"ü": [1, 2]})]
_ROWS = (
    "SELECT * FROM checkpoints ORDER BY checkpoint_id",
    "SELECT * FROM writes ORDER BY task_id, idx",
)


async def _write(saver: AsyncSqliteSaver) -> tuple[dict, list[list[tuple]]]:
    checkpoint = empty_checkpoint()
    checkpoint["id"] = "c1"
    checkpoint["ts"] = "2026-01-01T00:00:00+00:00"
    checkpoint["channel_values"] = {"count": 1}
    config = {**_CONFIG, "metadata": {"run_id": "r1", "graph_id": "g"}}
    returned = await saver.aput(config, checkpoint, _METADATA, {})
    await saver.aput_writes(returned, _WRITES[:1], "task-a", "~a")
    await saver.aput_writes(returned, _WRITES[1:], "task-b")
    rows = []
    for query in _ROWS:
        async with saver.conn.execute(query) as cursor:
            rows.append(list(await cursor.fetchall()))
    return returned, rows


async def test_inline_writes_match_the_official_saver(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "official.db") as conn:
        official = await _write(AsyncSqliteSaver(conn))
    conn = await connect_inline(tmp_path / "ours.db")
    try:
        saver = SqliteCheckpointer(conn)
        ours = await _write(saver)
        # And the saver reads them back: the checkpoint with its pending writes.
        read = await saver.aget_tuple({"configurable": {"thread_id": "t1", "checkpoint_ns": ""}})
    finally:
        await conn.close()
    assert ours == official
    assert read is not None and read.checkpoint["channel_values"] == {"count": 1}
    assert sorted(w[1] for w in read.pending_writes) == ["__error__", "count", "note"]
