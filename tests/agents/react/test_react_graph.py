"""The ReAct agent graph with a scripted model: the tool loop, the call limit, its settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from graphs.react_agent import graph
from graphs.react_agent.context import Context
from graphs.react_agent.graph import MAX_TOOL_ROUNDS
from graphs.react_agent.prompts import SYSTEM_PROMPT
from graphs.toolkit.middleware import OUT_OF_STEPS_ANSWER

from .conftest import ModelScript, tool_call

QUESTION = {"messages": [HumanMessage("What's 25 * 4 + 17?")]}


async def test_tool_loop_feeds_the_result_back_to_the_model(script: ModelScript) -> None:
    model = script(tool_call("calculator", "c1", expression="25 * 4 + 17"), AIMessage("117"))
    result = await graph.ainvoke(QUESTION)

    kinds = [type(m).__name__ for m in result["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    tool_message = result["messages"][2]
    assert (tool_message.content, tool_message.tool_call_id) == ("117", "c1")
    assert result["messages"][-1].content == "117"
    # The second model call saw the system prompt, the question, its call and the tool's result.
    second = model.seen[1]
    assert isinstance(second[0], SystemMessage)
    assert "{system_time}" not in second[0].content
    assert "Today's date: 20" in second[0].content
    assert [type(m).__name__ for m in second[1:]] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert model.bound_tools[0][:3] == ["search", "calculator", "get_current_time"]


@pytest.mark.parametrize(
    ("expression", "result"),
    [("15% of 80", "12"), ("150 + 7%", "160.5"), ("2^10", "1024"), ("3 squared", "9")],
)
async def test_calculator_takes_what_a_small_model_writes(
    script: ModelScript, expression: str, result: str
) -> None:
    model = script(tool_call("calculator", "c1", expression=expression), AIMessage(result))
    answer = await graph.ainvoke(QUESTION)

    tool_message = answer["messages"][2]
    assert isinstance(tool_message, ToolMessage)
    assert (tool_message.content, tool_message.status) == (result, "success")
    assert model.seen[1][-1] == tool_message


async def test_calculator_refusal_reaches_the_model_and_the_run_goes_on(
    script: ModelScript,
) -> None:
    model = script(
        tool_call("calculator", "c1", expression="__import__('os').system('id')"),
        AIMessage("I can only do arithmetic."),
    )
    result = await graph.ainvoke(QUESTION)

    refusal = result["messages"][2]
    assert isinstance(refusal, ToolMessage)
    assert refusal.status == "error"
    assert "refused" in refusal.content and "only numbers" in refusal.content
    assert model.seen[1][-1] == refusal
    assert result["messages"][-1].content == "I can only do arithmetic."


@pytest.mark.parametrize(("recursion_limit", "calls"), [(5, 2), (6, 3), (25, MAX_TOOL_ROUNDS + 1)])
async def test_a_model_that_never_stops_calling_tools_still_answers(
    script: ModelScript, recursion_limit: int, calls: int
) -> None:
    """A run ends with an answer, not a recursion error, whatever its limit: the model is asked
    for its answer when another round would not fit, or after `MAX_TOOL_ROUNDS`; this scripted
    model ignores that and calls again, so the fixed answer stands in."""
    # Different arguments each time: an identical call would be stopped by the repeat guard.
    model = script(*[tool_call("calculator", f"c{i}", expression=f"{i} + 1") for i in range(9)])
    result = await graph.ainvoke(QUESTION, {"recursion_limit": recursion_limit})

    last = result["messages"][-1]
    assert isinstance(last, AIMessage)
    assert (last.content, last.tool_calls) == (OUT_OF_STEPS_ANSWER, [])
    assert len(model.seen) == calls
    answered = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert len(answered) == calls - 1


async def test_settings_come_from_environment_variables(
    script: ModelScript, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for n in range(3):
        (tmp_path / f"note{n}.md").write_text(f"# Note {n}\n\nThe llama fact number {n}.\n")
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path))
    monkeypatch.setenv("MODEL", "openai/env-model")
    monkeypatch.setenv("SYSTEM_PROMPT", "Env prompt at {system_time}.")
    monkeypatch.setenv("MAX_SEARCH_RESULTS", "1")
    model = script(tool_call("search", "s1", query="llama fact"), AIMessage("done"))
    result = await graph.ainvoke(QUESTION)

    assert script.requested == ["openai/env-model", "openai/env-model"]
    assert model.seen[0][0].content.startswith("Env prompt at 20")
    found = result["messages"][2].content
    assert found.startswith("[1] Note") and "[2]" not in found


async def test_a_runs_context_beats_configurable_which_beats_the_environment(
    script: ModelScript, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL", "openai/env-model")
    monkeypatch.setenv("SYSTEM_PROMPT", "Env prompt.")
    model = script(AIMessage("a"), AIMessage("b"), AIMessage("c"))

    await graph.ainvoke(QUESTION, {"configurable": {"model": "openai/configured"}})
    await graph.ainvoke(
        QUESTION,
        {"configurable": {"model": "openai/configured"}},
        context={"model": "anthropic/from-context", "system_prompt": "Context prompt."},
    )
    await graph.ainvoke(QUESTION, context=Context(max_search_results=7))

    assert script.requested == ["openai/configured", "anthropic/from-context", "openai/env-model"]
    assert [seen[0].content for seen in model.seen] == [
        "Env prompt.",
        "Context prompt.",
        "Env prompt.",
    ]


def test_context_defaults_and_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MODEL", "SYSTEM_PROMPT", "MAX_SEARCH_RESULTS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OLG_MODEL", "local/smollm2-135m")
    assert Context().model == "local/smollm2-135m"
    assert Context().system_prompt == SYSTEM_PROMPT
    assert (
        Context.resolve(None, {"configurable": {"max_search_results": "4"}}).max_search_results == 4
    )
    with pytest.raises(ValueError, match="max_search_results must be an integer, got 'many'"):
        Context(max_search_results="many")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="between 1 and 50"):
        Context(max_search_results=0)
    monkeypatch.setenv("MAX_SEARCH_RESULTS", "lots")
    with pytest.raises(ValueError, match="got 'lots'"):
        Context()


async def test_a_system_prompt_with_braces_does_not_break_the_run(script: ModelScript) -> None:
    model = script(AIMessage("ok"))
    prompt = 'Reply as JSON like {"answer": 1}. Time: {system_time}'
    await graph.ainvoke(QUESTION, context={"system_prompt": prompt})
    assert model.seen[0][0].content.startswith('Reply as JSON like {"answer": 1}. Time: 20')
