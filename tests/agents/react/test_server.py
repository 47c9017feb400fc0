"""The ReAct agent family served by a live `olg serve` from the project's own open_langgraph.json,
driven through the official `langgraph_sdk` client; the model is the real embedded SmolLM2.

SmolLM2-135M is too small to answer well, so these tests assert what a client relies on (runs
complete, the thread keeps the conversation, the model's second turn is given the first) and
never the wording of an answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving

pytestmark = pytest.mark.e2e

PROJECT_ROOT = Path(__file__).resolve().parents[3]
AGENTS = ("react_agent", "react_agent_hitl", "subgraph_agent")
# A recursion limit of 3 leaves room for one model call per run (a tool call then becomes the
# out-of-steps answer), and one short search result keeps prompts small: the model part of this
# module costs two SmolLM2 calls, a few seconds on an idle 2-core machine.
BOUNDED = {"recursion_limit": 3}
SHORT = {"max_search_results": 1}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("react-server")
    with serving(
        directory,
        PROJECT_ROOT / "open_langgraph.json",
        env={"OLG_MODEL": "local/smollm2-135m", "OLG_SEARCH_DOCS": "", "TAVILY_API_KEY": ""},
    ) as process:
        yield process


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if isinstance(m.get("content"), str)]


async def test_each_agent_has_its_system_assistant_at_start_up(client: LangGraphClient) -> None:
    for graph_id in AGENTS:
        [assistant] = await client.assistants.search(graph_id=graph_id, metadata={})
        assert assistant["metadata"].get("created_by") == "system"
        schemas = await client.assistants.get_schemas(assistant["assistant_id"])
        context_fields = schemas["context_schema"]["properties"]
        assert {"system_prompt", "model", "max_search_results"} <= set(context_fields)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"context": {"model": "local/no-such-model"}}, "unknown local model 'no-such-model'"),
        (
            {"config": {"configurable": {"model": "local/from-configurable"}}},
            "unknown local model 'from-configurable'",
        ),
        ({"context": {"max_search_results": "many"}}, "max_search_results must be an integer"),
    ],
)
async def test_run_context_and_configurable_reach_the_agent(
    client: LangGraphClient, settings: dict[str, Any], expected: str
) -> None:
    thread = await client.threads.create()
    parts = [
        part
        async for part in client.runs.stream(
            thread["thread_id"],
            "react_agent",
            input={"messages": [{"role": "user", "content": "hi"}]},
            **settings,
        )
    ]
    assert parts[-1].event == "error"
    assert expected in parts[-1].data["message"]


@pytest.mark.timeout(600)  # generous: other processes may share the 2 cores with the model
async def test_second_question_is_answered_with_the_first_turn_in_view(
    client: LangGraphClient,
) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    first = "My favourite number is 42."
    second = "What is my favourite number plus 8?"

    await client.runs.wait(
        thread_id,
        "react_agent",
        input={"messages": [{"role": "user", "content": first}]},
        config=BOUNDED,
        context=SHORT,
    )
    after_first = (await client.threads.get_state(thread_id))["values"]["messages"]
    assert after_first[0]["content"] == first
    assert after_first[-1]["type"] == "ai" and not after_first[-1].get("tool_calls")

    model_inputs: list[list[dict[str, Any]]] = []
    async for part in client.runs.stream(
        thread_id,
        "react_agent",
        input={"messages": [{"role": "user", "content": second}]},
        config=BOUNDED,
        context=SHORT,
        stream_mode=["tasks"],
    ):
        if part.event == "tasks" and part.data.get("name") == "model" and "input" in part.data:
            model_inputs.append(part.data["input"]["messages"])

    # The model's first call of the second run was given the whole first turn, then the question.
    assert model_inputs, "the second run never called the model"
    seen = model_inputs[0]
    assert [m["id"] for m in seen[: len(after_first)]] == [m["id"] for m in after_first]
    assert seen[len(after_first)]["content"] == second

    runs = await client.runs.list(thread_id)
    assert [run["status"] for run in runs] == ["success", "success"]
    final = (await client.threads.get_state(thread_id))["values"]["messages"]
    assert _texts(final).index(first) < _texts(final).index(second)
    assert final[-1]["type"] == "ai" and not final[-1].get("tool_calls")
    history = await client.threads.get_history(thread_id, limit=100)
    assert len(history) > 4


@pytest.mark.timeout(600)
async def test_a_seed_style_config_with_auth_serves_react_agent_to_its_user(
    tmp_path: Path,
) -> None:
    """`graphs` + `auth` + `env`, as the ReAct guide registers its agents: the agent is served
    to an authenticated client only, and its thread is the caller's alone."""
    (tmp_path / ".env").write_text(
        "OLG_API_KEYS=alice:alice-key,bob:bob-key\nOLG_MODEL=local/smollm2-135m\n"
        "OLG_SEARCH_DOCS=\nTAVILY_API_KEY=\n"
    )
    config = tmp_path / "open_langgraph.json"
    config.write_text(
        json.dumps(
            {
                "dependencies": [str(PROJECT_ROOT)],
                "graphs": {"react_agent": f"{PROJECT_ROOT}/graphs/react_agent/graph.py:graph"},
                "auth": {"path": f"{PROJECT_ROOT}/examples/auth/api_key_auth.py:auth"},
                "env": ".env",
            }
        )
    )
    with serving(tmp_path, config) as server:
        async with (
            sdk_client(server.url, api_key="alice-key") as alice,
            sdk_client(server.url, api_key="bob-key") as bob,
        ):
            async with httpx.AsyncClient(base_url=server.url) as nobody:
                refused = await nobody.post("/threads", json={})
            assert refused.status_code == 401
            thread_id = (await alice.threads.create())["thread_id"]
            result = await alice.runs.wait(
                thread_id,
                "react_agent",
                input={"messages": [{"role": "user", "content": "hi"}]},
                config=BOUNDED,
                context=SHORT,
            )
            assert result["messages"][-1]["type"] == "ai"
            assert await bob.threads.search() == []
            with pytest.raises(httpx.HTTPStatusError) as hidden:
                await bob.threads.get_state(thread_id)
            assert hidden.value.response.status_code == 404
