"""Runs that PostgreSQL's outage cut off: telling them apart, and waiting for the database.

A PostgreSQL restart or failover mid-run makes LangGraph's checkpoint write fail with
`psycopg.OperationalError`. That is not the graph's fault, and the run's last checkpoint is
safe: a queue worker hands such a run back to the queue (runtime/queue_worker.py), and a single
process waits for the database and resumes the run itself (runtime/manager.py), both up to
`OUTAGE_ATTEMPTS` attempts so a graph whose own connection keeps failing still ends.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable

#: Attempts of a run in all (the first included) before an outage ends it `error`.
OUTAGE_ATTEMPTS = 3
#: How long a single process waits for the database to answer again, per attempt.
OUTAGE_WAIT_SECONDS = 60.0
_PING_TIMEOUT = 5.0
_PING_PAUSE = 0.5


def database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) says PostgreSQL could not be reached or dropped the
    connection: `psycopg.OperationalError`, which the pool's `PoolTimeout` is too."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:  # never imported: no PostgreSQL in this process, nothing of its
        return False
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, psycopg.OperationalError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def database_back(
    ping: Callable[[], Awaitable[None]], wait_seconds: float = OUTAGE_WAIT_SECONDS
) -> bool:
    """Ping until the database answers (True) or `wait_seconds` pass (False)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_seconds
    while True:
        try:
            await asyncio.wait_for(ping(), _PING_TIMEOUT)
            return True
        except Exception:
            if loop.time() + _PING_PAUSE >= deadline:
                return False
            await asyncio.sleep(_PING_PAUSE)
