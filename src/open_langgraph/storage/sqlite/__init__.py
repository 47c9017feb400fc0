"""The embedded backend: one SQLite file holding LangGraph's checkpoints and our own tables."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from langgraph.checkpoint.serde.base import SerializerProtocol

from open_langgraph.storage._encrypted import EncryptedRecords
from open_langgraph.storage.base import Storage, StoreSettings
from open_langgraph.storage.filters import json_contains, json_matches_auth_filter
from open_langgraph.storage.sqlite._inline import WalCheckpointer, connect_inline
from open_langgraph.storage.sqlite.assistants import AssistantsMixin
from open_langgraph.storage.sqlite.crons import CronsMixin
from open_langgraph.storage.sqlite.runs import RunsMixin
from open_langgraph.storage.sqlite.store import open_sqlite_store
from open_langgraph.storage.sqlite.threads import ThreadsMixin

SCHEMA_VERSION = 1
PAGE_CACHE_KIB = 32 * 1024
"""The serving connection's page cache, at most (SQLite's default is 2 MB)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS olg_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS assistants (
    assistant_id TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS assistants_graph ON assistants (graph_id);
CREATE TABLE IF NOT EXISTS assistant_versions (
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph_id TEXT NOT NULL,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (assistant_id, version)
);
CREATE TABLE IF NOT EXISTS threads (
    thread_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    state_updated_at TEXT NOT NULL,
    metadata TEXT NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    state_values TEXT,
    interrupts TEXT NOT NULL,
    error TEXT
);
CREATE TABLE IF NOT EXISTS thread_ttls (
    thread_id TEXT PRIMARY KEY,
    strategy TEXT NOT NULL,
    ttl_minutes REAL NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS thread_ttls_due ON thread_ttls (expires_at);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    kwargs TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    output TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS runs_thread ON runs (thread_id, created_at);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
CREATE INDEX IF NOT EXISTS runs_updated ON runs (updated_at);
CREATE TABLE IF NOT EXISTS run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS run_traces (
    run_id TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS crons (
    cron_id TEXT PRIMARY KEY,
    assistant_id TEXT NOT NULL,
    thread_id TEXT,
    on_run_completed TEXT,
    end_time TEXT,
    schedule TEXT NOT NULL,
    timezone TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    user_id TEXT,
    payload TEXT NOT NULL,
    next_run_date TEXT,
    metadata TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    auth_user TEXT
);
CREATE INDEX IF NOT EXISTS crons_due ON crons (enabled, next_run_date);
CREATE INDEX IF NOT EXISTS crons_thread ON crons (thread_id);
"""


class SqliteStorage(
    EncryptedRecords, AssistantsMixin, ThreadsMixin, RunsMixin, CronsMixin, Storage
):
    """Storage in one SQLite file, by default `./.olg/olg.db`."""

    engine_name = "SQLite"

    @classmethod
    @contextlib.asynccontextmanager
    async def from_path(
        cls,
        path: str | Path,
        store: StoreSettings | None = None,
        *,
        serde: SerializerProtocol | None = None,
    ) -> AsyncIterator[SqliteStorage]:
        """Open (creating if needed) the database file and set up its schema, with LangGraph's
        store (`store` settings: index, TTL) in the same file; `serde` is the checkpointer's
        serializer (None: the saver's default)."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await connect_inline(path)
        storage = cls(conn, serde)
        wal = WalCheckpointer(path, storage.checkpointer.lock)
        try:
            await storage.setup()
            wal.start()
            async with open_sqlite_store(path, store or StoreSettings()) as storage.store:
                yield storage
        finally:
            await storage.close()
            await wal.stop()

    async def setup(self) -> None:
        # WAL with synchronous=NORMAL: a committed transaction survives a killed process,
        # and a commit does not wait for fsync.
        await self.conn.execute("PRAGMA journal_mode=WAL")
        await self.conn.execute("PRAGMA synchronous=NORMAL")
        # No busy timeout: SQLite would sleep on the event loop's thread; InlineConnection
        # waits for a locked database with asyncio instead (up to BUSY_TIMEOUT_SECONDS).
        await self.conn.execute("PRAGMA busy_timeout=0")
        await self.conn.execute("PRAGMA wal_autocheckpoint=0")
        # SQLite's own default page cache is 2 MB: past a few thousand runs each run read
        # about fifteen pages back from the file (one system call each). Up to 32 MB is
        # kept instead, filled only as pages are used.
        await self.conn.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")
        await self.conn.create_function("olg_json_contains", 2, json_contains, deterministic=True)
        await self.conn.create_function(
            "olg_auth_filter", 2, json_matches_auth_filter, deterministic=True
        )
        await self.conn.executescript(_SCHEMA)
        await self.conn.execute(
            "INSERT OR IGNORE INTO olg_meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        await self.conn.commit()
        await self.checkpointer.setup()

    async def close(self) -> None:
        await self.conn.close()


__all__ = ["SqliteStorage"]
