"""Every start-up failure of `olg serve`, `olg worker` and `olg db` is one line naming the cause
and the fix, and an exit code a supervisor can act on (src/open_langgraph/exit_codes.py); a
SIGTERM stops a busy server within its grace period, with exit code 0."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from open_langgraph import exit_codes
from tests.fixtures.postgres import ADMIN_URL
from tests.fixtures.server import ServerProcess, free_port, write_config

TIMEOUT_SECONDS = 60
CLOSED = "127.0.0.1:1"  # nothing listens on port 1


def olg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "open_langgraph.cli", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env={**os.environ, **(env or {})},
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single line a failed start-up printed (nothing else: no traceback, no log)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("olg: "), lines
    return lines[0]


def test_a_port_in_use_is_exit_6(tmp_path: Path):
    with socket.socket() as taken:
        port = _listening(taken)
        result = olg(
            "serve", "--config", str(write_config(tmp_path)), "--db", str(tmp_path / "olg.db"),
            "--port", str(port),
        )  # fmt: skip
    assert result.returncode == exit_codes.ADDRESS_IN_USE
    line = one_line(result)
    assert f"cannot listen on 127.0.0.1:{port}" in line and "--port" in line
    # The database it locked is free again: the next start succeeds.
    server = ServerProcess(write_config(tmp_path), tmp_path / "olg.db", tmp_path / "log")
    server.start()
    server.close()


def test_models_serve_on_a_port_in_use_is_exit_6(tmp_path: Path):
    with socket.socket() as taken:
        port = _listening(taken)
        result = olg(
            "models", "serve", "--config", str(write_config(tmp_path)), "--port", str(port)
        )
    assert result.returncode == exit_codes.ADDRESS_IN_USE
    assert f"cannot listen on 127.0.0.1:{port}" in one_line(result)


def _listening(sock: socket.socket) -> int:
    """Binds `sock` to a free port and listens: the port a server is then refused."""
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock.getsockname()[1]


def test_a_bad_config_is_exit_2(tmp_path: Path):
    config = tmp_path / "open_langgraph.json"
    config.write_text(json.dumps({"graphs": {"g": "./missing.py:graph"}}))
    result = olg("serve", "--config", str(config), "--db", str(tmp_path / "olg.db"))
    assert result.returncode == exit_codes.CONFIG_ERROR
    assert "missing.py" in one_line(result)


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_queue_mode_with_postgresql_unreachable_is_exit_5(tmp_path: Path, command: str):
    url = f"postgresql://olg:s3cret@{CLOSED}/olg"
    result = olg(
        command, "--config", str(write_config(tmp_path)), "--database-url", url,
        "--redis-url", "redis://127.0.0.1:6379/0",
    )  # fmt: skip
    assert result.returncode == exit_codes.UNREACHABLE
    line = one_line(result)
    assert "cannot reach PostgreSQL olg on 127.0.0.1:1" in line and "--database-url" in line
    assert "s3cret" not in result.stderr


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_queue_mode_with_redis_unreachable_is_exit_5(tmp_path: Path, command: str):
    result = olg(
        command, "--config", str(write_config(tmp_path)), "--database-url", ADMIN_URL,
        "--redis-url", f"redis://:hunter2@{CLOSED}/0",
    )  # fmt: skip
    assert result.returncode == exit_codes.UNREACHABLE
    line = one_line(result)
    assert f"cannot reach Redis at redis://{CLOSED}/0" in line and "--redis-url" in line
    assert "hunter2" not in result.stderr


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_queue_mode_without_its_packages_is_exit_2_with_the_command_that_installs_them(
    tmp_path: Path, command: str
):
    # A `redis` that cannot be imported, as where the postgres extra is not installed.
    shim = tmp_path / "shim" / "redis"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('No module named redis')\n")
    result = olg(
        command, "--config", str(write_config(tmp_path)), "--database-url", ADMIN_URL,
        "--redis-url", "redis://127.0.0.1:6379/0",
        env={"PYTHONPATH": os.pathsep.join([str(shim.parent), os.environ.get("PYTHONPATH", "")])},
    )  # fmt: skip
    assert result.returncode == exit_codes.CONFIG_ERROR
    line = one_line(result)
    # In this checkout the command is pip of this interpreter on the checkout itself.
    assert "needs the `postgres` extra" in line
    assert f"{sys.executable} -m pip install -e " in line and "[postgres]" in line


def test_olg_db_with_postgresql_unreachable_is_exit_5():
    result = olg("db", "current", "--database-url", f"postgresql://postgres@{CLOSED}/olg")
    assert result.returncode == exit_codes.UNREACHABLE
    assert "cannot open PostgreSQL olg on 127.0.0.1:1" in one_line(result)


def test_a_failed_app_start_up_is_exit_3(tmp_path: Path):
    # The storage fails as the app starts (the system assistants cannot be written).
    port = free_port()
    result = subprocess.run(
        [
            sys.executable, "-m", "tests.fixtures.faulty_serve", "serve",
            "--config", str(write_config(tmp_path)), "--db", str(tmp_path / "olg.db"),
            "--port", str(port),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env={**os.environ, "OLG_TEST_FAULTS": json.dumps([{"method": "create_assistant"}])},
    )  # fmt: skip
    assert result.returncode == exit_codes.STARTUP_FAILED, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "olg: start-up failed (the error is above); nothing was served"
    )


def test_sigterm_stops_a_busy_server_within_its_grace_period(tmp_path: Path):
    grace = 2.0
    server = ServerProcess(
        write_config(tmp_path), tmp_path / "olg.db", tmp_path / "log",
        env={"OLG_SHUTDOWN_GRACE": str(grace)},
    )  # fmt: skip
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            thread = http.post("/threads", json={}).json()["thread_id"]
            # A run that would go on for a minute, and a client following its stream.
            body = {"assistant_id": "slow", "input": {"label": "x", "seconds": 60}}
            run = http.post(f"/threads/{thread}/runs", json=body).json()["run_id"]
            path = f"/threads/{thread}/runs/{run}/stream"
            with http.stream("GET", path, headers={"Last-Event-ID": "-1"}) as stream:
                next(stream.iter_lines())
                assert server.process is not None
                started = time.monotonic()
                server.process.send_signal(signal.SIGTERM)
                code = server.process.wait(timeout=30)
                took = time.monotonic() - started
        assert code == exit_codes.OK
        assert took <= grace + 5, took
    finally:
        server.close()
    # The run that was executing is stored as ended by the shutdown, not left running.
    server.start()
    try:
        stopped = httpx.get(f"{server.url}/threads/{thread}/runs/{run}/join").json()
        assert stopped["__error__"]["error"] == "ServerShutdown"
        assert httpx.get(f"{server.url}/threads/{thread}/runs/{run}").json()["status"] == "error"
    finally:
        server.close()
