"""The ReAct agent's middleware (graphs/toolkit/middleware) as the agent lives them, with a
scripted model: a repeated call is not run again, a call left without a result is shown to the
model as never run, and the prompt prefix stays the same when only the time changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage

import graphs.react_agent.tools as react_tools
from graphs.react_agent import graph
from graphs.react_agent.prompts import SYSTEM_PROMPT, render_system_prompt
from graphs.toolkit.clock import describe_moment
from graphs.toolkit.middleware.repeat_guard import ANSWER_FROM_EARLIER_RESULT
from graphs.toolkit.middleware.unanswered_calls import NEVER_RAN, answered

from .conftest import ModelScript, tool_call

QUESTION = {"messages": [HumanMessage("What is LangGraph? Use search.")]}
AGAIN = "Search it again, please."
ASKED = {"What is LangGraph? Use search.", AGAIN}


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every query of the model's the search tool really ran (the user's question, which the
    tool searches beside it, is left out)."""
    ran: list[str] = []

    def fake_search(query: str, max_results: int = 3) -> list[dict[str, Any]]:
        if query not in ASKED:
            ran.append(query)
        return [{"title": "LangGraph", "url": "doc://langgraph", "content": "A graph library."}]

    monkeypatch.setattr(react_tools, "search", fake_search)
    return ran


