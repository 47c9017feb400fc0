"""SSE details a browser or proxy depends on: event ids, heartbeats on idle streams."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.server import ServerProcess, write_config

pytestmark = pytest.mark.e2e


def test_idle_stream_gets_heartbeats_and_events_carry_ids(tmp_path: Path):
    server = ServerProcess(
        write_config(tmp_path),
        tmp_path / "olg.db",
        tmp_path / "log",
        env={"OLG_SSE_HEARTBEAT_SECONDS": "0.2"},
    )
    server.start()
    try:
        lines: list[str] = []
        started = time.monotonic()
        with httpx.stream(
            "POST",
            f"{server.url}/runs/stream",
            json={"assistant_id": "slow", "input": {"seconds": 0.7, "label": "h"}},
            timeout=30,
        ) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = list(response.iter_lines())
        assert time.monotonic() - started < 10
        heartbeats = [line for line in lines if line == ": heartbeat"]
        # Two sleeps of 0.7 s with nothing to send: several heartbeats at 0.2 s.
        assert len(heartbeats) >= 4
        ids = [int(line.removeprefix("id: ")) for line in lines if line.startswith("id: ")]
        events = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
        assert events == ["metadata", "values", "values", "values"]
        assert ids == [0, 1, 2, 3]
    finally:
        server.stop()
