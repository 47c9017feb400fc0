"""One run of the agent through a live `olg serve`, the real SDK and the real 135M model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphs.plan_execute.context import DEFAULT_MAX_REPLANS
from graphs.plan_execute.plan_schema import MAX_PLAN_STEPS
from tests.agents.plan_execute.conftest import DOCUMENTS
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

WORST_CASE_SUPERSTEPS = 2 + (DEFAULT_MAX_REPLANS + 1) * (MAX_PLAN_STEPS + 1) + 1


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("plan-execute-server")
    docs = directory / "docs"
    docs.mkdir()
    for name, text in DOCUMENTS.items():
        (docs / name).write_text(text)
    # The same file:attribute entry open_langgraph.json registers.
    graph_file = Path(__file__).parents[3] / "graphs" / "plan_execute" / "graph.py"
    config = write_config(directory, graphs={"plan_execute": f"{graph_file}:graph"})
    with serving(
        directory, config, env={"OLG_SEARCH_DOCS": str(docs), "TAVILY_API_KEY": ""}
    ) as process:
        yield process


@pytest.mark.timeout(300)  # the 135M model on 2 shared cores: ~25 s idle, more under load
async def test_a_question_ends_in_an_answer_or_a_stated_refusal(server: ServerProcess) -> None:
    async with sdk_client(server.url) as client:
        thread = await client.threads.create()
        final = await client.runs.wait(
            thread["thread_id"],
            "plan_execute",
            input={"messages": [{"role": "user", "content": "Which dish is from Busan?"}]},
            # A short cap on free-text replies keeps the run brief; structured replies of the
            # embedded model still get the length their schema needs.
            context={"model": "local/smollm2-135m", "max_tokens": 48},
            # The graph's own bound, not the test server's default of 10: classifier, planner,
            # every step of the first plan and of each re-plan, the re-planner, the responder.
            config={"recursion_limit": WORST_CASE_SUPERSTEPS},
        )
        [run] = await client.runs.list(thread["thread_id"])

    assert run["status"] == "success", final
    assert final["intent"] in ("new_question", "follow_up", "clarification", "chitchat")
    assert final["result"].strip()
    assert final["messages"][-1]["type"] == "ai"
    assert final["messages"][-1]["content"] == final["result"]
    if final["error"]:  # fail-closed: the stop is explained, and no answer is made up
        assert final["result"] == f"I stopped without answering because {final['error']}."
    else:
        for record in final["past_steps"]:
            assert record["status"] in ("ok", "error")
            assert record["step"]["tool"] in final["available_tools"]
