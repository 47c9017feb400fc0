"""The web agent's pure parts: reading a person's answers, fitting prompts into the context
window, trimming snapshots, and the agent prompt staying within budget on a long run."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.web_agent.approval import read_approval, read_yes_no
from graphs.web_agent.context import resolve_context
from graphs.web_agent.context_budget import cut_text, estimate_tokens, fit_history
from graphs.web_agent.graph import build_graph
from graphs.web_agent.replies import Answer, Clarification, Plan
from graphs.web_agent.snapshots import compact, split_snapshot
from graphs.web_agent.tools import AGENT_TOOLS, agent_tools
from tests.agents.web_agent.scripted import ScriptedModel, call, structured


@pytest.mark.parametrize(
    ("answer", "kind", "feedback"),
    [
        ("yes", "yes", ""),
        ("  Y ", "yes", ""),
        ({"decision": "approve"}, "yes", ""),
        ("no, search for 16 oz instead", "no", "search for 16 oz instead"),
        ({"decision": "no", "feedback": "use the cheaper one"}, "no", "use the cheaper one"),
        ("yes but open the reviews first", "no", "but open the reviews first"),
        ("no", "no", ""),
        ("perhaps", "other", ""),
        ("", "other", ""),
        (42, "other", ""),
    ],
)
def test_approval_answers(answer: Any, kind: str, feedback: str) -> None:
    verdict = read_approval(answer)
    assert (verdict.kind, verdict.feedback) == (kind, feedback)


def test_yes_no_answers() -> None:
    assert read_yes_no("Yes.") is True
    assert read_yes_no({"answer": "n"}) is False
    assert read_yes_no("what do you mean") is None


def _round(i: int, size: int) -> list[Any]:
    return [
        AIMessage(
            "", tool_calls=[{"name": "browser_click", "args": {"target": f"e{i}"}, "id": f"{i}"}]
        ),
        ToolMessage("x" * size, tool_call_id=f"{i}"),
    ]


def test_history_is_dropped_oldest_first_with_calls_and_results_together() -> None:
    history = [HumanMessage("go")] + [m for i in range(10) for m in _round(i, 700)]
    kept, dropped = fit_history(system_tokens=500, history=history, budget=1500)
    assert 0 < dropped < len(history)
    assert kept == history[-len(kept) :]  # a suffix: the newest part
    assert isinstance(kept[0], AIMessage)  # never a result without its call
    kept_all, none_dropped = fit_history(500, history, budget=100_000)
    assert kept_all == history and none_dropped == 0
    # The newest round is kept even when nothing fits, since it is what the model answers.
    last, _ = fit_history(10_000, history, budget=1000)
    assert last == history[-2:]


def test_snapshots_are_split_compacted_and_cut() -> None:
    result = (
        "### Page\n- Page URL: http://shop/fixed_0\n- Page Title: WebShop\n### Snapshot\n```yaml\n"
        '- link "Buy Now" [ref=e16] [cursor=pointer]:\n    - /url: /fixed_0/click?target=buy\n'
        "- paragraph [ref=e17]: Price\n```"
    )
    url, body = split_snapshot(result)
    assert url == "http://shop/fixed_0"
    assert compact(body) == '- link "Buy Now" [ref=e16]:\n- paragraph [ref=e17]: Price'
    long = "\n".join(f"- paragraph [ref=e{i}]: text {i}" for i in range(500))
    cut = cut_text(long, 200)
    assert estimate_tokens(cut) < 230 and cut.endswith(
        "[... page cut to fit the model's context ...]"
    )
    assert cut.startswith("- paragraph [ref=e0]")


def test_bad_context_is_rejected_with_the_field_named() -> None:
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        resolve_context({"max_steps": 0})
    with pytest.raises(ValueError, match="unknown web_agent context field"):
        resolve_context({"max_step": 3})


async def test_a_long_run_keeps_every_agent_prompt_within_the_budget() -> None:
    """Thirty rounds of bulky tool traffic against a 1,500-token budget: the agent keeps going
    (no overflow error) and each prompt stays under the budget."""
    rounds = 30
    script: list[Any] = [
        structured(Clarification, need_clarification=False),
        structured(Plan, steps=["Note thirty things"]),
    ]
    script += [call("extract_data", name=f"note{i}", value="y" * 280) for i in range(rounds)]
    script += [call("think", thought="z" * 290), structured(Answer, final_answer="30 notes")]
    model = ScriptedModel(script=script)
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": str(uuid.uuid4())}, "recursion_limit": 500}
    context = {"chat_model": model, "context_tokens": 1500, "max_steps": rounds + 1}
    await graph.ainvoke({"task": "Take notes"}, config, context=context)
    await graph.ainvoke(Command(resume="yes"), config, context=context)
    agent_prompts = [p for p in model.seen if isinstance(p[0], SystemMessage)]
    assert len(agent_prompts) == rounds + 1
    sizes = [sum(estimate_tokens(str(m.content)) + 6 for m in p) for p in agent_prompts]
    assert max(sizes) <= 1500
    assert len(agent_prompts[-1]) < len(agent_prompts[rounds // 2]) + 2  # old rounds dropped
    assert not any("note0" in str(m.content) for m in agent_prompts[-1][1:])
    final = (await graph.aget_state(config)).values
    assert len(final["extracted_data"]) == rounds and final["outcome"] == "completed"


def test_no_snapshot_tool_while_a_fresh_page_is_shown() -> None:
    offered = [t["function"]["name"] for t in agent_tools('- textbox "Search" [ref=e3]')]
    assert "browser_snapshot" not in offered
    assert {"browser_click", "browser_type", "think", "extract_data"} <= set(offered)
    # Before any page was read, reading one is a way to start.
    assert agent_tools("") == AGENT_TOOLS
