"""`olg db upgrade|current` and `olg serve --database-url`'s refusals, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.postgres import fresh_database
from tests.fixtures.server import write_config

TIMEOUT_SECONDS = 60


def _olg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "open_langgraph.cli", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def test_db_current_and_upgrade(database: str):
    before = _olg("db", "current", "--database-url", database)
    assert (before.returncode, before.stdout.strip()) == (0, "none (latest 2, run olg db upgrade)")
    upgraded = _olg("db", "upgrade", env={"DATABASE_URI": database})
    assert (upgraded.returncode, upgraded.stdout.strip()) == (0, "applied: 1, 2; at version 2")
    again = _olg("db", "upgrade", "--database-url", database)
    assert again.stdout.strip() == "applied: nothing to apply; at version 2"
    after = _olg("db", "current", "--database-url", database)
    assert after.stdout.strip() == "2 (latest 2, up to date)"


def test_an_unreachable_database_is_one_line_without_the_password(tmp_path: Path):
    url = "postgresql://olg:s3cret@127.0.0.1:1/olg"
    for args in (
        ("db", "current", "--database-url", url),
        ("serve", "--config", str(write_config(tmp_path)), "--database-url", url),
    ):
        result = _olg(*args)
        assert result.returncode == 5, result.stderr
        lines = result.stderr.strip().splitlines()
        assert lines[-1].startswith("olg: cannot open PostgreSQL olg on 127.0.0.1:1: ")
        assert "s3cret" not in result.stderr


def test_a_url_that_is_not_postgresql_is_refused(tmp_path: Path):
    serve = _olg(
        "serve", "--config", str(write_config(tmp_path)), "--database-url", "mysql://x@h/db"
    )
    assert serve.returncode == 2
    assert (
        serve.stderr.strip() == "olg: --database-url must start with postgresql:// or postgres://"
    )
    db = _olg("db", "current", env={"DATABASE_URI": ""})
    assert db.returncode == 2
    assert "olg db needs --database-url or DATABASE_URI" in db.stderr


@pytest.mark.parametrize("switch", ["OLG_PG_PREPARED_STATEMENTS", "OLG_PG_CHECKPOINT_SYNC_COMMIT"])
def test_a_bad_postgres_switch_is_one_line_and_exit_2(tmp_path: Path, switch: str):
    url = "postgresql://postgres@127.0.0.1:5432/never_opened"
    config = str(write_config(tmp_path))
    for args in (
        ("db", "current", "--database-url", url),
        ("serve", "--config", config, "--database-url", url),
        ("worker", "--config", config, "--database-url", url, "--redis-url", "redis://x"),
    ):
        result = _olg(*args, env={switch: "sometimes"})
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip() == f"olg: {switch} must be on or off, not 'sometimes'"
