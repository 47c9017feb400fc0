"""`olg run` says when the embedded model loads: the first call on it waits seconds for the
load, which a terminal that shows nothing makes look like a hang."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from tests.fixtures.server import TEST_GRAPHS, ServerProcess, serving, write_config

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
GRAPHS = {**TEST_GRAPHS, "small_model": "tests.fixtures.local_model_graph:graph"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of its own per test: the model is not loaded in it yet."""
    with serving(tmp_path, write_config(tmp_path, graphs=GRAPHS)) as process:
        yield process


def olg_run(served: ServerProcess, request: str, *options: str, graph: str = "small_model"):
    done = subprocess.run(
        [
            *(sys.executable, "-m", "open_langgraph.cli", "run", graph, request, *options),
            *("--url", served.url),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_first_run_says_the_model_loads_and_the_next_does_not(served: ServerProcess):
    first = olg_run(served, "Say hello.")
    loading = [i for i, line in enumerate(first) if "loading local/smollm2-135m" in line]
    loaded = [i for i, line in enumerate(first) if "local/smollm2-135m loaded in" in line]
    assert loading and loaded and loading[0] < loaded[0], first
    # Before anything the model produced.
    assert loading[0] == 0, first
    second = olg_run(served, "Say hello again.")
    assert not any("loading local/" in line for line in second), second


async def test_stage_messages_reach_sdk_clients_on_the_custom_stream_mode(
    served: ServerProcess,
):
    """What a UI shows: `{"type": "status", ...}` on `custom` while the model loads."""
    client = get_client(url=served.url)
    thread = await client.threads.create()
    parts = [
        part
        async for part in client.runs.stream(
            thread["thread_id"],
            "small_model",
            input={"messages": [{"role": "user", "content": "Hi"}]},
            stream_mode=["custom", "updates"],
        )
    ]
    customs = [p.data for p in parts if p.event == "custom"]
    assert [c["stage"] for c in customs] == ["model_load", "model_loaded"], customs
    assert all(c["type"] == "status" and "local/smollm2-135m" in c["message"] for c in customs)
    # Both before the node's update with the reply.
    events = [p.event for p in parts if p.event in ("custom", "updates")]
    assert events[:3] == ["custom", "custom", "updates"], events


def test_a_subgraphs_nodes_report_as_they_finish(served: ServerProcess):
    """`nested` runs `counter` as its node `inner`: its nodes `a` and `b` are shown under it,
    in order, before the parent's own `inner` update."""
    lines = olg_run(served, "", "--input-json", '{"count": 0}', graph="nested")
    steps = [line for line in lines if line.startswith("[")]
    assert steps[:4] == ["[prepare]", "[inner > a]", "[inner > b]", "[inner]"], lines
