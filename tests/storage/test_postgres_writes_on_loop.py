"""Our PostgreSQL checkpointer serialises a task's writes on the event loop and sends
one-statement writes without pipeline mode (`storage/postgres/_saver.py`), and stores
exactly the rows the official saver does."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage.postgres import PostgresStorage
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


async def _stored(saver: AsyncPostgresSaver, conn: Any, thread_id: str) -> dict[str, Any]:
    """What one checkpoint with blobs, one all inline, and their writes leave in the tables,
    and the config the last checkpoint was saved under."""
    config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    first = {**empty_checkpoint(), "id": "c1"}
    first["channel_values"] = {"messages": [{"a": 1}], "count": 1}
    first["channel_versions"] = {"messages": "1", "count": "1"}
    config = await saver.aput(config, first, {"source": "input", "step": -1}, {"messages": "1"})
    second = {**empty_checkpoint(), "id": "c2"}
    second["channel_values"] = {"count": 2}
    config = await saver.aput(config, second, {"source": "loop", "step": 0}, {"count": "2"})
    await saver.aput_writes(config, _WRITES, "task-a")
    await saver.aput_writes(config, _WRITES[:1], "task-b")
    rows = {}
    for table, order in (
        ("checkpoints", "checkpoint_id"),
        ("checkpoint_blobs", "channel, version"),
        ("checkpoint_writes", "task_id, idx"),
    ):
        cur = await conn.execute(
            f"SELECT * FROM {table} WHERE thread_id = %s ORDER BY {order}", (thread_id,)
        )
        rows[table] = [
            {k: _without_ts(v) if k == "checkpoint" else v for k, v in row.items()}
            for row in await cur.fetchall()
        ]
        for row in rows[table]:
            row.pop("thread_id")
    rows["config"] = [{**config["configurable"], "thread_id": None}]
    return rows


def _without_ts(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """A stored checkpoint but for its creation time, which differs between two savers."""
    return {k: v for k, v in checkpoint.items() if k != "ts"}


async def test_writes_on_a_pool_match_the_official_saver(postgres_url: str) -> None:
    """On a pool, ours sends a one-statement write without pipeline mode and the others in
    it: the rows are the official saver's either way, and deleting a thread still deletes
    everything."""
    async with PostgresStorage.from_url(postgres_url) as storage:
        ours = storage.checkpointer
        assert isinstance(ours.conn, AsyncConnectionPool)
        async with storage.pool.connection() as conn:
            official = AsyncPostgresSaver(conn)
            theirs = await _stored(official, conn, "pool-official")
            mine = await _stored(ours, conn, "pool-ours")
            assert mine == theirs
            assert [len(rows) for rows in mine.values()] == [2, 1, 4, 1]
            await ours.adelete_thread("pool-ours")
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
                cur = await conn.execute(
                    f"SELECT count(*) AS n FROM {table} WHERE thread_id = 'pool-ours'"
                )
                assert (await cur.fetchone())["n"] == 0