async def test_an_identical_call_in_the_same_turn_is_answered_from_the_earlier_result(
    script: ModelScript, searches: list[str]
) -> None:
    model = script(
        tool_call("search", "s1", query="LangGraph"),
        tool_call("search", "s2", query="LangGraph"),  # the loop the 1.5B model fell into
        AIMessage("LangGraph is a graph library."),
    )
    result = await graph.ainvoke(QUESTION)

    assert searches == ["LangGraph"]  # run once, not twice
    assert result["messages"][-1].content == "LangGraph is a graph library."
    assert not result["messages"][-1].tool_calls
    # The third call saw the earlier result and was told to answer from it.
    third = model.seen[2]
    assert isinstance(third[0], SystemMessage)
    assert any(isinstance(m, ToolMessage) and "graph library" in m.content for m in third)
    assert third[-1].content == ANSWER_FROM_EARLIER_RESULT.format(name="search")
    assert [type(m).__name__ for m in result["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]


async def test_the_same_call_in_a_new_turn_runs_again(
    script: ModelScript, searches: list[str]
) -> None:
    script(
        tool_call("search", "s1", query="LangGraph"),
        AIMessage("A graph library."),
        tool_call("search", "s2", query="LangGraph"),
        AIMessage("Still a graph library."),
    )
    first = await graph.ainvoke(QUESTION)
    again = [*first["messages"], HumanMessage(AGAIN)]
    await graph.ainvoke({"messages": again})
    assert searches == ["LangGraph", "LangGraph"]


async def test_a_different_argument_is_not_a_repeat(
    script: ModelScript, searches: list[str]
) -> None:
    script(
        tool_call("search", "s1", query="LangGraph"),
        tool_call("search", "s2", query="LangGraph checkpointer"),
        AIMessage("Done."),
    )
    await graph.ainvoke(QUESTION)
    assert searches == ["LangGraph", "LangGraph checkpointer"]


def test_the_prompt_is_the_same_all_day_so_the_cached_prefix_holds() -> None:
    morning = render_system_prompt(SYSTEM_PROMPT, datetime(2026, 3, 1, 0, 1, 5, tzinfo=UTC))
    evening = render_system_prompt(SYSTEM_PROMPT, datetime(2026, 3, 1, 23, 59, tzinfo=UTC))
    assert morning == evening
    assert "2026-03-01" in morning
    next_day = render_system_prompt(SYSTEM_PROMPT, datetime(2026, 3, 2, tzinfo=UTC))
    assert next_day != morning
    # What changes daily is the prompt's last line, after everything that stays the same.
    assert next_day.rsplit("\n", 1)[0] == morning.rsplit("\n", 1)[0]


async def test_two_model_calls_minutes_apart_see_the_same_prefix(
    script: ModelScript, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second call's prompt starts with the whole first prompt (cacheable), even though
    the clock moved between the calls."""
    import graphs.react_agent.prompts as prompts

    clock = iter(
        [datetime(2026, 3, 1, 10, 0, tzinfo=UTC), datetime(2026, 3, 1, 10, 59, tzinfo=UTC)]
    )

    class Clock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            return next(clock)

    monkeypatch.setattr(prompts, "datetime", Clock)
    model = script(tool_call("get_current_time", "t1"), AIMessage("It is morning."))
    await graph.ainvoke({"messages": [HumanMessage("What time is it?")]})

    first, second = model.seen
    assert isinstance(first[0], SystemMessage)
    assert second[: len(first)] == first


def test_a_call_without_a_result_is_shown_to_the_model_as_never_run() -> None:
    calls = [ToolCall(name="search", args={"query": q}, id=q, type="tool_call") for q in "ab"]
    ran = ToolMessage("found", tool_call_id="a", name="search")
    thread = [HumanMessage("q"), AIMessage("", tool_calls=calls), ran, HumanMessage("again")]

    shown = answered(thread)
    # Right after the call's message, where providers want the results; the others untouched.
    assert shown[:2] == thread[:2] and shown[3:] == thread[2:]
    never = shown[2]
    assert isinstance(never, ToolMessage)
    assert (never.tool_call_id, never.content, never.status) == ("b", NEVER_RAN, "error")
    assert answered(shown) == shown
    assert len(thread) == 4  # the thread itself is not changed


def test_dates_come_with_their_weekday() -> None:
    """Weekday questions were answered with the wrong day: the prompt and the clock tool now
    name it."""
    moment = datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC)
    assert "Today's date: 2026-11-26 (Thursday)" in render_system_prompt(SYSTEM_PROMPT, moment)
    assert describe_moment(moment, "UTC") == ("Thursday, 2026-11-26, 09:05:07 in UTC (UTC+00:00)")
    tokyo = moment.astimezone(ZoneInfo("Asia/Tokyo"))
    assert describe_moment(tokyo, "Asia/Tokyo") == (
        "Thursday, 2026-11-26, 18:05:07 in Asia/Tokyo (UTC+09:00)"
    )
    answer = react_tools.get_current_time.invoke({"timezone": "Europe/Lisbon"})
    assert answer.split(",")[0] in {
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    }
    assert "in Europe/Lisbon (UTC+0" in answer


def test_the_clock_tool_does_the_calendar_arithmetic() -> None:
    """ "What day is it in 10 days?": the tool names that day instead of leaving the model to
    count (it repeated today's date)."""
    today = datetime.now(tz=UTC).date()
    ahead = react_tools.get_current_time.invoke({"days_from_today": 10})
    in_ten = today + timedelta(days=10)
    assert ahead.endswith(f"In 10 days: {in_ten.strftime('%A')}, {in_ten.isoformat()}")
    back = react_tools.get_current_time.invoke({"days_from_today": -1})
    yesterday = today - timedelta(days=1)
    assert back.endswith(f"Yesterday: {yesterday.strftime('%A')}, {yesterday.isoformat()}")
    assert "Tomorrow" in react_tools.get_current_time.invoke({"days_from_today": 1})
    assert ". " not in react_tools.get_current_time.invoke({})


async def test_a_thread_whose_last_call_never_ran_gets_a_valid_next_turn(
    script: ModelScript,
) -> None:
    """A run stopped between the call and the tool (cancelled, a review ended): the next turn's
    model sees the call answered as never run, so a provider's API does not refuse it."""
    stopped = AIMessage("", tool_calls=[ToolCall(name="search", args={"query": "x"}, id="s9")])
    model = script(AIMessage("Sorry, that search never ran. What next?"))
    thread = [HumanMessage("Find x."), stopped, HumanMessage("Well?")]
    result = await graph.ainvoke({"messages": thread})

    seen = model.seen[0]
    never = seen[3]
    assert isinstance(never, ToolMessage) and never.tool_call_id == "s9"
    assert never.content == NEVER_RAN
    assert not any(isinstance(m, ToolMessage) for m in result["messages"])
