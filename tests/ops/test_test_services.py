"""scripts/test on a machine without PostgreSQL or Redis: it starts its own, with pgvector."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import redis

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "test_services.py"
CLOSED = "127.0.0.1:9"  # discard: nothing listens there


def _exports(stdout: str) -> dict[str, str]:
    found = {}
    for line in stdout.splitlines():
        assert line.startswith("export "), line
        name, _, value = line.removeprefix("export ").partition("=")
        found[name] = shlex.split(value)[0]
    return found


def _listening(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port), 1).close()
    except OSError:
        return False
    return True


@pytest.mark.timeout(300)
def test_unreachable_services_are_replaced_by_throwaway_ones_with_pgvector():
    directory = Path(tempfile.mkdtemp(prefix="olg-test-services-"))
    env = {
        **os.environ,
        "OLG_TEST_POSTGRES_URL": f"postgresql://postgres@{CLOSED}/postgres",
        "OLG_TEST_REDIS_URL": f"redis://{CLOSED}/0",
    }
    started = subprocess.run(
        [sys.executable, str(SCRIPT), "up", str(directory)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    try:
        assert started.returncode == 0, started.stderr
        exports = _exports(started.stdout)
        assert "does not answer" in started.stderr
        postgres_url, redis_url = exports["OLG_TEST_POSTGRES_URL"], exports["OLG_TEST_REDIS_URL"]
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            distance = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
        assert distance == (1.0,)
        assert redis.Redis.from_url(redis_url).ping()
    finally:
        subprocess.run([sys.executable, str(SCRIPT), "down", str(directory)], timeout=60)
    assert not directory.exists()
    assert not _listening(postgres_url) and not _listening(redis_url)
