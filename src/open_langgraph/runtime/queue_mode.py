"""Queue mode's settings and the pieces every process of it opens (bus, worker).

Queue mode is PostgreSQL plus Redis: API processes (`olg serve`) store runs in the queue,
worker processes (`olg worker`, or `olg serve --workers N`, or `olg serve` itself when it
starts none) execute them. Without Redis a PostgreSQL server runs everything in its one
process, as on SQLite.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import psycopg

from open_langgraph.runtime.bus_redis import RedisBus
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.queue_settings import QueueSettings
from open_langgraph.runtime.queue_worker import QueueWorker
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.storage.base import Storage
from open_langgraph.storage.postgres.queue import PostgresRunQueue


def bus_prefix(database_url: str) -> str:
    """Channel prefix naming the database, so deployments sharing a Redis stay apart."""
    info = psycopg.conninfo.conninfo_to_dict(database_url)
    host = info.get("host") or "localhost"
    return f"olg:{host}:{info.get('port') or 5432}/{info.get('dbname') or ''}:"


@contextlib.asynccontextmanager
async def open_bus(settings: QueueSettings, database_url: str) -> AsyncIterator[RedisBus]:
    bus = RedisBus(settings.redis_url, bus_prefix(database_url))
    await bus.start()
    try:
        yield bus
    finally:
        await bus.close()


@contextlib.asynccontextmanager
async def running_worker(
    storage: Storage,
    bus: RedisBus,
    graphs: GraphRegistry,
    settings: QueueSettings,
    *,
    concurrency: int,
    webhooks: WebhookSender | None,
    run_timeout_seconds: float | None,
) -> AsyncIterator[QueueWorker]:
    """A worker taking runs for the length of the block, stopped gracefully after it."""
    worker = QueueWorker(
        storage,
        run_queue(storage),
        bus,
        graphs,
        concurrency=concurrency,
        lease_seconds=settings.lease_seconds,
        max_attempts=settings.max_attempts,
        poll_seconds=settings.poll_seconds,
        grace_seconds=settings.grace_seconds,
        webhooks=webhooks,
        run_timeout_seconds=run_timeout_seconds,
    )
    await worker.start()
    try:
        yield worker
    finally:
        await worker.stop()


def run_queue(storage: Storage) -> PostgresRunQueue:
    """The queue on the storage's own pool: one set of connections per process."""
    from open_langgraph.storage.postgres import PostgresStorage

    if not isinstance(storage, PostgresStorage):
        raise ValueError("queue mode needs the PostgreSQL backend (--database-url)")
    return PostgresRunQueue(storage.pool, storage.relaxed_pool)
