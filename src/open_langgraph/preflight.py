"""Checks made before a server or worker starts, so that what stops it is one line naming the
cause and the fix, with its own exit code, instead of a traceback from inside the app's
start-up."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from open_langgraph import exit_codes
from open_langgraph.extras import needs_extra

#: Seconds a check waits for PostgreSQL or Redis to answer.
CONNECT_TIMEOUT = 5


@dataclass(frozen=True, slots=True)
class Problem:
    message: str
    exit_code: int


def queue_mode_problem(database_url: str, redis_url: str) -> Problem | None:
    """What keeps queue mode from starting: its packages missing, or PostgreSQL or Redis not
    answering."""
    try:
        import psycopg  # noqa: F401
        import redis  # noqa: F401
    except ImportError:
        return Problem(
            needs_extra("queue mode (PostgreSQL and Redis)", "postgres"), exit_codes.CONFIG_ERROR
        )
    return postgres_problem(database_url) or redis_problem(redis_url)


def postgres_problem(database_url: str) -> Problem | None:
    import psycopg

    from open_langgraph.storage.backend import database_label

    try:
        with psycopg.connect(database_url, connect_timeout=CONNECT_TIMEOUT):
            return None
    except psycopg.Error as exc:
        lines = str(exc).strip().splitlines()
        reason = lines[0].strip() if lines else type(exc).__name__
        where = database_label(database_url, Path())
        return Problem(
            f"cannot reach {where}: {reason}; start it or fix --database-url / DATABASE_URI",
            exit_codes.UNREACHABLE,
        )


def redis_problem(redis_url: str) -> Problem | None:
    import redis

    try:
        client = redis.Redis.from_url(
            redis_url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=CONNECT_TIMEOUT
        )
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError) as exc:
        return Problem(
            f"cannot reach Redis at {redis_label(redis_url)}: {exc}; start it or fix "
            "--redis-url / REDIS_URI",
            exit_codes.UNREACHABLE,
        )
    return None


def redis_label(redis_url: str) -> str:
    """The Redis URL without its password, for messages."""
    parts = urlsplit(redis_url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
