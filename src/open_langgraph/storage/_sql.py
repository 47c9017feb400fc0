"""What the SQL backends share: a dialect for the SQL that differs, and how statements run.

Every query is written once, in the shared mixins (`_assistants`, `_threads`, `_runs`), with
`?` placeholders: SQLite's own style, which the PostgreSQL backend rewrites into psycopg's `%s`
(so a shared statement never holds a literal `?`). A backend contributes a `Dialect` (the
fragments whose SQL differs, and how its columns decode into API values) and the I/O: one
statement at a time (`sql`) or several in one transaction (`atomic()`).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from open_langgraph.storage.base import AuthFilter, SortOrder

if TYPE_CHECKING:
    from open_langgraph.storage._records import Shape

#: A result row: the selected columns, in order, whatever the driver's own row type.
Row = tuple[Any, ...]


class Statements(Protocol):
    """Runs statements written with `?` placeholders."""

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute a statement; returns the number of rows it changed."""
        ...

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class Dialect(abc.ABC):
    """The SQL fragments and column decodings in which two backends differ.

    Fragment builders append their parameters to `params`, in the order of their `?`s, so a
    statement's parameters stay in step with its text however it is assembled.
    """

    #: A placeholder for an ISO-8601 UTC time where no column gives it a type.
    time_param: ClassVar[str]
    #: Case-insensitive LIKE.
    ilike: ClassVar[str]
    #: The column ordering rows inserted in the same instant: insertion order.
    tiebreak: ClassVar[str]
    #: Ends a SELECT of a row about to be rewritten, so concurrent rewrites take turns.
    lock_rows: ClassVar[str]

    @abc.abstractmethod
    def json(self, value: Any) -> Any:
        """A JSON parameter; Python None stays SQL NULL."""

    @abc.abstractmethod
    def contains(self, column: str, pattern: Any, params: list[Any]) -> str:
        """`column` (JSON) contains `pattern` as jsonb `@>` defines it (`storage/filters.py`)."""

    @abc.abstractmethod
    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        """`column` equals one of `values` (none: no row)."""

    @abc.abstractmethod
    def merge_patch(self, column: str, patch: Any, params: list[Any]) -> str:
        """`column` with the RFC 7396 JSON merge patch `patch` applied."""

    @abc.abstractmethod
    def auth(self, auth_filter: AuthFilter, params: list[Any]) -> str:
        """Rows whose `metadata` lies inside an authorization filter (`storage/filters.py`)."""

    @abc.abstractmethod
    def load_json(self, stored: Any) -> Any:
        """A JSON column's value as Python data."""

    @abc.abstractmethod
    def load_time(self, stored: Any, timespec: str = "auto") -> str:
        """A time column's value as the ISO-8601 UTC text `utc_now()` produces."""


def auth_clause(dialect: Dialect, auth_filter: AuthFilter | None, params: list[Any]) -> str:
    """` AND <metadata inside the filter>` (its parameters appended), or nothing."""
    return "" if auth_filter is None else f" AND {dialect.auth(auth_filter, params)}"


def conditions(dialect: Dialect, auth_filter: AuthFilter | None) -> tuple[list[str], list[Any]]:
    """The start of a search's WHERE clauses and parameters: all rows, or those inside
    `auth_filter`; the caller ANDs its own filters on."""
    clauses, params = ["1=1"], []
    if auth_filter is not None:
        clauses.append(dialect.auth(auth_filter, params))
    return clauses, params


def order_clause(dialect: Dialect, sort_by: str, sort_order: SortOrder) -> str:
    # sort_by is checked against a fixed set by the caller; never user text in SQL.
    direction = "ASC" if sort_order == "asc" else "DESC"
    return f"ORDER BY {sort_by} {direction}, {dialect.tiebreak} {direction}"


def escape_like(text: str) -> str:
    """`text` as a LIKE pattern (with `ESCAPE '\\'`) matching it anywhere, wildcards literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class SqlBackend(abc.ABC):
    """What the shared query mixins need of a backend."""

    dialect: ClassVar[Dialect]
    #: Statements each committed on its own.
    sql: Statements

    @abc.abstractmethod
    def atomic(self) -> AbstractAsyncContextManager[Statements]:
        """Statements in one transaction: committed together, or rolled back on an error."""

    async def ping(self) -> None:
        """One round trip to the database, on the connection statements use (PostgreSQL: a
        pooled one, so an exhausted pool does not answer either); raises when it fails."""
        await self.sql.one("SELECT 1")

    async def _record(self, shape: Shape, sql: str, params: Sequence[Any]) -> dict[str, Any] | None:
        """The record `sql` selects (its columns: `shape.select`), if any."""
        row = await self.sql.one(sql, params)
        return None if row is None else shape.record(row, self.dialect)

    async def _records(self, shape: Shape, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        return [shape.record(row, self.dialect) for row in await self.sql.all(sql, params)]

    async def _page(
        self,
        shape: Shape,
        table: str,
        where: str,
        params: Sequence[Any],
        *,
        sort_by: str,
        sort_order: SortOrder,
        limit: int,
        offset: int,
    ) -> list[dict[str, Any]]:
        """One page of the records of `table` matching `where`, in the order asked for."""
        return await self._records(
            shape,
            f"SELECT {shape.select} FROM {table} WHERE {where} "
            f"{order_clause(self.dialect, sort_by, sort_order)} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )

    async def _count(self, table: str, where: str, params: Sequence[Any]) -> int:
        row = await self.sql.one(f"SELECT COUNT(*) FROM {table} WHERE {where}", params)
        return int(row[0]) if row else 0
