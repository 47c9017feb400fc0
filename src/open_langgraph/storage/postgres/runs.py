"""Runs and their stored stream events in PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_langgraph.storage.base import RunStatus, StoredEvent, ThreadUpdate, utc_now
from open_langgraph.storage.postgres import _checkpoints
from open_langgraph.storage.postgres._db import RUN_COLUMNS, PostgresBase, jsonb, run_record
from open_langgraph.storage.postgres.threads import apply_thread_update


class RunsMixin(PostgresBase):
    async def create_run(self, run: dict[str, Any], thread_update: ThreadUpdate) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,NULL,NULL)",
                (
                    run["run_id"],
                    run["thread_id"],
                    run["assistant_id"],
                    run["created_at"],
                    run["updated_at"],
                    run["status"],
                    jsonb(run["metadata"]),
                    jsonb(run["kwargs"]),
                    run["multitask_strategy"],
                ),
            )
            await apply_thread_update(conn, run["thread_id"], thread_update)

    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        row = await self.fetchone(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = %s", (run_id,))
        return None if row is None else run_record(row)

    async def list_runs(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]:
        sql = f"SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = %s"
        params: list[Any] = [thread_id]
        if status is not None:
            sql += " AND status = %s"
            params.append(status)
        rows = await self.fetchall(
            sql + " ORDER BY created_at DESC, seq DESC LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [run_record(r) for r in rows]

    async def delete_runs(self, run_ids: Sequence[str]) -> None:
        ids = list(run_ids)
        async with self.transaction() as conn:
            await conn.execute("DELETE FROM run_events WHERE run_id = ANY(%s)", (ids,))
            await conn.execute("DELETE FROM runs WHERE run_id = ANY(%s)", (ids,))

    async def set_run_status(self, run_id: str, status: RunStatus) -> None:
        await self.write(
            "UPDATE runs SET status = %s, updated_at = %s WHERE run_id = %s",
            (status, utc_now(), run_id),
        )

    async def finish_run(
        self,
        run_id: str,
        *,
        status: RunStatus,
        output: Any,
        error: dict[str, Any] | None,
        events: Sequence[StoredEvent],
        thread_update: ThreadUpdate | None,
    ) -> None:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "UPDATE runs SET status = %s, updated_at = %s, output = %s, error = %s "
                "WHERE run_id = %s RETURNING thread_id",
                (status, utc_now(), jsonb(output), jsonb(error), run_id),
            )
            row = await cur.fetchone()
            if events:
                async with conn.cursor() as many:
                    await many.executemany(
                        "INSERT INTO run_events (run_id, seq, event, data) "
                        "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [(run_id, e.seq, e.event, e.data) for e in events],
                    )
            if thread_update is not None and row is not None:
                await apply_thread_update(conn, row["thread_id"], thread_update)

    async def get_run_events(self, run_id: str, after_seq: int = -1) -> list[StoredEvent]:
        rows = await self.fetchall(
            "SELECT seq, event, data FROM run_events WHERE run_id = %s AND seq > %s ORDER BY seq",
            (run_id, after_seq),
        )
        return [StoredEvent(r["seq"], r["event"], bytes(r["data"])) for r in rows]

    async def delete_run_events_before(self, cutoff: str, max_runs: int) -> int:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "SELECT run_id FROM runs WHERE updated_at < %s::timestamptz "
                "AND status NOT IN ('pending', 'running') "
                "AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = runs.run_id) "
                "ORDER BY updated_at LIMIT %s",
                (cutoff, max_runs),
            )
            run_ids = [row["run_id"] for row in await cur.fetchall()]
            if run_ids:
                await conn.execute("DELETE FROM run_events WHERE run_id = ANY(%s)", (run_ids,))
        return len(run_ids)

    async def runs_in_flight(self) -> list[dict[str, Any]]:
        rows = await self.fetchall(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE status IN ('pending', 'running') "
            "ORDER BY created_at, seq"
        )
        return [run_record(r) for r in rows]

    async def release_idle_threads(self) -> int:
        return await self.write(
            "UPDATE threads SET status = 'idle', updated_at = %s WHERE status = 'busy' AND "
            "NOT EXISTS (SELECT 1 FROM runs WHERE runs.thread_id = threads.thread_id "
            "AND runs.status IN ('pending', 'running'))",
            (utc_now(),),
        )

    async def delete_checkpoints_of_runs(self, thread_id: str, run_ids: Sequence[str]) -> None:
        async with self.transaction() as conn:
            await _checkpoints.delete_checkpoints_of_runs(conn, thread_id, run_ids)
