"""The server backend: PostgreSQL holding LangGraph's official checkpoint tables and ours.

Checkpoints are written by langgraph-checkpoint-postgres's `AsyncPostgresSaver`; assistants,
threads, runs and run events live in our tables, versioned by `migrations`. Each has its own
psycopg 3 connection pool (autocommit, dict rows: what the saver requires).

The saver's pool commits with `synchronous_commit = off`: a commit returns before its WAL
is flushed to disk (2.5 ms per commit on this machine's disk, paid ~10 times a run, one at a
time behind the saver's lock). That never corrupts anything, and loses nothing a run ended
with: a run's end is stored with a synchronous commit on the other pool, which flushes the
WAL written before it, checkpoints included. A crash of PostgreSQL itself can lose the last
checkpoints of runs still executing (at most 3 x `wal_writer_delay`, 600 ms by default); such
a run resumes from its newest surviving checkpoint. `OLG_PG_CHECKPOINT_SYNC_COMMIT=on` makes
checkpoint commits synchronous too.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import AsyncIterator
from typing import Any

import orjson
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._encrypted import EncryptedRecords
from open_langgraph.storage._store import swept
from open_langgraph.storage.backend import postgres_switch
from open_langgraph.storage.base import Storage, StoreSettings
from open_langgraph.storage.postgres import migrations
from open_langgraph.storage.postgres._db import Conn
from open_langgraph.storage.postgres._saver import PostgresCheckpointer
from open_langgraph.storage.postgres.assistants import AssistantsMixin
from open_langgraph.storage.postgres.crons import CronsMixin
from open_langgraph.storage.postgres.runs import RunsMixin
from open_langgraph.storage.postgres.store import postgres_store, setup_postgres_store
from open_langgraph.storage.postgres.threads import ThreadsMixin

#: Connections kept open by one process for our tables (the saver has a pool of its own).
POOL_MAX_SIZE = 10
#: Connections for checkpoints: each concurrent checkpoint call of a run takes one.
CHECKPOINT_POOL_MAX_SIZE = 10


#: psycopg prepares a statement on a connection once it has run this many times there.
PREPARE_THRESHOLD = 5


def prepare_threshold() -> int | None:
    """Server-side prepared statements, unless `OLG_PG_PREPARED_STATEMENTS=off`.

    A prepared statement is parsed and planned once per connection instead of on every
    call: about a fifth of PostgreSQL's CPU per run of a small graph. Only a pooling proxy
    that moves transactions between server connections without tracking prepared statements
    (PgBouncer before 1.21, or without `max_prepared_statements`) needs them off.
    """
    return PREPARE_THRESHOLD if postgres_switch("OLG_PG_PREPARED_STATEMENTS") else None


#: TCP keepalives (seconds idle, seconds between probes, probes), set on both ends of every
#: connection unless `OLG_PG_KEEPALIVES=off`. Without them a peer that is gone (a worker's
#: host cut off, a VM that died) is noticed after Linux's two hours: meanwhile PostgreSQL keeps
#: the session and its row locks (a thread's lock taken by a run's end holds up the take-over
#: of every run behind it), and our side waits on a query that cannot answer. With them, ~25 s.
#: The peer's kernel answers probes, so a process that is alive but stalled is never cut.
#: Measured in network namespaces (tests/queue/test_multi_host.py, docs/deploy.md).
KEEPALIVE = (10, 5, 3)


def connection_kwargs(url: str, *settings: str) -> dict[str, Any]:
    """What every connection to `url` needs: autocommit and dict rows (for the official saver),
    keepalives, and `settings` (`name=value`) for its sessions, after any `options` the URL
    gives (kwargs replace the URL's own)."""
    kwargs: dict[str, Any] = {
        "autocommit": True,
        "prepare_threshold": prepare_threshold(),
        "row_factory": dict_row,
    }
    session = list(settings)
    if postgres_switch("OLG_PG_KEEPALIVES"):
        idle, interval, count = KEEPALIVE
        kwargs |= {
            "keepalives": 1,
            "keepalives_idle": idle,
            "keepalives_interval": interval,
            "keepalives_count": count,
        }
        session += [
            f"tcp_keepalives_idle={idle}",
            f"tcp_keepalives_interval={interval}",
            f"tcp_keepalives_count={count}",
        ]
    if session:
        own = conninfo_to_dict(url).get("options") or ""
        kwargs["options"] = " ".join([own, *(f"-c {setting}" for setting in session)]).strip()
    return kwargs


class PostgresStorage(
    EncryptedRecords, AssistantsMixin, ThreadsMixin, RunsMixin, CronsMixin, Storage
):
    """Storage in a PostgreSQL database named by a `postgresql://` URL."""

    checkpointer: PostgresCheckpointer
    engine_name = "PostgreSQL"

    def __init__(
        self,
        pool: AsyncConnectionPool[Conn],
        checkpoint_pool: AsyncConnectionPool[Conn] | None = None,
        store: StoreSettings | None = None,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(pool)
        self._checkpoint_pool = checkpoint_pool
        self.checkpointer = PostgresCheckpointer(checkpoint_pool or pool, serde=serde)  # type: ignore[arg-type]
        self.store = postgres_store(pool, store or StoreSettings())

    @classmethod
    @contextlib.asynccontextmanager
    async def from_url(
        cls,
        url: str,
        *,
        max_size: int = POOL_MAX_SIZE,
        store: StoreSettings | None = None,
        serde: SerializerProtocol | None = None,
    ) -> AsyncIterator[PostgresStorage]:
        """Open a pool on `url`, migrate the schema (ours, the saver's, the store's), and
        close the pool on exit; `store` configures LangGraph's store (index, TTL), `serde`
        is the checkpointer's serializer (None: the saver's default)."""
        # Fail at once, with the server's own message, on a wrong URL or a server that is
        # down: a pool would retry in the background and report only a timeout.
        probe = await AsyncConnection.connect(url, **connection_kwargs(url))
        await probe.close()
        pool = await _open_pool(url, max_size, connection_kwargs(url))
        try:
            sync_commit = "on" if postgres_switch("OLG_PG_CHECKPOINT_SYNC_COMMIT") else "off"
        except ValueError:
            await pool.close()
            raise
        checkpoint_kwargs = connection_kwargs(url, f"synchronous_commit={sync_commit}")
        try:
            checkpoint_pool = await _open_pool(url, CHECKPOINT_POOL_MAX_SIZE, checkpoint_kwargs)
        except BaseException:
            await pool.close()
            raise
        try:
            storage = cls(pool, checkpoint_pool, store, serde)
        except BaseException:
            await pool.close()
            await checkpoint_pool.close()
            raise
        try:
            await storage.setup()
            async with swept(storage.store):
                yield storage
        finally:
            await storage.close()

    async def setup(self) -> None:
        async with self.pool.connection() as conn:
            await migrations.upgrade(conn, then=self._setup_langgraph_tables)

    async def _setup_langgraph_tables(self) -> None:
        """The saver's and the store's own migrations, under our migration lock: run by
        several processes starting at once, they race (duplicate keys, deadlocks)."""
        await self.checkpointer.setup()
        await setup_postgres_store(self.store)

    @property
    def relaxed_pool(self) -> AsyncConnectionPool[Conn]:
        """The pool whose commits do not wait for the disk (the saver's), for writes that
        are safe to lose in a PostgreSQL crash (see this module's docstring)."""
        return self._checkpoint_pool or self.pool

    async def close(self) -> None:
        await self.pool.close()
        if self._checkpoint_pool is not None:
            await self._checkpoint_pool.close()


#: Longest wait for a pooled connection before the request fails with a 503.
POOL_WAIT_SECONDS = 10.0


async def _open_pool(url: str, max_size: int, kwargs: dict[str, Any]) -> AsyncConnectionPool[Conn]:
    pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        kwargs=kwargs,
        open=False,
        connection_class=AsyncConnection[Any],
        configure=_read_json_as_sqlite_does,
        check=_discard_if_closed_by_server,
        # How long a request waits for a connection: long enough for a busy pool, short
        # enough that a request during a PostgreSQL outage gets its 503 in seconds (the
        # default 30 s looks like a hang to a client).
        timeout=POOL_WAIT_SECONDS,
    )
    await pool.open(wait=True, timeout=30.0)
    return pool


async def _discard_if_closed_by_server(conn: AsyncConnection[Any]) -> None:
    """Run when the pool hands out a connection. After PostgreSQL restarts, every idle
    connection is dead, and the first request on each would fail (a 503 per pooled
    connection). An idle connection has nothing to read unless the server has closed it
    (or sent a notice): only then is a round trip spent, which raises for a dead one and
    makes the pool connect anew. A live connection costs one `select`, no round trip."""
    readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    if readable:
        await conn.execute("")


async def _read_json_as_sqlite_does(conn: AsyncConnection[Any]) -> None:
    """jsonb keeps a number's value, not its spelling: a float sent as 1e30 comes back as
    the integer 1000...0, which no response could then be written with (orjson stops at 64
    bits). orjson's parser, which SQLite's JSON is read with, makes such integers floats."""
    set_json_loads(orjson.loads, conn)


__all__ = ["PostgresStorage", "migrations"]
