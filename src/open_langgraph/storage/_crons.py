"""Crons in the SQL every backend runs (`_sql.Dialect` for the rest).

Claiming a firing is a compare-and-set on `next_run_date` (`advance_cron`): of several
schedulers reading the same due cron, in one process or many sharing a database, exactly
one moves it on, and only that one fires. It needs no lock held across statements, so the
same statement serves SQLite (one writer at a time) and PostgreSQL (the row lock an UPDATE
takes makes a racing UPDATE re-read the row, find `next_run_date` changed, and change
nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from open_langgraph.storage._records import Shape
from open_langgraph.storage._sql import SqlBackend, auth_clause, conditions, order_clause
from open_langgraph.storage.base import AuthFilter, SortOrder, utc_now
from open_langgraph.storage.cron_base import CRON_UPDATABLE, CronStorage

#: `end_time` and `next_run_date` may be NULL, which `Shape`'s time kind does not take:
#: they are read as they are and turned into text by `_record`.
CRON = Shape.of(
    "cron_id",
    "assistant_id",
    "thread_id",
    "on_run_completed",
    "end_time",
    "schedule",
    "timezone",
    "created_at:time",
    "updated_at:time",
    "user_id",
    "payload:json",
    "next_run_date",
    "metadata:json",
    "enabled",
    "user=auth_user:json",
)
_JSON_COLUMNS = frozenset({"payload", "metadata"})
_OPTIONAL_TIMES = ("end_time", "next_run_date")


class CronQueries(SqlBackend, CronStorage):
    def _cron(self, row: Any) -> dict[str, Any]:
        record = CRON.record(row, self.dialect)
        for field in _OPTIONAL_TIMES:
            value = record[field]
            if value is not None and not isinstance(value, str):
                record[field] = self.dialect.load_time(value, timespec="microseconds")
        record["enabled"] = bool(record["enabled"])  # SQLite stores 0 and 1
        return record

    async def _one_cron(self, where: str, params: list[Any]) -> dict[str, Any] | None:
        row = await self.sql.one(f"SELECT {CRON.select} FROM crons WHERE {where}", params)
        return None if row is None else self._cron(row)

    async def create_cron(self, cron: Mapping[str, Any]) -> dict[str, Any]:
        d, at = self.dialect, self.dialect.time_param
        await self.sql.run(
            "INSERT INTO crons (cron_id, assistant_id, thread_id, on_run_completed, end_time, "
            "schedule, timezone, created_at, updated_at, user_id, payload, next_run_date, "
            "metadata, enabled, auth_user) "
            f"VALUES (?, ?, ?, ?, {at}, ?, ?, {at}, {at}, ?, ?, {at}, ?, ?, ?)",
            (
                cron["cron_id"],
                cron["assistant_id"],
                cron["thread_id"],
                cron["on_run_completed"],
                cron["end_time"],
                cron["schedule"],
                cron["timezone"],
                cron["created_at"],
                cron["updated_at"],
                cron["user_id"],
                d.json(cron["payload"]),
                cron["next_run_date"],
                d.json(cron["metadata"]),
                bool(cron["enabled"]),
                d.json(cron.get("user")),
            ),
        )
        stored = await self.get_cron(cron["cron_id"])
        assert stored is not None
        return stored

    async def get_cron(
        self, cron_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        params: list[Any] = [cron_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        return await self._one_cron(f"cron_id = ?{allowed}", params)

    async def update_cron(
        self,
        cron_id: str,
        changes: Mapping[str, Any],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any] | None:
        unknown = set(changes) - CRON_UPDATABLE
        if unknown:
            raise ValueError(f"crons have no updatable fields {sorted(unknown)}")
        d = self.dialect
        sets, params = [f"updated_at = {d.time_param}"], [utc_now()]
        for field, value in changes.items():
            if field == "metadata":
                sets.append(f"metadata = {d.merge_patch('metadata', value, params)}")
            elif field in _JSON_COLUMNS:
                sets.append(f"{field} = ?")
                params.append(d.json(value))
            elif field in _OPTIONAL_TIMES:
                sets.append(f"{field} = {d.time_param}")
                params.append(value)
            else:
                sets.append(f"{field} = ?")
                params.append(value)
        params.append(cron_id)
        allowed = auth_clause(d, auth_filter, params)
        changed = await self.sql.run(
            f"UPDATE crons SET {', '.join(sets)} WHERE cron_id = ?{allowed}", params
        )
        return await self.get_cron(cron_id) if changed else None

    async def delete_cron(self, cron_id: str, auth_filter: AuthFilter | None = None) -> bool:
        params: list[Any] = [cron_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        return await self.sql.run(f"DELETE FROM crons WHERE cron_id = ?{allowed}", params) > 0

    def _cron_filters(
        self,
        assistant_id: str | None,
        thread_id: str | None,
        enabled: bool | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None,
    ) -> tuple[str, list[Any]]:
        clauses, params = conditions(self.dialect, auth_filter)
        for column, value in (
            ("assistant_id", assistant_id),
            ("thread_id", thread_id),
            ("enabled", enabled),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if metadata:
            clauses.append(self.dialect.contains("metadata", metadata, params))
        return " AND ".join(clauses), params

    async def search_crons(
        self,
        *,
        assistant_id: str | None,
        thread_id: str | None,
        enabled: bool | None,
        metadata: dict[str, Any] | None,
        limit: int,
        offset: int,
        sort_by: str,
        sort_order: SortOrder,
        auth_filter: AuthFilter | None = None,
    ) -> list[dict[str, Any]]:
        where, params = self._cron_filters(assistant_id, thread_id, enabled, metadata, auth_filter)
        # sort_by is one of CRON_SORT_FIELDS, checked by the service: never user text in SQL.
        rows = await self.sql.all(
            f"SELECT {CRON.select} FROM crons WHERE {where} "
            f"{order_clause(self.dialect, sort_by, sort_order)} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [self._cron(row) for row in rows]

    async def count_crons(
        self,
        *,
        assistant_id: str | None,
        thread_id: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        where, params = self._cron_filters(assistant_id, thread_id, None, metadata, auth_filter)
        return await self._count("crons", where, params)

    async def due_crons(self, now: str, limit: int) -> list[dict[str, Any]]:
        at = self.dialect.time_param
        rows = await self.sql.all(
            f"SELECT {CRON.select} FROM crons WHERE enabled = TRUE "
            f"AND next_run_date <= {at} "
            "AND (end_time IS NULL OR next_run_date <= end_time) "
            "ORDER BY next_run_date LIMIT ?",
            (now, limit),
        )
        return [self._cron(row) for row in rows]

    async def advance_cron(self, cron_id: str, due: str, next_run_date: str) -> bool:
        at = self.dialect.time_param
        changed = await self.sql.run(
            f"UPDATE crons SET next_run_date = {at} "
            f"WHERE cron_id = ? AND enabled = TRUE AND next_run_date = {at}",
            (next_run_date, cron_id, due),
        )
        return changed == 1
