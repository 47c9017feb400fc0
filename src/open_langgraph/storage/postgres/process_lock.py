"""One serving process per PostgreSQL database, held with an advisory lock while it lives.

As with SQLite (`storage/sqlite/process_lock.py`), the run manager owns every unfinished run
in its database, so a second server must stop before its start-up recovery touches them. A
session-level advisory lock on a connection of its own is released by PostgreSQL when that
connection ends, however the process ends.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from psycopg.rows import tuple_row

from open_langgraph.storage.backend import database_label

# Any fixed 64-bit number naming "olg serving process".
_LOCK_KEY = 0x6F6C675F73657276


class DatabaseInUse(Exception):
    """Another server holds the database's lock."""

    def __init__(self, url: str) -> None:
        super().__init__(
            f"{database_label(url, Path())} is in use by another olg server; stop it or "
            "pass another --database-url"
        )


class DatabaseLock:
    """The held lock; `release()` (or the process ending) gives it up."""

    def __init__(self, conn: psycopg.Connection | None) -> None:
        self._conn = conn

    @classmethod
    def acquire(cls, url: str) -> DatabaseLock:
        """Take the lock now; `DatabaseInUse` if another server has it, `psycopg.Error` if the
        server cannot be reached."""
        # Keepalives: the lock of a server whose host is gone is released in seconds.
        from open_langgraph.storage.postgres import connection_kwargs

        kwargs = connection_kwargs(url) | {"row_factory": tuple_row}
        conn = psycopg.connect(url, application_name="olg serve (lock)", **kwargs)
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK_KEY,)).fetchone()
        if not row or not row[0]:
            conn.close()
            raise DatabaseInUse(url)
        return cls(conn)

    def release(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> DatabaseLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
