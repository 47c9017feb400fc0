"""SSE details a browser or proxy depends on: event ids, heartbeats on idle streams."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.fixtures.server import serving

pytestmark = pytest.mark.e2e


def test_idle_stream_gets_heartbeats_and_events_carry_ids(tmp_path: Path):
    with serving(tmp_path, env={"OLG_SSE_HEARTBEAT_SECONDS": "0.2"}) as server:
        lines: list[str] = []
        with httpx.stream(
            "POST",
            f"{server.url}/runs/stream",
            # The second node is parked until the client leaves: the stream idles for as
            # long as the test reads it.
            json={"assistant_id": "slow", "input": {"seconds": 0, "label": "h", "hold": True}},
            timeout=30,
        ) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for line in response.iter_lines():
                lines.append(line)
                if lines.count(": heartbeat") == 4:
                    break
        ids = [int(line.removeprefix("id: ")) for line in lines if line.startswith("id: ")]
        events = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
        # Before the parked node: the run's metadata, its input and the first node's values.
        assert events == ["metadata", "values", "values"]
        assert ids == [0, 1, 2]
