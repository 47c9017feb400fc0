"""react_agent_hitl served by a live `olg serve`, on the scripted model of
tests/ui/scripted_agents.py, driven through the official `langgraph_sdk` client: answers in the
middleware's format resume it, and both ways clients end a review
(`goto: "__end__"`, a state update as `__end__`) leave the thread idle and ready for the next
question."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e
AGENT = "react_agent_hitl"
QUESTION = {"messages": [{"role": "user", "content": "calculate 6 * 7"}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("react-hitl-server")
    with serving(
        directory,
        write_config(directory, graphs={AGENT: "tests.ui.scripted_agents:react_agent_hitl"}),
        env={"OLG_SEARCH_DOCS": "", "TAVILY_API_KEY": ""},
    ) as process:
        yield process


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


async def _paused(client: LangGraphClient) -> tuple[str, dict[str, Any]]:
    thread_id = (await client.threads.create())["thread_id"]
    paused = await client.runs.wait(thread_id, AGENT, input=QUESTION)
    [pending] = paused["__interrupt__"]
    return thread_id, pending


def _tool_results(values: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["content"], m["status"]) for m in values["messages"] if m["type"] == "tool"]


@pytest.mark.parametrize(
    ("resume", "result"),
    [
        pytest.param(
            {"decisions": [{"type": "respond", "message": "forty-two"}]},
            ("forty-two", "success"),
            id="respond",
        ),
        pytest.param({"decisions": [{"type": "approve"}]}, ("42", "success"), id="approve"),
        pytest.param(
            {
                "decisions": [
                    {
                        "type": "edit",
                        "edited_action": {"name": "calculator", "args": {"expression": "6*8"}},
                    }
                ]
            },
            ("48", "success"),
            id="edit",
        ),
    ],
)
async def test_answers_resume_the_run(
    client: LangGraphClient, resume: Any, result: tuple[str, str]
) -> None:
    thread_id, pending = await _paused(client)
    request = pending["value"]
    assert request["action_requests"][0]["description"] == (
        "Tool execution requires approval\n\nTool: calculator\nArgs: {'expression': '6 * 7'}"
    )
    assert request["review_configs"] == [
        {"action_name": "calculator", "allowed_decisions": ["approve", "edit", "reject", "respond"]}
    ]
    # As the JS SDK's `submit({}, {command})` sends it: an empty input with the command.
    done = await client.runs.wait(thread_id, AGENT, input={}, command={"resume": resume})
    [(content, status)] = _tool_results(done)
    assert content.endswith(result[0]) and status == result[1]
    assert (await client.threads.get(thread_id))["status"] == "idle"


@pytest.mark.parametrize("how", ["goto __end__", "state update as __end__"])
async def test_an_ended_review_leaves_the_thread_idle_for_the_next_question(
    client: LangGraphClient, how: str
) -> None:
    thread_id, _ = await _paused(client)
    if how == "goto __end__":
        await client.runs.wait(thread_id, AGENT, command={"goto": "__end__"})
    else:
        await client.threads.update_state(thread_id, None, as_node="__end__")
    thread = await client.threads.get(thread_id)
    assert (thread["status"], thread["interrupts"]) == ("idle", {})
    assert (await client.threads.get_state(thread_id))["next"] == []

    again = {"messages": [{"role": "user", "content": "calculate 1 + 1"}]}
    await client.runs.wait(thread_id, AGENT, input=again)
    approve = {"decisions": [{"type": "approve"}]}
    done = await client.runs.wait(thread_id, AGENT, command={"resume": approve})
    # The ended call never ran; the new one did, and the run went on past it.
    assert _tool_results(done) == [("2", "success")]
    assert done["messages"][-1]["content"] == "The calculator says 2. That is the answer."
