"""A project written for OpenAI runs offline: its own `langgraph.json` and `src/` layout, a graph
calling `init_chat_model("openai:gpt-4o-mini")` with a bound tool, served unchanged with
`OPENAI_BASE_URL` pointing at the same server's `/v1`. The model that answers is the embedded
SmolLM2 (`OLG_MODEL=local/smollm2-135m`: OpenAI's model names with no alias go to the default
embedded model, docs/models.md). No OpenAI key and no network: the key is `sk-local`.
"""

from __future__ import annotations

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
    env = {
        "OLG_MODEL": "local/smollm2-135m",
        "OPENAI_API_KEY": "sk-local",
        # The project's model client calls this very server.
        "OPENAI_BASE_URL": lambda server: f"{server.url}/v1",
    }
    with serving(directory, project / "langgraph.json", cwd=project, env=env) as process:
        yield process


async def test_a_run_calls_the_tool_and_answers(template_server: ServerProcess) -> None:
    async with sdk_client(template_server.url) as client:
        thread = await client.threads.create()
        result = await client.runs.wait(
            thread["thread_id"],
            "agent",
            input={"messages": [{"role": "user", "content": "What is the weather in Paris?"}]},
        )
        runs = await client.runs.list(thread["thread_id"])
    assert runs[0]["status"] == "success", result
    messages = result["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai"]
    call = messages[1]["tool_calls"][0]
    assert call["name"] == "get_weather" and isinstance(call["args"]["city"], str)
    assert messages[2]["content"].startswith("It is sunny")
    answer = messages[3]
    assert isinstance(answer["content"], str) and answer["content"].strip()
    # The answer came from the embedded model, through /v1.
    assert answer["response_metadata"]["model_name"] == "smollm2-135m"
    families = httpx.get(f"{template_server.url}/metrics", params={"format": "json"}).json()
    served = [
        s["value"]
        for s in families["olg_openai_requests_total"]
        if s["labels"]["endpoint"] == "chat/completions" and s["labels"]["outcome"] == "ok"
    ]
    assert sum(served) == 2
