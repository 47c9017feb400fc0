"""LASER served by a live `olg serve`, driven by the real SDK with the real 135M model: with no
environment injected, the graph makes its own demo-catalog session for the thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("laser-server")
    graph_file = Path(__file__).parents[3] / "graphs" / "laser" / "graph.py"
    config = write_config(directory, graphs={"laser": f"{graph_file}:graph"})
    with serving(directory, config) as process:
        yield process


@pytest.mark.timeout(300)  # the 135M model on 2 shared cores: ~20 s idle, more under load
async def test_served_episode_ends_in_a_purchase_with_checkpointed_state(
    server: ServerProcess,
) -> None:
    async with sdk_client(server.url) as client:
        thread = await client.threads.create()
        final = await client.runs.wait(
            thread["thread_id"],
            "laser",
            input={},
            context={
                "model": "local/smollm2-135m",
                "goal_index": 1,
                "max_steps": 2,
                "backup_after": 1,
                "thought_tokens": 8,
            },
        )
        [run] = await client.runs.list(thread["thread_id"])
        state = await client.threads.get_state(thread["thread_id"])
        other = await client.threads.create()
        with pytest.raises(Exception, match="max_steps must be at least 1"):
            await client.runs.wait(
                other["thread_id"],
                "laser",
                input={},
                context={"model": "local/smollm2-135m", "max_steps": 0},
            )

    assert run["status"] == "success", final
    assert final["user_instruction"].startswith("Find me relaxed fit, short sleeve men's t-shirts")
    assert final["current_laser_state"] == "Stopping"
    assert final["info"]["done"] is True
    assert final["info"]["backup_fired"] is True
    assert final["info"]["invalid_actions"] == 0
    assert 0 <= final["info"]["reward"] <= 1
    assert state["values"]["action_history"] == final["action_history"]
