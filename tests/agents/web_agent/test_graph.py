"""The web agent in real headless Chromium against the WebShop HTML site, with scripted models.

Each human step is an `interrupt()`; these tests answer them with `Command(resume=...)` on a
graph compiled with an in-memory checkpointer, as the server does with its own.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from typing import Any

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.web_agent.graph import build_graph
from graphs.web_agent.mcp_session import SESSIONS
from tests.agents.web_agent.conftest import SiteServer, chromium_processes
from tests.agents.web_agent.scripted import ScriptedModel, ShopperModel, call, planned

pytestmark = pytest.mark.timeout(120)


class Driver:
    """Runs the graph on one thread and records the interrupts it stopped at."""

    def __init__(self, model: Any, **context: Any) -> None:
        self.graph = build_graph(checkpointer=InMemorySaver())
        self.config = {"configurable": {"thread_id": str(uuid.uuid4())}}
        self.context = {"chat_model": model, **context}

    async def run(self, value: Any) -> dict[str, Any] | None:
        """Run until the next interrupt (its payload) or the end (None)."""
        await self.graph.ainvoke(value, self.config, context=self.context)
        snapshot = await self.graph.aget_state(self.config)
        if snapshot.interrupts:
            return snapshot.interrupts[0].value
        return None

    async def resume(self, answer: Any) -> dict[str, Any] | None:
        return await self.run(Command(resume=answer))

    async def values(self) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config)).values


async def test_clarifies_once_gets_approval_buys_the_goal_item_and_reports(
    shop: SiteServer,
) -> None:
    model = ShopperModel()
    agent = Driver(model)

    asked = await agent.run({"task": "Buy the sulfate free, paraben free shampoo in 32 fl oz"})
    assert asked is not None and asked["type"] == "clarification"
    assert asked["question"] == "Which shop should I use? Please give its address."

    shown = await agent.resume(f"{shop.url}/fixed_0")
    assert shown is not None and shown["type"] == "plan_approval"
    assert len(shown["plan"]) == 3

    assert await agent.resume("yes") is None
    final = await agent.values()

    state = httpx.get(f"{shop.url}/fixed_0/state").json()
    assert state["done"] and state["reward"] == 1.0
    assert "Reward: 1.0" in final["last_snapshot"]  # the done page, as the agent last saw it
    assert final["extracted_data"] == {
        "item": "Ironwood Deluxe Hair Wash, Sulfate Free, Paraben Free",
        "price": final["extracted_data"]["price"],
    }
    price = final["extracted_data"]["price"]
    assert price.startswith("$")
    assert final["final_answer"] == (
        f"Bought Ironwood Deluxe Hair Wash, Sulfate Free, Paraben Free for {price}."
    )
    assert final["outcome"] == "completed" and final["finished"] == "Bought the shampoo."
    assert "Outcome: completed." in final["workflow_summary"]
    assert price in final["workflow_summary"]
    # The shop the person named is opened without asking the model; each step after it is
    # one model decision.
    assert [a["tool"] for a in final["action_history"]] == [
        "browser_navigate",
        "browser_type",
        "browser_click",
        "browser_click",
        "extract_data",
        "extract_data",
        "browser_click",
        "finish",
    ]
    assert final["action_history"][0]["args"] == {"url": f"{shop.url}/fixed_0"}
    assert len(model.agent_prompts) == 7
    # Only the last message (the page) changes between decisions: everything before it is
    # the previous prompt's prefix, which the model's prompt cache re-uses.
    for before, after in itertools.pairwise(model.agent_prompts):
        kept = [(type(m), m.content, getattr(m, "tool_calls", None)) for m in before[:-1]]
        assert kept == [
            (type(m), m.content, getattr(m, "tool_calls", None)) for m in after[: len(kept)]
        ]
        assert "Current page" in str(after[-1].content)
        assert "Current page" not in str(after[0].content)
    assert all(a["ok"] for a in final["action_history"])
    # Snapshots never enter the message history; only the newest is kept, in its own field.
    assert not any("[ref=" in str(m.content) for m in final["messages"])
    assert final["messages"][-1].content.startswith(final["final_answer"])
    # The run's browser, MCP server and session are gone.
    assert SESSIONS.open_keys() == []
    assert chromium_processes() == []


async def test_a_rejected_plan_is_replanned_with_the_feedback() -> None:
    model = ShopperModel()
    agent = Driver(model)
    await agent.run({"task": "Buy shampoo at http://shop.invalid/fixed_0"})
    first = await agent.resume("http://shop.invalid/fixed_0")
    assert first is not None and first["type"] == "plan_approval"

    second = await agent.resume("no, look at the home page before searching")
    assert second is not None and second["type"] == "plan_approval"
    assert second["plan"][0] == "Check the shop's home page first"
    assert second["plan"][1:] == first["plan"]
    values = await agent.values()
    assert values["plan_feedback"] == "look at the home page before searching"


async def test_anything_but_yes_or_no_asks_to_quit_and_quitting_ends_cleanly() -> None:
    model = ScriptedModel(
        script=planned(
            ["Open http://shop.invalid", "Buy shampoo"],
        )
    )
    agent = Driver(model)
    assert (await agent.run({"task": "Buy shampoo at http://shop.invalid"}))["type"] == (
        "plan_approval"
    )
    assert (await agent.resume("hmm"))["type"] == "confirm_quit"
    assert (await agent.resume("what?"))["type"] == "confirm_quit"  # neither: asked again
    assert (await agent.resume("no"))["type"] == "plan_approval"  # not quitting: plan again
    assert (await agent.resume({"decision": "later"}))["type"] == "confirm_quit"
    assert await agent.resume("yes") is None

    final = await agent.values()
    assert final["outcome"] == "quit"
    assert final["final_answer"] is None
    assert "nothing was done in the browser" in final["workflow_summary"]
    assert len(model.seen) == 2  # no model call after the plan
    assert SESSIONS.open_keys() == [] and chromium_processes() == []


async def test_a_failing_run_closes_its_browser(shop: SiteServer) -> None:
    def broken(messages: Any) -> Any:
        raise RuntimeError("the model went away")

    model = ScriptedModel(
        script=planned(
            ["Open the shop"],
            broken,  # the shop named in the task was opened without the model
        )
    )
    agent = Driver(model)
    await agent.run({"task": f"Look at {shop.url}/fixed_3"})
    with pytest.raises(RuntimeError, match="the model went away"):
        await agent.resume("yes")
    # The navigation ran in a real browser before the failure.
    assert "Instruction" in (await agent.values())["last_snapshot"]
    assert SESSIONS.open_keys() == []
    assert chromium_processes() == []


async def test_bad_tool_calls_and_browser_errors_go_back_to_the_model(shop: SiteServer) -> None:
    model = ScriptedModel(
        script=planned(
            ["Open the shop", "Done"],
            call("browser_click", ref="e5"),  # the old argument name
            call("browser_click", target="e999"),  # no such element
            call("finish", result="opened"),
        )
    )
    agent = Driver(model, max_steps=10)
    await agent.run({"task": f"Open {shop.url}/fixed_2"})
    assert await agent.resume("yes") is None
    final = await agent.values()
    results = [a["result"] for a in final["action_history"]]
    assert results[1] == "browser_click: missing target; unknown ref"
    assert "e999" in results[2] and not final["action_history"][2]["ok"]
    # The model saw the failure in its next prompt.
    assert "Last action failed:" in str(model.seen[4][-1].content)
    assert final["outcome"] == "completed" and final["last_error"] is None
    assert SESSIONS.open_keys() == []


async def test_an_action_refused_twice_as_a_repeat_stops_the_run(shop: SiteServer) -> None:
    model = ScriptedModel(
        script=planned(
            ["Open the shop", "Done"],
            call("browser_click", target="e999"),  # fails in the browser
            call("browser_click", target="e999", element="again"),  # refused: failed before
            call("browser_click", target="e999"),  # refused again: the run stops
        )
    )
    agent = Driver(model, max_steps=15)
    await agent.run({"task": f"Open {shop.url}/fixed_2"})
    assert await agent.resume("yes") is None
    final = await agent.values()
    results = [a["result"] for a in final["action_history"]]
    assert "This failed on this page before" in results[2]
    assert results[3].startswith("Refused again as a repeat")
    assert final["outcome"] == "stopped" and final["agent_steps"] == 4
    assert SESSIONS.open_keys() == []


async def test_a_task_is_required() -> None:
    agent = Driver(ScriptedModel(script=[]))
    with pytest.raises(ValueError, match="web_agent needs a task"):
        await agent.run({"task": "  "})


async def test_a_cancelled_run_closes_its_browser(shop: SiteServer) -> None:
    browsing = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow(messages: Any) -> Any:
        loop.call_soon_threadsafe(browsing.set)
        time.sleep(2)  # the model is thinking when the run is cancelled
        return call("finish", result="too late")

    model = ScriptedModel(
        script=planned(
            ["Open the shop"],
            slow,
        )
    )
    agent = Driver(model)
    await agent.run({"task": f"Look at {shop.url}/fixed_4"})
    run = asyncio.create_task(agent.resume("yes"))
    await asyncio.wait_for(browsing.wait(), 60)
    assert len(SESSIONS.open_keys()) == 1 and chromium_processes()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert SESSIONS.open_keys() == []
    assert chromium_processes() == []
