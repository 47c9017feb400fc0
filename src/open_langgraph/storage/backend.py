"""Which backend a server opens: PostgreSQL for a `postgresql://` URL, else the SQLite file."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

from open_langgraph.storage.base import Storage, StoreSettings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(url: str) -> bool:
    return url.startswith(POSTGRES_SCHEMES)


def database_label(database_url: str | None, db_path: Path) -> str:
    """What logs and messages call the database: never the password a URL may carry."""
    if not database_url:
        return str(db_path)
    try:
        parts = urlsplit(database_url)
        where = f"{parts.hostname or 'localhost'}:{parts.port or 5432}"
    except ValueError:
        return "PostgreSQL (unparsable URL)"
    return f"PostgreSQL {parts.path.lstrip('/') or '(default database)'} on {where}"


@contextlib.asynccontextmanager
async def open_storage(
    database_url: str | None, db_path: Path, store: StoreSettings | None = None
) -> AsyncIterator[Storage]:
    """Open and migrate the chosen backend; SQLite at `db_path` unless a URL is given.
    `store` configures LangGraph's store (semantic index, TTL) opened with it.

    The PostgreSQL modules are imported only when used, so SQLite-only installs never need
    psycopg.
    """
    if database_url:
        if not is_postgres_url(database_url):
            raise ValueError("a database URL must start with postgresql:// or postgres://")
        from open_langgraph.storage.postgres import PostgresStorage

        async with PostgresStorage.from_url(database_url, store=store) as storage:
            yield storage
        return
    from open_langgraph.storage.sqlite import SqliteStorage

    async with SqliteStorage.from_path(db_path, store) as sqlite_storage:
        yield sqlite_storage
