"""Our PostgreSQL checkpointer serialises a task's writes on the event loop
(`storage/postgres/_saver.py`) and stores exactly the rows the official saver does."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg import AsyncConnection
from psycopg.rows import dict_row

from open_langgraph.storage.postgres._saver import PostgresCheckpointer

_WRITES = [("count", 1), ("note", {"ü": [1, 2]}), ("__error__", "boom")]


async def _rows(saver: AsyncPostgresSaver, thread_id: str) -> list[dict[str, Any]]:
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": "c1"}}
    await saver.aput_writes(config, _WRITES[:2], "task-a", "~a")
    await saver.aput_writes(config, _WRITES[2:], "task-b")
    async with saver.conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT * FROM checkpoint_writes WHERE thread_id = %s ORDER BY task_id, idx",
            (thread_id,),
        )
        rows = await cur.fetchall()
    return [{k: v for k, v in row.items() if k != "thread_id"} for row in rows]


async def test_writes_match_the_official_saver(postgres_url: str) -> None:
    async with await AsyncConnection.connect(
        postgres_url, autocommit=True, prepare_threshold=0, row_factory=dict_row
    ) as conn:
        official = AsyncPostgresSaver(conn)
        await official.setup()
        ours = PostgresCheckpointer(conn)
        assert await _rows(ours, "t-ours") == await _rows(official, "t-official")
        assert len(await _rows(ours, "t-ours")) == 3
