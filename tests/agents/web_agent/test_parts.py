"""The web agent's pure parts: reading a person's answers, fitting prompts into the context
window, telling actions back, trimming snapshots, the refs each element tool may take, and the
agent prompt staying within budget on a long run."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.web_agent.approval import read_approval, read_yes_no
from graphs.web_agent.context import resolve_context
from graphs.web_agent.context_budget import cut_text, estimate_tokens
from graphs.web_agent.graph import build_graph
from graphs.web_agent.history import actions_block
from graphs.web_agent.replies import Answer
from graphs.web_agent.snapshots import compact, elements, split_snapshot
from graphs.web_agent.tools import AGENT_TOOLS, agent_tools, decode_tools
from tests.agents.web_agent.scripted import ScriptedModel, call, planned, structured


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


def test_actions_are_told_in_words_newest_kept_and_without_refs() -> None:
    records = [
        {"tool": "browser_navigate", "args": {"url": "http://s/"}, "ok": True},
        {
            "tool": "browser_type",
            "args": {"target": "e6", "text": "pillow", "submit": True},
            "label": "textbox",
            "ok": True,
        },
        {"tool": "browser_click", "args": {"target": "f2e8"}, "label": 'link "B07X1"', "ok": True},
        {
            "tool": "browser_click",
            "args": {"target": "e7"},
            "ok": False,
            "result": "Ref e7 gone",
        },
        {"tool": "extract_data", "args": {"name": "price", "value": "$3"}, "ok": True},
    ]
    block = actions_block(records, max_tokens=1000)
    assert block.splitlines() == [
        "Actions so far:",
        "1. opened http://s/",
        '2. typed "pillow" into textbox and pressed Enter',
        '3. clicked link "B07X1"',
        "4. clicked e7: FAILED (Ref e7 gone)",
        "5. noted price",
    ]
    short = actions_block(records, max_tokens=16)
    assert short.startswith("Actions so far (3 older not shown):") and "5. noted price" in short
    assert actions_block([], 100) == "Actions so far: none.\n"


PAGE = """- generic [ref=e1]:
  - paragraph [ref=e2]: "Find me \\"red\\" socks"
  - textbox [active] [ref=e6]
  - button "Search" [ref=e7]
  - link "Next >" [ref=f2e6]:
  - heading [level=4] [ref=f2e7]:
    - link "B0743JKHBV" [ref=f2e8]:
  - combobox "Size" [ref=e9]"""


def test_element_tools_are_decoded_to_the_refs_of_their_roles() -> None:
    assert elements(PAGE)["f2e8"] == 'link "B0743JKHBV"' and elements(PAGE)["e6"] == "textbox"
    narrowed = {t["function"]["name"]: t["function"] for t in decode_tools(AGENT_TOOLS, PAGE)}
    target = "target"
    click = narrowed["browser_click"]["parameters"]["properties"][target]
    assert click["enum"] == ["e7", "f2e6", "f2e8", "e9"]
    assert narrowed["browser_type"]["parameters"]["properties"][target]["enum"] == ["e6", "e9"]
    assert narrowed["browser_select_option"]["parameters"]["properties"][target]["enum"] == ["e9"]
    assert {"browser_navigate", "extract_data", "finish"} <= set(narrowed)
    # A page with nothing to type into or choose from leaves those tools out.
    links_only = {t["function"]["name"] for t in decode_tools(AGENT_TOOLS, '- link "A" [ref=e1]')}
    assert "browser_click" in links_only and "browser_type" not in links_only
    assert "browser_select_option" not in links_only
    # The general schemas (what the prompt shows) are left as they were.
    assert "enum" not in str(AGENT_TOOLS)


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
    script = planned(
        ["Note thirty things"],
        *[call("extract_data", name=f"note{i}", value="y" * 280) for i in range(rounds)],
        call("finish", result="z" * 290),
        structured(Answer, final_answer="30 notes"),
    )
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
    # The oldest findings are left out of the prompt (not the state), and said to be.
    last = str(agent_prompts[-1][-1].content)
    assert "'note0'" not in last and "older findings not shown" in last
    assert "30. noted note29" in last  # the actions, a line each, still fit
    final = (await graph.aget_state(config)).values
    assert len(final["extracted_data"]) == rounds and final["outcome"] == "completed"


def test_no_snapshot_tool_while_a_fresh_page_is_shown() -> None:
    offered = [t["function"]["name"] for t in agent_tools('- textbox "Search" [ref=e3]')]
    assert "browser_snapshot" not in offered
    assert {"browser_click", "browser_type", "finish", "extract_data"} <= set(offered)
    # Before any page was read, reading one is a way to start.
    assert agent_tools("") == AGENT_TOOLS
