"""Runs and their stored stream events in SQLite."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_langgraph.storage.base import RunStatus, StoredEvent, ThreadUpdate, utc_now
from open_langgraph.storage.sqlite._db import RUN_COLUMNS, SqliteBase, dump, run_record
from open_langgraph.storage.sqlite.threads import apply_thread_update


class RunsMixin(SqliteBase):
    async def create_run(self, run: dict[str, Any], thread_update: ThreadUpdate) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,NULL,NULL)",
                (
                    run["run_id"],
                    run["thread_id"],
                    run["assistant_id"],
                    run["created_at"],
                    run["updated_at"],
                    run["status"],
                    dump(run["metadata"]),
                    dump(run["kwargs"]),
                    run["multitask_strategy"],
                ),
            )
            await apply_thread_update(conn, run["thread_id"], thread_update)

    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        row = await self.fetchone(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,))
        return None if row is None else run_record(row)

    async def list_runs(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]:
        sql = f"SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = ?"
        params: list[Any] = [thread_id]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        rows = await self.fetchall(
            sql + " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [run_record(r) for r in rows]

    async def delete_runs(self, run_ids: Sequence[str]) -> None:
        marks = ",".join("?" * len(run_ids))
        async with self.transaction() as conn:
            await conn.execute(f"DELETE FROM run_events WHERE run_id IN ({marks})", run_ids)
            await conn.execute(f"DELETE FROM runs WHERE run_id IN ({marks})", run_ids)

    async def set_run_status(self, run_id: str, status: RunStatus) -> None:
        await self.write(
            "UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?",
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
            await conn.execute(
                "UPDATE runs SET status = ?, updated_at = ?, output = ?, error = ? "
                "WHERE run_id = ?",
                (
                    status,
                    utc_now(),
                    None if output is None else dump(output),
                    None if error is None else dump(error),
                    run_id,
                ),
            )
            if events:
                await conn.executemany(
                    "INSERT OR IGNORE INTO run_events (run_id, seq, event, data) "
                    "VALUES (?, ?, ?, ?)",
                    [(run_id, e.seq, e.event, e.data) for e in events],
                )
            if thread_update is not None:
                async with conn.execute(
                    "SELECT thread_id FROM runs WHERE run_id = ?", (run_id,)
                ) as cur:
                    row = await cur.fetchone()
                if row is not None:
                    await apply_thread_update(conn, row[0], thread_update)

    async def get_run_events(self, run_id: str, after_seq: int = -1) -> list[StoredEvent]:
        rows = await self.fetchall(
            "SELECT seq, event, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, after_seq),
        )
        return [StoredEvent(seq, event, bytes(data)) for seq, event, data in rows]

    async def delete_run_events_before(self, cutoff: str, max_runs: int) -> int:
        rows = await self.fetchall(
            "SELECT run_id FROM runs WHERE updated_at < ? "
            "AND status NOT IN ('pending', 'running') "
            "AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = runs.run_id) "
            "ORDER BY updated_at LIMIT ?",
            (cutoff, max_runs),
        )
        run_ids = [row[0] for row in rows]
        if run_ids:
            marks = ",".join("?" * len(run_ids))
            await self.write(f"DELETE FROM run_events WHERE run_id IN ({marks})", run_ids)
        return len(run_ids)

    async def runs_in_flight(self) -> list[dict[str, Any]]:
        rows = await self.fetchall(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE status IN ('pending', 'running') "
            "ORDER BY created_at, rowid"
        )
        return [run_record(r) for r in rows]

    async def release_idle_threads(self) -> int:
        return await self.write(
            "UPDATE threads SET status = 'idle', updated_at = ? WHERE status = 'busy' AND "
            "NOT EXISTS (SELECT 1 FROM runs WHERE runs.thread_id = threads.thread_id "
            "AND runs.status IN ('pending', 'running'))",
            (utc_now(),),
        )

    async def delete_checkpoints_of_runs(self, thread_id: str, run_ids: Sequence[str]) -> None:
        marks = ",".join("?" * len(run_ids))
        created = (
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND "
            f"json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
        )
        async with self.transaction() as conn:
            await conn.execute(
                f"DELETE FROM writes WHERE thread_id = ? AND checkpoint_id IN ({created})",
                (thread_id, thread_id, *run_ids),
            )
            await conn.execute(
                f"DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id IN ({created})",
                (thread_id, thread_id, *run_ids),
            )
