"""Runs and their stored stream events, in the SQL every backend runs (`_sql.Dialect` for the
rest). Rollback (`delete_checkpoints_of_runs`) is each backend's own: no saver has a public
API for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_langgraph.storage._records import RUN
from open_langgraph.storage._sql import SqlBackend
from open_langgraph.storage._threads import thread_update_statement
from open_langgraph.storage.base import RunStatus, StoredEvent, ThreadUpdate, utc_now

_IN_FLIGHT = "('pending', 'running')"
_THREAD_OF_RUN = "(SELECT thread_id FROM runs WHERE run_id = ?)"


class RunQueries(SqlBackend):
    async def create_run(self, run: dict[str, Any], thread_update: ThreadUpdate) -> None:
        d = self.dialect
        async with self.atomic() as tx:
            await tx.run(
                f"INSERT INTO runs ({RUN.select}) VALUES (?,?,?,?,?,?,?,?,?,NULL,NULL)",
                (
                    run["run_id"],
                    run["thread_id"],
                    run["assistant_id"],
                    run["created_at"],
                    run["updated_at"],
                    run["status"],
                    d.json(run["metadata"]),
                    d.json(run["kwargs"]),
                    run["multitask_strategy"],
                ),
            )
            await tx.run(*thread_update_statement(d, run["thread_id"], thread_update))

    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        return await self._record(RUN, f"SELECT {RUN.select} FROM runs WHERE run_id = ?", (run_id,))

    async def list_runs(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]:
        sql = f"SELECT {RUN.select} FROM runs WHERE thread_id = ?"
        params: list[Any] = [thread_id]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        tiebreak = self.dialect.tiebreak
        return await self._records(
            RUN,
            f"{sql} ORDER BY created_at DESC, {tiebreak} DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )

    async def delete_runs(self, run_ids: Sequence[str]) -> None:
        async with self.atomic() as tx:
            for table in ("run_events", "run_traces", "runs"):
                params: list[Any] = []
                listed = self.dialect.any_of("run_id", run_ids, params)
                await tx.run(f"DELETE FROM {table} WHERE {listed}", params)

    async def set_run_status(self, run_id: str, status: RunStatus) -> None:
        await self.sql.run(
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
        trace: bytes | None = None,
    ) -> None:
        d = self.dialect
        async with self.atomic() as tx:
            await tx.run(
                "UPDATE runs SET status = ?, updated_at = ?, output = ?, error = ? "
                "WHERE run_id = ?",
                (status, utc_now(), d.json(output), d.json(error), run_id),
            )
            if events:
                await tx.run_many(
                    "INSERT INTO run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    [(run_id, e.seq, e.event, e.data) for e in events],
                )
            if trace is not None:
                await tx.run(
                    "INSERT INTO run_traces (run_id, data) VALUES (?, ?) "
                    "ON CONFLICT (run_id) DO UPDATE SET data = excluded.data",
                    (run_id, trace),
                )
            if thread_update is not None:
                # The run's thread found by the same statement: one round trip fewer per run.
                await tx.run(
                    *thread_update_statement(d, run_id, thread_update, thread=_THREAD_OF_RUN)
                )

    async def get_run_events(self, run_id: str, after_seq: int = -1) -> list[StoredEvent]:
        rows = await self.sql.all(
            "SELECT seq, event, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, after_seq),
        )
        return [StoredEvent(seq, event, bytes(data)) for seq, event, data in rows]

    async def get_run_trace(self, run_id: str) -> bytes | None:
        row = await self.sql.one("SELECT data FROM run_traces WHERE run_id = ?", (run_id,))
        return None if row is None else bytes(row[0])

    async def delete_run_events_before(self, cutoff: str, max_runs: int) -> int:
        async with self.atomic() as tx:
            rows = await tx.all(
                f"SELECT run_id FROM runs WHERE updated_at < {self.dialect.time_param} "
                f"AND status NOT IN {_IN_FLIGHT} "
                "AND (EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = runs.run_id) "
                "OR EXISTS (SELECT 1 FROM run_traces t WHERE t.run_id = runs.run_id)) "
                "ORDER BY updated_at LIMIT ?",
                (cutoff, max_runs),
            )
            run_ids = [row[0] for row in rows]
            for table in ("run_events", "run_traces") if run_ids else ():
                params: list[Any] = []
                listed = self.dialect.any_of("run_id", run_ids, params)
                await tx.run(f"DELETE FROM {table} WHERE {listed}", params)
        return len(run_ids)

    async def runs_in_flight(self) -> list[dict[str, Any]]:
        return await self._records(
            RUN,
            f"SELECT {RUN.select} FROM runs WHERE status IN {_IN_FLIGHT} "
            f"ORDER BY created_at, {self.dialect.tiebreak}",
            (),
        )

    async def count_runs_in_flight(self) -> dict[str, int]:
        rows = await self.sql.all(
            f"SELECT status, COUNT(*) FROM runs WHERE status IN {_IN_FLIGHT} GROUP BY status"
        )
        return {str(status): int(count) for status, count in rows}

    async def release_idle_threads(self) -> int:
        return await self.sql.run(
            "UPDATE threads SET status = 'idle', updated_at = ? WHERE status = 'busy' AND "
            "NOT EXISTS (SELECT 1 FROM runs WHERE runs.thread_id = threads.thread_id "
            f"AND runs.status IN {_IN_FLIGHT})",
            (utc_now(),),
        )
