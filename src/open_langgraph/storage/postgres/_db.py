"""PostgreSQL's side of the shared queries: its dialect, and statements on the pool."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from psycopg import AsyncConnection
from psycopg.rows import DictRow, tuple_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._records import RUN
from open_langgraph.storage._sql import Dialect, Row, SqlBackend
from open_langgraph.storage.base import AuthFilter

#: The columns `run_record` reads, for PostgreSQL-only queries of whole runs.
RUN_COLUMNS = RUN.select
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


@functools.lru_cache(maxsize=1024)
def pyformat(sql: str) -> str:
    """A shared statement's `?` placeholders as psycopg's `%s` (and a literal `%` as `%%`)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresDialect(Dialect):
    """jsonb and timestamptz columns; JSON matching with jsonb's own operators."""

    time_param = "?::timestamptz"
    ilike = "ILIKE"
    tiebreak = "seq"
    # Two concurrent patches of an assistant take turns, so each gets its own version.
    lock_rows = " FOR UPDATE"

    def json(self, value: Any) -> Jsonb | None:
        return jsonb(value)

    def contains(self, column: str, pattern: Any, params: list[Any]) -> str:
        params.append(jsonb(pattern))
        return f"{column} @> ?"

    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        params.append(list(values))
        return f"{column} = ANY(?)"

    def merge_patch(self, column: str, patch: Any, params: list[Any]) -> str:
        params.append(jsonb(patch))
        return f"olg_merge_patch({column}, ?)"

    def auth(self, auth_filter: AuthFilter, params: list[Any]) -> str:
        """The same meaning as `storage.filters.matches_auth_filter`: jsonb `=` is exact
        equality (`true` is not `1`, `{"id": "a"}` is not `{"id": "a", "x": 1}`) and
        `$contains` asks for a list holding each value, compared with `=` too, never with
        containment."""
        clauses: list[str] = []
        for key, condition in auth_filter.items():
            if key == "$or":
                groups = [self.auth(group, params) for group in condition]
                clauses.append(f"({' OR '.join(groups)})" if groups else "FALSE")
            elif key == "$and":
                groups = [self.auth(group, params) for group in condition]
                clauses.append(f"({' AND '.join(groups)})" if groups else "TRUE")
            elif (
                isinstance(condition, dict)
                and len(condition) == 1
                and next(iter(condition)) in _AUTH_OPERATORS
            ):
                ((operator, value),) = condition.items()
                if operator == "$eq":
                    clauses.append("metadata -> ?::text = ?")
                    params.extend((key, json_value(value)))
                    continue
                wanted = value if isinstance(value, list) else [value]
                clauses.append("jsonb_typeof(metadata -> ?::text) = 'array'")
                params.append(key)
                for item in wanted:
                    clauses.append(
                        "EXISTS (SELECT 1 FROM jsonb_array_elements(metadata -> ?::text) AS e "
                        "WHERE e.value = ?)"
                    )
                    params.extend((key, json_value(item)))
            else:
                clauses.append("metadata -> ?::text = ?")
                params.extend((key, json_value(condition)))
        return f"({' AND '.join(clauses)})" if clauses else "TRUE"

    def load_json(self, stored: Any) -> Any:
        return stored  # psycopg parses jsonb

    def load_time(self, stored: datetime, timespec: str = "auto") -> str:
        return iso(stored, timespec)


POSTGRES = PostgresDialect()


def run_record(row: DictRow) -> dict[str, Any]:
    """A run selected with `RUN_COLUMNS` by a PostgreSQL-only query, as its API record."""
    return RUN.record([row[column.name] for column in RUN.columns], POSTGRES)


class OnConnection:
    """Shared statements on one connection (in the caller's transaction, if any)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        async with self._conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(pyformat(sql), params)
            return await cur.fetchone()

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with self._conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(pyformat(sql), params)
            return await cur.fetchall()

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._conn.cursor() as cur:
            await cur.execute(pyformat(sql), params)
            return cur.rowcount

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self._conn.cursor() as cur:
            await cur.executemany(pyformat(sql), rows)


class _Pooled:
    """Each statement on a connection of its own from the pool, autocommitted."""

    def __init__(self, pool: AsyncConnectionPool[Conn]) -> None:
        self._pool = pool

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        async with self._pool.connection() as conn:
            return await OnConnection(conn).one(sql, params)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with self._pool.connection() as conn:
            return await OnConnection(conn).all(sql, params)

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._pool.connection() as conn:
            return await OnConnection(conn).run(sql, params)

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await OnConnection(conn).run_many(sql, rows)


class PostgresBase(SqlBackend):
    """A psycopg 3 pool (autocommit, dict rows) shared with the official async saver.

    Our multi-statement writes run in explicit transactions on one pooled connection; the
    saver takes its own connections from the same pool. `transaction`, `fetchone`,
    `fetchall` and `write` serve PostgreSQL-only queries, written with `%s` and read as
    dict rows.
    """

    dialect = POSTGRES

    def __init__(self, pool: AsyncConnectionPool[Conn]) -> None:
        self.pool = pool
        self.sql = _Pooled(pool)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self.pool.connection() as conn, conn.transaction():
            yield conn

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[OnConnection]:
        async with self.transaction() as conn:
            yield OnConnection(conn)

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
