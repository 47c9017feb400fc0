"""Versioned schema of our PostgreSQL tables, applied in order at start-up or by `olg db upgrade`.

Each step runs once, in its own transaction, and is recorded in `schema_migrations`; a
database is never changed by editing an applied step, only by appending a new one. An
advisory lock makes two servers starting on one database take turns instead of racing.
LangGraph's checkpoint tables are not ours: the official saver migrates them (`setup()`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from psycopg import AsyncConnection

# Any fixed 64-bit number naming "olg schema migrations" for pg_advisory_lock.
_LOCK_KEY = 0x6F6C675F6D696772
_LOCK_POLL_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "assistants, threads, runs, run events, thread TTLs",
        """
CREATE TABLE assistants (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    assistant_id TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL,
    config JSONB NOT NULL,
    context JSONB NOT NULL,
    metadata JSONB NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    version INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX assistants_graph ON assistants (graph_id);
CREATE INDEX assistants_metadata ON assistants USING GIN (metadata jsonb_path_ops);
CREATE TABLE assistant_versions (
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph_id TEXT NOT NULL,
    config JSONB NOT NULL,
    context JSONB NOT NULL,
    metadata JSONB NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (assistant_id, version)
);
CREATE TABLE threads (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    thread_id TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    state_updated_at TIMESTAMPTZ NOT NULL,
    metadata JSONB NOT NULL,
    status TEXT NOT NULL,
    config JSONB NOT NULL,
    state_values JSONB,
    interrupts JSONB NOT NULL,
    error JSONB
);
CREATE INDEX threads_metadata ON threads USING GIN (metadata jsonb_path_ops);
CREATE INDEX threads_status ON threads (status);
CREATE TABLE thread_ttls (
    thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE,
    strategy TEXT NOT NULL,
    ttl_minutes DOUBLE PRECISION NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX thread_ttls_due ON thread_ttls (expires_at);
CREATE TABLE runs (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    status TEXT NOT NULL,
    metadata JSONB NOT NULL,
    kwargs JSONB NOT NULL,
    multitask_strategy TEXT NOT NULL,
    output JSONB,
    error JSONB
);
CREATE INDEX runs_thread ON runs (thread_id, created_at);
CREATE INDEX runs_status ON runs (status);
CREATE INDEX runs_updated ON runs (updated_at);
CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (run_id, seq)
);
-- RFC 7396 JSON merge patch, as SQLite's json_patch: objects merge recursively, null
-- removes a key. Thread metadata updates mean the same on both backends.
CREATE FUNCTION olg_merge_patch(target JSONB, patch JSONB) RETURNS JSONB
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    result JSONB;
    k TEXT;
    v JSONB;
BEGIN
    IF patch IS NULL OR jsonb_typeof(patch) <> 'object' THEN
        RETURN patch;
    END IF;
    IF target IS NULL OR jsonb_typeof(target) <> 'object' THEN
        result := '{}'::JSONB;
    ELSE
        result := target;
    END IF;
    FOR k, v IN SELECT * FROM jsonb_each(patch) LOOP
        IF jsonb_typeof(v) = 'null' THEN
            result := result - k;
        ELSE
            result := result || jsonb_build_object(k, olg_merge_patch(result -> k, v));
        END IF;
    END LOOP;
    RETURN result;
END
$$;
""",
    ),
    Migration(
        2,
        "durable run queue: attempts, due times, worker leases, cancellation requests",
        """
ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN available_at TIMESTAMPTZ NOT NULL DEFAULT now();
ALTER TABLE runs ADD COLUMN worker_id TEXT;
ALTER TABLE runs ADD COLUMN lease_expires_at TIMESTAMPTZ;
ALTER TABLE runs ADD COLUMN cancel_action TEXT;
CREATE INDEX runs_pending ON runs (seq) WHERE status = 'pending';
CREATE INDEX runs_in_flight ON runs (thread_id, seq) WHERE status IN ('pending', 'running');
-- One executing run per thread, whatever the processes racing to start one.
CREATE UNIQUE INDEX runs_one_running ON runs (thread_id) WHERE status = 'running';
CREATE INDEX runs_leases ON runs (lease_expires_at) WHERE status = 'running';
""",
    ),
    Migration(
        4,
        "crons: schedules with their next due time, claimed by the scheduler",
        """
CREATE TABLE crons (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    cron_id TEXT PRIMARY KEY,
    assistant_id TEXT NOT NULL,
    thread_id TEXT,
    on_run_completed TEXT,
    end_time TIMESTAMPTZ,
    schedule TEXT NOT NULL,
    timezone TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    user_id TEXT,
    payload JSONB NOT NULL,
    next_run_date TIMESTAMPTZ,
    metadata JSONB NOT NULL,
    enabled BOOLEAN NOT NULL,
    auth_user JSONB
);
CREATE INDEX crons_due ON crons (next_run_date) WHERE enabled;
CREATE INDEX crons_thread ON crons (thread_id);
CREATE INDEX crons_metadata ON crons USING GIN (metadata jsonb_path_ops);
""",
    ),
    Migration(
        5,
        "run traces: each run's nodes, model calls and tool calls (the web UI's trace view)",
        """
CREATE TABLE run_traces (
    run_id TEXT PRIMARY KEY,
    data BYTEA NOT NULL
);
""",
    ),
)

LATEST = MIGRATIONS[-1].version

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


async def current(conn: AsyncConnection) -> int | None:
    """The version the database is at; None before the first migration."""
    cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
    row = await cur.fetchone()
    if not row or not _first(row):
        return None
    cur = await conn.execute("SELECT MAX(version) FROM schema_migrations")
    row = await cur.fetchone()
    version = None if row is None else _first(row)
    return None if version is None else int(version)  # type: ignore[call-overload]


async def upgrade(
    conn: AsyncConnection, then: Callable[[], Awaitable[None]] | None = None
) -> list[int]:
    """Apply every migration the database lacks, in order; returns the versions applied.

    `conn` must be in autocommit mode: each step gets a transaction of its own, so a failing
    step leaves the database at the previous version rather than half-changed. `then` runs
    while the lock is still held: the saver's own migrations, which race (duplicate keys,
    deadlocks) when several processes start on an empty database at once.
    """
    applied: list[int] = []
    await _lock(conn)
    try:
        await conn.execute(_CREATE_TABLE)
        done = await _applied(conn)
        for step in MIGRATIONS:
            # Every step not recorded yet, not only those above the highest recorded one:
            # branches that took later numbers first then merge with an earlier step.
            if step.version in done:
                continue
            async with conn.transaction():
                await conn.execute(step.sql)  # type: ignore[arg-type]
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                    (step.version, step.name),
                )
            applied.append(step.version)
        if then is not None:
            await then()
    finally:
        await conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return applied


async def _applied(conn: AsyncConnection) -> set[int]:
    """The versions `schema_migrations` records."""
    cur = await conn.execute("SELECT version FROM schema_migrations")
    return {int(_first(row)) for row in await cur.fetchall()}  # type: ignore[call-overload]


async def _lock(conn: AsyncConnection) -> None:
    """Take the migration lock, polling rather than waiting in `pg_advisory_lock`: the saver's
    `CREATE INDEX CONCURRENTLY` waits for every open transaction to end, a session blocked
    in `pg_advisory_lock` is one, and the two would wait for each other forever."""
    while True:
        cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK_KEY,))
        row = await cur.fetchone()
        if row is not None and _first(row):
            return
        await asyncio.sleep(_LOCK_POLL_SECONDS)


def _first(row: object) -> object:
    """The first column of a row, whichever row factory the connection uses."""
    if isinstance(row, dict):
        return next(iter(row.values()))
    return row[0]  # type: ignore[index]
