"""SQLite's side of the shared queries: its dialect, and statements on the saver's connection."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import aiosqlite
import orjson
from langgraph.checkpoint.serde.base import SerializerProtocol

from open_langgraph.storage._sql import Dialect, Row, SqlBackend
from open_langgraph.storage.base import AuthFilter
from open_langgraph.storage.sqlite._inline import InlineConnection
from open_langgraph.storage.sqlite._saver import SqliteCheckpointer


def dump(value: Any) -> str:
    return orjson.dumps(value).decode()


def _string_equality(key: str, condition: Any) -> str | None:
    """The value of a `key == "string"` condition SQLite can check natively, else None."""
    if isinstance(condition, dict) and len(condition) == 1 and "$eq" in condition:
        condition = condition["$eq"]
    if isinstance(condition, str) and key and not any(c in key for c in '"\\'):
        return condition
    return None


class SqliteDialect(Dialect):
    """JSON is text (orjson), times are ISO-8601 text, and JSON matching runs the Python
    definitions of `storage/filters.py`, registered on the connection as SQL functions."""

    time_param = "?"
    ilike = "LIKE"  # case-insensitive for ASCII already
    tiebreak = "rowid"
    lock_rows = ""  # our writes hold the saver's lock: one at a time

    def json(self, value: Any) -> str | None:
        return None if value is None else dump(value)

    def contains(self, column: str, pattern: Any, params: list[Any]) -> str:
        params.append(dump(pattern))
        return f"olg_json_contains({column}, ?)"

    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        params.extend(values)
        return f"{column} IN ({','.join('?' * len(values))})"

    def merge_patch(self, column: str, patch: Any, params: list[Any]) -> str:
        params.append(dump(patch))
        return f"json_patch({column}, ?)"

    def auth(self, auth_filter: AuthFilter, params: list[Any]) -> str:
        """Equality with a string (`{"owner": x}`, by far the most common filter) is checked
        with SQLite's own JSON functions, in C; the rest of the filter goes to
        `olg_auth_filter`, which parses each row's metadata in Python."""
        clauses: list[str] = []
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
        return " AND ".join(clauses)

    def load_json(self, stored: str | None) -> Any:
        return None if stored is None else orjson.loads(stored)

    def load_time(self, stored: str, timespec: str = "auto") -> str:
        return stored  # stored as `utc_now()` wrote it


class _InTransaction:
    """Statements inside a transaction the caller holds the lock of and commits.

    On our inline connection (always, when served) they run through its `execute_now`,
    without aiosqlite's cursor wrappers; on another aiosqlite connection, through those."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._inline = conn if isinstance(conn, InlineConnection) else None

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        if self._inline is not None:
            cursor = await self._inline.execute_now(sql, params)
            try:
                return cursor.fetchone()  # type: ignore[no-any-return]  # tuples
            finally:
                cursor.close()
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()  # type: ignore[return-value]  # sqlite3 rows are tuples

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._inline is not None:
            cursor = await self._inline.execute_now(sql, params)
            try:
                return cursor.fetchall()
            finally:
                cursor.close()
        async with self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())  # type: ignore[arg-type]  # tuples, as above

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        if self._inline is not None:
            cursor = await self._inline.execute_now(sql, params)
            count = cursor.rowcount
            cursor.close()
            return count
        async with self._conn.execute(sql, params) as cur:
            return cur.rowcount

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self._inline is not None:
            (await self._inline.executemany_now(sql, list(rows))).close()
            return
        await self._conn.executemany(sql, rows)


class _Autocommit(_InTransaction):
    """Reads as they come; each write in a transaction of its own, rolled back on an error."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        begin: Callable[[], AbstractAsyncContextManager[aiosqlite.Connection]],
    ) -> None:
        super().__init__(conn)
        self._begin = begin

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._begin() as conn:
            return await _InTransaction(conn).run(sql, params)

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self._begin() as conn:
            await _InTransaction(conn).run_many(sql, rows)


class SqliteBase(SqlBackend):
    """One aiosqlite connection shared with the official SQLite checkpointer.

    Writes take the saver's lock, so a multi-statement transaction of ours never has a
    checkpoint commit land in its middle (and must not call the saver, which takes it too).
    """

    dialect = SqliteDialect()

    def __init__(self, conn: aiosqlite.Connection, serde: SerializerProtocol | None = None) -> None:
        self.conn = conn
        # `serde` None: the saver's default serializer (config `checkpointer.serde` unset).
        self.checkpointer = SqliteCheckpointer(conn, serde=serde)
        self._lock = self.checkpointer.lock
        self.sql = _Autocommit(conn, self.transaction)

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

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[_InTransaction]:
        async with self.transaction() as conn:
            yield _InTransaction(conn)
