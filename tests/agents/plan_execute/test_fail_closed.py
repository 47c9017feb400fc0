"""Every broken rule ends at the Error Handler with the reason, and nothing after it runs."""

from __future__ import annotations

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from graphs.plan_execute import build_graph
from graphs.plan_execute.tools import make_get_weather, make_web_search
from graphs.plan_execute.weather import WeatherService
from tests.agents.plan_execute.scripted import intent, run_turn, scripted_model

pytestmark = pytest.mark.usefixtures("search_docs")

WEATHER_INTENT = intent("new_question", "current weather in Seoul", needs_tool=True)


def agent(model: BaseChatModel, weather: WeatherService) -> CompiledStateGraph:
    def tools(run_model: BaseChatModel) -> list[BaseTool]:
        return [make_web_search(), make_get_weather(weather)]

    return build_graph(chat_model=model, tools=tools, checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    ("plan", "reason"),
    [
        (
            [{"step_id": "step_1", "tool": "send_email", "input": "boss"}],
            "the planner chose the unknown tool 'send_email' in step_1; "
            "available tools: web_search, get_weather",
        ),
        (
            [{"step_id": "step_1", "tool": "web_search"}],
            "the planner reply does not match its schema: steps.0: Value error, "
            "step_1 must have exactly one of 'input' and 'input_from'",
        ),
        (
            {"plan": [{"step_id": "step_1", "tool": "web_search", "input": "x"}]},
            "the planner reply does not match its schema: steps: Field required; "
            "plan: Extra inputs are not permitted",
        ),
        (
            [],
            "the planner reply does not match its schema: "
            "steps: List should have at least 1 item after validation, not 0",
        ),
        (
            [{"step_id": "step_1", "tool": "web_search", "input_from": "step_2"}],
            "step_1 takes its input from 'step_2', which is not an earlier step",
        ),
        (
            [
                {"step_id": "step_1", "tool": "web_search", "input": "a"},
                {"step_id": "step_1", "tool": "web_search", "input": "b"},
            ],
            "the planner used the step id step_1 twice",
        ),
    ],
    ids=["unknown-tool", "no-input", "wrong-key", "empty", "forward-reference", "duplicate-id"],
)
def test_a_plan_breaking_a_rule_is_refused_before_any_tool_runs(
    plan: object, reason: str, unreachable_weather: WeatherService
) -> None:
    model = scripted_model(WEATHER_INTENT, plan)
    turn = run_turn(agent(model, unreachable_weather), {"input": "weather in Seoul?"})

    assert turn.route == ["intent_classifier", "planner", "error_handler"]
    assert len(turn.calls) == 2
    assert turn.state["past_steps"] == []
    assert turn.state["error"] == reason
    assert turn.state["result"] == f"I stopped without answering because {reason}."


def test_the_replan_limit_stops_at_the_error_handler(placeless_weather: WeatherService) -> None:
    # The place is not found (not a network error), so another input may be tried.
    model = scripted_model(
        WEATHER_INTENT,
        [{"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}],
        [{"step_id": "step_2", "tool": "get_weather", "input": "Seoul, South Korea"}],
    )
    turn = run_turn(
        agent(model, placeless_weather),
        {"input": "weather in Seoul?"},
        context={"max_replans": 1},
    )

    assert turn.route == [
        "intent_classifier",
        "planner",
        "executor",
        "replanner",
        "executor",
        "replanner",
        "error_handler",
    ]
    assert len(turn.calls) == 3  # the second re-planner visit stops without asking the model
    assert [r["status"] for r in turn.state["past_steps"]] == ["error", "error"]
    assert turn.state["replan_count"] == 1
    assert turn.state["error"].startswith(
        "step_2 (get_weather) failed and the re-plan limit of 1 is reached: WeatherError: "
        "no place called 'Seoul, South Korea' was found"
    )


def test_no_replans_allowed_means_the_first_failure_stops(
    unreachable_weather: WeatherService,
) -> None:
    model = scripted_model(
        WEATHER_INTENT, [{"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}]
    )
    turn = run_turn(
        agent(model, unreachable_weather),
        {"input": "weather in Seoul?"},
        context={"max_replans": 0},
    )

    assert turn.route == ["intent_classifier", "planner", "executor", "replanner", "error_handler"]
    assert len(turn.calls) == 2


def test_an_invalid_revised_plan_is_refused(unreachable_weather: WeatherService) -> None:
    model = scripted_model(
        WEATHER_INTENT,
        [{"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}],
        # A revised plan may only feed from steps that succeeded; step_1 failed.
        [{"step_id": "step_2", "tool": "web_search", "input_from": "step_1"}],
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": "weather in Seoul?"})

    assert turn.route == ["intent_classifier", "planner", "executor", "replanner", "error_handler"]
    assert len(turn.calls) == 3
    assert (
        turn.state["error"] == "step_2 takes its input from 'step_1', which is not an earlier step"
    )
    assert turn.state["replan_count"] == 1


def test_an_invalid_intent_reply_stops_before_planning(unreachable_weather: WeatherService) -> None:
    model = scripted_model({"intent": "question", "rewritten_query": "x", "needs_tool": True})
    turn = run_turn(agent(model, unreachable_weather), {"input": "weather in Seoul?"})

    assert turn.route == ["intent_classifier", "error_handler"]
    assert len(turn.calls) == 1
    assert turn.state["error"].startswith(
        "the intent classifier reply does not match its schema: intent: Input should be"
    )


def test_an_empty_request_is_refused_without_a_model_call(
    unreachable_weather: WeatherService,
) -> None:
    turn = run_turn(agent(scripted_model("unused"), unreachable_weather), {"input": "   "})

    assert turn.route == ["intent_classifier", "error_handler"]
    assert len(turn.calls) == 0
    assert turn.state["error"] == "the request has no text: send `input` or a user message"


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"max_replans": "two"}, "context.max_replans must be an integer >= 0, got 'two'"),
        ({"max_replans": -1}, "context.max_replans must be an integer >= 0, got -1"),
        ({"max_tokens": 0}, "context.max_tokens must be an integer >= 1, got 0"),
        ({"model": ""}, "context.model must be a model string, got ''"),
    ],
)
def test_a_bad_context_is_refused_before_the_run_starts(
    context: dict, message: str, unreachable_weather: WeatherService
) -> None:
    graph = agent(scripted_model("unused"), unreachable_weather)
    with pytest.raises(ValueError, match=message):
        run_turn(graph, {"input": "weather in Seoul?"}, context=context)
