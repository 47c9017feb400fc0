"""Which backend a server opens: PostgreSQL for a `postgresql://` URL, else the SQLite file."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from open_langgraph.storage.base import Storage, StoreSettings

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol
    from langgraph_sdk import Encryption

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: The PostgreSQL backend's on/off environment switches, with their defaults; see
#: docs/deploy.md. Read here, without psycopg, so the CLI can refuse a bad value in one line.
POSTGRES_SWITCHES = {
    "OLG_PG_CHECKPOINT_SYNC_COMMIT": "off",
    "OLG_PG_PREPARED_STATEMENTS": "on",
    "OLG_PG_KEEPALIVES": "on",
}


def postgres_switch(name: str) -> bool:
    """Whether the switch `name` (a key of `POSTGRES_SWITCHES`) is on.

    Raises:
        ValueError: its value is neither `on` nor `off`.
    """
    value = os.environ.get(name, POSTGRES_SWITCHES[name]).strip().lower()
    if value not in ("on", "off"):
        raise ValueError(f"{name} must be on or off, not {value!r}")
    return value == "on"


def postgres_settings_problem() -> str | None:
    """What is wrong with the PostgreSQL switches in the environment, if anything."""
    for name in POSTGRES_SWITCHES:
        try:
            postgres_switch(name)
        except ValueError as exc:
            return str(exc)
    return None


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
    database_url: str | None,
    db_path: Path,
    store: StoreSettings | None = None,
    encryption: Encryption | None = None,
    *,
    serde: SerializerProtocol | None = None,
) -> AsyncIterator[Storage]:
    """Open and migrate the chosen backend; SQLite at `db_path` unless a URL is given.
    `store` configures LangGraph's store (semantic index, TTL) opened with it; `encryption`
    (the config's `encryption.path`) encrypts what it stores (`storage/_encrypted.py`);
    `serde` is the checkpointer's serializer (`checkpoint_serde.py`; None keeps the saver's
    default).

    The PostgreSQL modules are imported only when used, so SQLite-only installs never need
    psycopg.
    """
    async with _opened(database_url, db_path, store, serde) as storage:
        if encryption is not None:
            from open_langgraph.encryption import StorageCipher
            from open_langgraph.storage._encrypted import EncryptedRecords

            assert isinstance(storage, EncryptedRecords)
            storage.encrypt_with(StorageCipher.of(encryption, asyncio.get_running_loop()))
        yield storage


@contextlib.asynccontextmanager
async def _opened(
    database_url: str | None,
    db_path: Path,
    store: StoreSettings | None,
    serde: SerializerProtocol | None,
) -> AsyncIterator[Storage]:
    if database_url:
        if not is_postgres_url(database_url):
            raise ValueError("a database URL must start with postgresql:// or postgres://")
        from open_langgraph.storage.postgres import PostgresStorage

        async with PostgresStorage.from_url(database_url, store=store, serde=serde) as storage:
            yield storage
        return
    from open_langgraph.storage.sqlite import SqliteStorage

    async with SqliteStorage.from_path(db_path, store, serde=serde) as sqlite_storage:
        yield sqlite_storage
