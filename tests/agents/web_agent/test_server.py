"""The web agent served by a live `olg serve`: interrupts reach the real `langgraph_sdk` client
as interrupt events and resume correctly, and `olg run` drives the same run from a terminal.
The browser is real headless Chromium; the model is the scripted shopper."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.agents.web_agent.conftest import SiteServer
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]
GRAPH_FILE = Path(__file__).parents[3] / "graphs" / "web_agent" / "graph.py"
OLG_RUN = [sys.executable, "-m", "open_langgraph.cli", "run", "web_agent_scripted"]
TASK = "Buy the sulfate free, paraben free shampoo in 32 fl oz"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("web-agent-server")
    config = write_config(
        directory,
        graphs={
            "web_agent": f"{GRAPH_FILE}:graph",
            "web_agent_scripted": "tests.agents.web_agent.served_graph:graph",
        },
        default_config={"recursion_limit": 60},
    )
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


async def _interrupts(
    client: LangGraphClient, thread_id: str, **request: Any
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    async for part in client.runs.stream(
        thread_id, "web_agent_scripted", stream_mode=["updates"], **request
    ):
        assert part.event != "error", part.data
        if part.event == "updates" and "__interrupt__" in part.data:
            found.extend(part.data["__interrupt__"])
    return found


async def test_the_real_graph_is_served_with_its_context_schema(client: LangGraphClient) -> None:
    [assistant] = await client.assistants.search(graph_id="web_agent", metadata={})
    schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    assert {"model", "max_steps", "context_tokens"} <= set(schemas["context_schema"]["properties"])


async def test_interrupts_arrive_as_events_and_resume_through_the_sdk(
    client: LangGraphClient, shop: SiteServer
) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    [asked] = await _interrupts(client, thread_id, input={"task": TASK})
    assert asked["value"]["type"] == "clarification"
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"

    [shown] = await _interrupts(
        client, thread_id, input=None, command={"resume": f"{shop.url}/fixed_0"}
    )
    assert shown["value"]["type"] == "plan_approval" and len(shown["value"]["plan"]) == 3

    assert await _interrupts(client, thread_id, input=None, command={"resume": "yes"}) == []
    runs = await client.runs.list(thread_id)
    # Each run ended as it should, the two that stopped at a question included (as on the
    # Platform, a run's `interrupted` means cancelled; the thread was `interrupted` between).
    assert [r["status"] for r in runs] == ["success", "success", "success"]
    values = (await client.threads.get_state(thread_id))["values"]
    assert values["outcome"] == "completed"
    assert values["final_answer"].startswith("Bought Ironwood Deluxe Hair Wash")
    assert httpx.get(f"{shop.url}/fixed_0/state").json()["reward"] == 1.0


def test_olg_run_answers_the_questions_from_stdin(served: ServerProcess, shop: SiteServer) -> None:
    done = subprocess.run(
        [*OLG_RUN, TASK, "--url", served.url],
        input=f"{shop.url}/fixed_0\nyes\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Which shop should I use? Please give its address." in out
    assert "Plan:\n  1. Open the shop and search for the shampoo" in out
    assert "-> browser_navigate" in out and "found price: $" in out
    assert "Answer:\nBought Ironwood Deluxe Hair Wash, Sulfate Free, Paraben Free for $" in out
    assert "Summary:\nOutcome: completed.\nThe agent's own account: Bought the shampoo." in out
    assert httpx.get(f"{shop.url}/fixed_0/state").json()["reward"] == 1.0


def test_olg_run_stops_cleanly_when_stdin_ends(served: ServerProcess) -> None:
    done = subprocess.run(
        [*OLG_RUN, TASK, "--url", served.url],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3
    assert "stays interrupted" in done.stderr


def test_olg_run_rejects_bad_arguments(served: ServerProcess) -> None:
    done = subprocess.run(
        [*OLG_RUN, "x", "--url", served.url, "--context", "[1]"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "--context must be a JSON dict" in done.stderr
