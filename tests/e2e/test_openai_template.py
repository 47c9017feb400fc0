"""A project written for OpenAI runs offline: its own `langgraph.json` and `src/` layout, a graph
calling `init_chat_model("openai:gpt-4o-mini")` with a bound tool, served unchanged with
`OPENAI_BASE_URL` pointing at the same server's `/v1`. The model that answers is the embedded
SmolLM2 (`OLG_MODEL=local/smollm2-135m`: OpenAI's model names with no alias go to the default
embedded model, docs/models.md). No OpenAI key and no network: the key is `sk-local`.

The same graph on Anthropic's model string (no `langchain-anthropic`, no key) runs on SmolLM2
because the project's langgraph.json gains a `models.aliases` entry, as docs/models.md says.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import httpx
import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import FIXTURES, ServerProcess, serving

pytestmark = pytest.mark.e2e

TEMPLATE = FIXTURES / "projects" / "openai_template"


@pytest.fixture(scope="module")
def template_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("openai-template")
    project = directory / "weather-agent"
    shutil.copytree(TEMPLATE, project)
    config = json.loads((project / "langgraph.json").read_text())
    config["models"] = {"aliases": {"anthropic:claude-3-5-haiku-latest": "local/smollm2-135m"}}
    (project / "langgraph.json").write_text(json.dumps(config))
    env = {
        "OLG_MODEL": "local/smollm2-135m",
        "OPENAI_API_KEY": "sk-local",
        # The project's model client calls this very server.
        "OPENAI_BASE_URL": lambda server: f"{server.url}/v1",
    }
    with serving(directory, project / "langgraph.json", cwd=project, env=env) as process:
        yield process


async def test_a_run_calls_the_tool_and_answers(template_server: ServerProcess) -> None:
    before = _served_by_v1(template_server)
    messages = await _weather_turn(template_server, "agent", "Paris")
    call = messages[1]["tool_calls"][0]
    assert call["name"] == "get_weather" and isinstance(call["args"]["city"], str)
    assert messages[2]["content"].startswith("It is sunny")
    answer = messages[3]
    assert isinstance(answer["content"], str) and answer["content"].strip()
    # The answer came from the embedded model, through /v1.
    assert answer["response_metadata"]["model_name"] == "smollm2-135m"
    assert _served_by_v1(template_server) - before == 2


async def test_an_aliased_anthropic_model_runs_on_the_embedded_model(
    template_server: ServerProcess,
) -> None:
    before = _served_by_v1(template_server)
    messages = await _weather_turn(template_server, "claude_agent", "Oslo")
    assert messages[1]["tool_calls"][0]["name"] == "get_weather"
    assert messages[3]["response_metadata"]["model_name"] == "smollm2-135m"
    # In the server's own process, not through /v1: the alias replaced the model itself.
    assert _served_by_v1(template_server) == before


async def _weather_turn(server: ServerProcess, graph: str, city: str) -> list[dict]:
    """One question about `city` to `graph` on a new thread: the run succeeded, and its
    messages have the shape question, tool call, tool result, answer."""
    question = {"role": "user", "content": f"What is the weather in {city}?"}
    async with sdk_client(server.url) as client:
        thread = await client.threads.create()
        result = await client.runs.wait(thread["thread_id"], graph, input={"messages": [question]})
        runs = await client.runs.list(thread["thread_id"])
    assert runs[0]["status"] == "success", result
    messages = result["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai"]
    return messages


def _served_by_v1(server: ServerProcess) -> float:
    """Chat completions `/v1` answered so far."""
    families = httpx.get(f"{server.url}/metrics", params={"format": "json"}).json()
    return sum(
        sample["value"]
        for sample in families.get("olg_openai_requests_total", [])
        if sample["labels"]["endpoint"] == "chat/completions"
        and sample["labels"]["outcome"] == "ok"
    )
