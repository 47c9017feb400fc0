"""Connection pool, SQL fragments and row decoding shared by the PostgreSQL storage mixins."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from psycopg import AsyncConnection
from psycopg.rows import DictRow
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage.base import AuthFilter, SortOrder

ASSISTANT_COLUMNS = (
    "assistant_id, graph_id, config, context, metadata, name, description, version, "
    "created_at, updated_at"
)
THREAD_COLUMNS = (
    "thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "
    "state_values, interrupts, error"
)
RUN_COLUMNS = (
    "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, "
    "multitask_strategy, output, error"
)
_AUTH_OPERATORS = frozenset({"$eq", "$contains"})

Conn = AsyncConnection[DictRow]


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def jsonb(value: Any) -> Jsonb | None:
    """A JSON parameter; Python None stays SQL NULL (as SQLite's NULL columns).

    Serialised with orjson, as the SQLite backend does, so both accept the same values
    (datetimes, UUIDs, dataclasses) and refuse the same ones.
    """
    return None if value is None else json_value(value)


def json_value(value: Any) -> Jsonb:
    """A JSON parameter where None means JSON `null`, as in a filter's values."""
    return Jsonb(value, dumps=_dumps)


def iso(moment: datetime, timespec: str = "auto") -> str:
    """TIMESTAMPTZ back to the ISO-8601 UTC text `utc_now()` produces."""
    return moment.astimezone(UTC).isoformat(timespec=timespec)


def auth_condition(auth_filter: AuthFilter, params: list[Any]) -> str:
    """SQL keeping the rows whose `metadata` lies inside an authorization filter.

    The same meaning as `storage.filters.matches_auth_filter`: jsonb `=` is exact equality
    (`true` is not `1`, `{"id": "a"}` is not `{"id": "a", "x": 1}`) and `$contains` asks
    for a list holding each value, compared with `=` too, never with containment.
    """
    clauses: list[str] = []
    for key, condition in auth_filter.items():
        if key == "$or":
            groups = [auth_condition(group, params) for group in condition]
            clauses.append(f"({' OR '.join(groups)})" if groups else "FALSE")
        elif key == "$and":
            groups = [auth_condition(group, params) for group in condition]
            clauses.append(f"({' AND '.join(groups)})" if groups else "TRUE")
        elif (
            isinstance(condition, dict)
            and len(condition) == 1
            and next(iter(condition)) in _AUTH_OPERATORS
        ):
            ((operator, value),) = condition.items()
            if operator == "$eq":
                clauses.append("metadata -> %s::text = %s")
                params.extend((key, json_value(value)))
                continue
            wanted = value if isinstance(value, list) else [value]
            clauses.append("jsonb_typeof(metadata -> %s::text) = 'array'")
            params.append(key)
            for item in wanted:
                clauses.append(
                    "EXISTS (SELECT 1 FROM jsonb_array_elements(metadata -> %s::text) AS e "
                    "WHERE e.value = %s)"
                )
                params.extend((key, json_value(item)))
        else:
            clauses.append("metadata -> %s::text = %s")
            params.extend((key, json_value(condition)))
    return f"({' AND '.join(clauses)})" if clauses else "TRUE"


def auth_clause(auth_filter: AuthFilter | None, params: list[Any]) -> str:
    """` AND <metadata inside the filter>` (its parameters appended), or nothing."""
    if auth_filter is None:
        return ""
    return f" AND {auth_condition(auth_filter, params)}"


def order_clause(sort_by: str, sort_order: SortOrder) -> str:
    # sort_by is checked against a fixed set by the caller; never user text in SQL.
    direction = "ASC" if sort_order == "asc" else "DESC"
    return f"ORDER BY {sort_by} {direction}, seq {direction}"


def assistant_record(row: DictRow) -> dict[str, Any]:
    return {
        "assistant_id": row["assistant_id"],
        "graph_id": row["graph_id"],
        "config": row["config"],
        "context": row["context"],
        "metadata": row["metadata"],
        "name": row["name"],
        "description": row["description"],
        "version": row["version"],
        "created_at": iso(row["created_at"]),
        "updated_at": iso(row["updated_at"]),
    }


def thread_record(row: DictRow) -> dict[str, Any]:
    return {
        "thread_id": row["thread_id"],
        "created_at": iso(row["created_at"]),
        "updated_at": iso(row["updated_at"]),
        "state_updated_at": iso(row["state_updated_at"]),
        "metadata": row["metadata"],
        "status": row["status"],
        "config": row["config"],
        "values": row["state_values"],
        "interrupts": row["interrupts"],
        "error": row["error"],
    }


def run_record(row: DictRow) -> dict[str, Any]:
    return {
        "run_id": row["run_id"],
        "thread_id": row["thread_id"],
        "assistant_id": row["assistant_id"],
        "created_at": iso(row["created_at"]),
        "updated_at": iso(row["updated_at"]),
        "status": row["status"],
        "metadata": row["metadata"],
        "kwargs": row["kwargs"],
        "multitask_strategy": row["multitask_strategy"],
        "output": row["output"],
        "error": row["error"],
    }


class PostgresBase:
    """A psycopg 3 pool (autocommit, dict rows) shared with the official async saver.

    Our multi-statement writes run in explicit transactions on one pooled connection; the
    saver takes its own connections from the same pool.
    """

    def __init__(self, pool: AsyncConnectionPool[Conn]) -> None:
        self.pool = pool

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self.pool.connection() as conn, conn.transaction():
            yield conn

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> DictRow | None:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, params)  # type: ignore[arg-type]
            return await cur.fetchone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[DictRow]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, params)  # type: ignore[arg-type]
            return await cur.fetchall()

    async def write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One autocommitted statement; returns the number of rows it changed."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, params)  # type: ignore[arg-type]
            return cur.rowcount
