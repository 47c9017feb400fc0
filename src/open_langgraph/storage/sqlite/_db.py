"""Connection handling and row decoding shared by the SQLite storage mixins."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiosqlite
import orjson

from open_langgraph.storage.base import AuthFilter, SortOrder
from open_langgraph.storage.sqlite._saver import SqliteCheckpointer

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


def dump(value: Any) -> str:
    return orjson.dumps(value).decode()


def load(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _string_equality(key: str, condition: Any) -> str | None:
    """The value of a `key == "string"` condition SQLite can check natively, else None."""
    if isinstance(condition, dict) and len(condition) == 1 and "$eq" in condition:
        condition = condition["$eq"]
    if isinstance(condition, str) and key and not any(c in key for c in '"\\'):
        return condition
    return None


def auth_condition(auth_filter: AuthFilter) -> tuple[str, tuple[Any, ...]]:
    """SQL keeping the rows whose `metadata` lies inside an authorization filter.

    Equality with a string (`{"owner": x}`, by far the most common filter) is checked with
    SQLite's own JSON functions, in C; the rest of the filter goes to `olg_auth_filter`
    (`storage/filters.py`), which parses each row's metadata in Python.
    """
    clauses: list[str] = []
    params: list[Any] = []
    rest: dict[str, Any] = {}
    for key, condition in auth_filter.items():
        value = None if key.startswith("$") else _string_equality(key, condition)
        if value is None:
            rest[key] = condition
            continue
        path = f'$."{key}"'
        clauses.append("json_type(metadata, ?) = 'text' AND json_extract(metadata, ?) = ?")
        params.extend((path, path, value))
    if rest or not clauses:
        clauses.append("olg_auth_filter(metadata, ?)")
        params.append(dump(rest))
    return " AND ".join(clauses), tuple(params)


def auth_clause(auth_filter: AuthFilter | None) -> tuple[str, tuple[Any, ...]]:
    """` AND <metadata inside the filter>` and its parameters, or nothing without a filter."""
    if auth_filter is None:
        return "", ()
    condition, params = auth_condition(auth_filter)
    return f" AND {condition}", params


def order_clause(sort_by: str, sort_order: SortOrder) -> str:
    # sort_by is checked against a fixed set by the caller; never user text in SQL.
    direction = "ASC" if sort_order == "asc" else "DESC"
    return f"ORDER BY {sort_by} {direction}, rowid {direction}"


def assistant_record(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "assistant_id": row[0],
        "graph_id": row[1],
        "config": load(row[2]),
        "context": load(row[3]),
        "metadata": load(row[4]),
        "name": row[5],
        "description": row[6],
        "version": row[7],
        "created_at": row[8],
        "updated_at": row[9],
    }


def thread_record(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "thread_id": row[0],
        "created_at": row[1],
        "updated_at": row[2],
        "state_updated_at": row[3],
        "metadata": load(row[4]),
        "status": row[5],
        "config": load(row[6]),
        "values": load(row[7]),
        "interrupts": load(row[8]),
        "error": load(row[9]),
    }


def run_record(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "run_id": row[0],
        "thread_id": row[1],
        "assistant_id": row[2],
        "created_at": row[3],
        "updated_at": row[4],
        "status": row[5],
        "metadata": load(row[6]),
        "kwargs": load(row[7]),
        "multitask_strategy": row[8],
        "output": load(row[9]),
        "error": load(row[10]),
    }


class SqliteBase:
    """One aiosqlite connection shared with the official SQLite checkpointer.

    Writes take the saver's lock, so a multi-statement transaction of ours never has a
    checkpoint commit land in its middle.
    """

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self.checkpointer = SqliteCheckpointer(conn)
        self._lock = self.checkpointer.lock

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        # sqlite3's implicit transactions (as the saver uses them): the first write opens
        # one, commit() ends it.
        async with self._lock:
            try:
                yield self.conn
            except BaseException:
                await self.conn.rollback()
                raise
            await self.conn.commit()

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        async with self.conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        async with self.conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One autocommitted statement; returns the number of rows it changed."""
        async with self._lock:
            async with self.conn.execute(sql, params) as cur:
                count = cur.rowcount
            await self.conn.commit()
            return count
