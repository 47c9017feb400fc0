"""A re-plan never runs a call that already failed, falls back to `web_search`, and otherwise
stops saying what failed (issue 33: `get_weather` re-planned unchanged on a DNS failure).

The model is scripted to propose the failing call again, as small models do; the tools are real
(the offline search, the Open-Meteo client aimed at a closed port or cut off from DNS).
"""

from __future__ import annotations

import socket
from email.message import Message
from pathlib import Path
from urllib.error import HTTPError

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from graphs.plan_execute import build_graph, recovery
from graphs.plan_execute.recovery import is_unreachable
from graphs.plan_execute.tools import make_get_weather, make_web_search
from graphs.plan_execute.weather import WeatherService
from tests.agents.plan_execute.scripted import intent, run_turn, scripted_model, stuck_replanner

pytestmark = pytest.mark.usefixtures("search_docs")

QUERY = "current weather in Seoul"
WEATHER_INTENT = intent("new_question", QUERY, needs_tool=True)
GET_WEATHER = {"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}
FALLBACK = {"step_id": "step_2", "tool": "web_search", "input": QUERY}
RECOVERED_ROUTE = [
    "intent_classifier",
    "planner",
    "executor",
    "replanner",
    "executor",
    "final_answer",
]


def agent(model: BaseChatModel, *tools: BaseTool) -> CompiledStateGraph:
    return build_graph(
        chat_model=model, tools=lambda _model: list(tools), checkpointer=InMemorySaver()
    )


def with_search(weather: WeatherService) -> tuple[BaseTool, BaseTool]:
    return make_web_search(), make_get_weather(weather)


@pytest.mark.parametrize(
    "proposed",
    [
        {"step_id": "step_2", "tool": "get_weather", "input": "Seoul"},
        {"step_id": "step_2", "tool": "get_weather", "input": "Seoul, South Korea"},
    ],
    ids=["same-call", "same-unreachable-tool"],
)
def test_an_unreachable_tool_proposed_again_falls_back_to_web_search(
    proposed: dict, unreachable_weather: WeatherService
) -> None:
    model = scripted_model(WEATHER_INTENT, [GET_WEATHER], [proposed], "About 8 °C in Seoul.")
    turn = run_turn(agent(model, *with_search(unreachable_weather)), {"input": "서울 날씨?"})

    assert turn.route == RECOVERED_ROUTE
    assert len(turn.calls) == 4
    failed, recovered = turn.state["past_steps"]
    assert failed["step"] == GET_WEATHER
    assert failed["unreachable"] is True
    assert "WeatherError: the weather service is unreachable" in failed["output"]
    assert recovered == {
        "step": FALLBACK,
        "status": "ok",
        "output": recovered["output"],
    }
    assert "8 degrees" in recovered["output"]
    assert turn.state["replan_count"] == 1
    assert turn.state["error"] is None
    # The reply says what it is not based on, whatever the model wrote.
    assert turn.state["result"] == (
        f"About 8 °C in Seoul.\n\nNote: {recovery.describe(failed)}, so this answer is based "
        "on web_search instead."
    )
    assert turn.state["messages"][-1].text == turn.state["result"]
    # The re-planner was no longer offered the unreachable tool, and was told what failed.
    replan_system, replan_request = turn.calls.prompts[2]
    assert "- web_search(query):" in replan_system.text
    assert "get_weather" not in replan_system.text
    assert "Failed calls, not to be repeated:\n- get_weather('Seoul') failed (WeatherError" in (
        replan_request.text
    )


def test_a_dns_failure_of_the_default_tools_falls_back_to_web_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reported run: the served graph's own tools, no name resolution, the model re-planning
    the same `get_weather` call. Before the fix it ran it again and stopped at the limit."""

    def no_dns(*args: object, **kwargs: object) -> list:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    model = stuck_replanner(
        [{"step_id": "step_2", "tool": "get_weather", "input": "Seoul"}],
        WEATHER_INTENT,
        [GET_WEATHER],
        "About 8 °C in Seoul.",
    )
    graph = build_graph(chat_model=model, checkpointer=InMemorySaver())
    turn = run_turn(graph, {"input": "서울 날씨 어때?"})

    assert turn.route == RECOVERED_ROUTE
    assert len(turn.calls) == 4
    tools_run = [(r["step"]["tool"], r["status"]) for r in turn.state["past_steps"]]
    assert tools_run == [("get_weather", "error"), ("web_search", "ok")]
    assert "Name or service not known" in turn.state["past_steps"][0]["output"]
    assert turn.state["result"].startswith("About 8 °C in Seoul.\n\nNote: get_weather('Seoul')")
    assert turn.state["result"].endswith("so this answer is based on web_search instead.")


def test_a_failed_call_proposed_again_falls_back_but_another_input_is_tried(
    placeless_weather: WeatherService,
) -> None:
    """A place that is not found fails for its input only: the same call is replaced, while a
    different input for the same tool still runs."""
    model = scripted_model(
        WEATHER_INTENT,
        [GET_WEATHER],
        [
            {"step_id": "step_2", "tool": "get_weather", "input": "Seoul"},
            {"step_id": "step_3", "tool": "get_weather", "input": "Seoul, South Korea"},
        ],
    )
    turn = run_turn(
        agent(model, *with_search(placeless_weather)),
        {"input": "서울 날씨?"},
        context={"max_replans": 1},
    )

    assert turn.route == [
        *RECOVERED_ROUTE[:-1],
        "executor",
        "replanner",
        "error_handler",
    ]
    assert len(turn.calls) == 3
    steps = [(r["step"]["tool"], r["step"]["input"], r["status"]) for r in turn.state["past_steps"]]
    assert steps == [
        ("get_weather", "Seoul", "error"),
        ("web_search", QUERY, "ok"),
        ("get_weather", "Seoul, South Korea", "error"),
    ]
    assert "unreachable" not in turn.state["past_steps"][0]


def test_the_only_tool_unreachable_stops_without_asking_the_model(
    unreachable_weather: WeatherService,
) -> None:
    model = scripted_model(WEATHER_INTENT, [GET_WEATHER])
    turn = run_turn(agent(model, make_get_weather(unreachable_weather)), {"input": "서울 날씨?"})

    assert turn.route == ["intent_classifier", "planner", "executor", "replanner", "error_handler"]
    assert len(turn.calls) == 2
    error = turn.state["error"]
    assert error.startswith(
        "get_weather('Seoul') failed (WeatherError: the weather service is unreachable ("
    )
    assert error.endswith("), and no other tool is left to try")
    assert turn.state["result"] == f"I stopped without answering because {error}."


def test_a_failed_web_search_proposed_again_stops_saying_what_failed(
    unreachable_weather: WeatherService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`web_search` is what failed, so it is no fallback; the same search is not run twice."""
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path / "missing"))
    search = {"step_id": "step_1", "tool": "web_search", "input": "Seoul weather"}
    model = scripted_model(WEATHER_INTENT, [search], [{**search, "step_id": "step_2"}])
    turn = run_turn(agent(model, *with_search(unreachable_weather)), {"input": "서울 날씨?"})

    assert turn.route == ["intent_classifier", "planner", "executor", "replanner", "error_handler"]
    assert len(turn.calls) == 3
    assert [r["status"] for r in turn.state["past_steps"]] == ["error"]
    assert turn.state["error"] == (
        f"web_search('Seoul weather') failed (SearchError: OLG_SEARCH_DOCS="
        f"'{tmp_path / 'missing'}' does not exist), and the re-planner found no different plan "
        "(it proposed web_search again)"
    )


def test_a_call_that_repeats_a_failure_once_its_input_is_known_is_not_run(
    unreachable_weather: WeatherService,
) -> None:
    """An `input_from` resolved at run time can land on a failed call; the Executor skips it
    and the re-plan limit bounds the turn."""
    runs: list[str] = []

    @tool
    def translate(text: str) -> str:
        """Translate a text into English."""
        runs.append(text)
        raise ValueError("the translator refuses this text")

    first = [
        {"step_id": "step_1", "tool": "web_search", "input": "Seoul"},
        {"step_id": "step_2", "tool": "translate", "input_from": "step_1"},
    ]
    again = [
        {"step_id": "step_3", "tool": "web_search", "input": "Seoul"},
        {"step_id": "step_4", "tool": "translate", "input_from": "step_3"},
    ]
    model = scripted_model(intent("new_question", "Seoul in English", True), first, again)
    turn = run_turn(
        agent(model, make_web_search(), translate),
        {"input": "Seoul?"},
        context={"max_replans": 1},
    )

    assert turn.route == [
        "intent_classifier",
        "planner",
        "executor",
        "executor",
        "replanner",
        "executor",
        "executor",
        "replanner",
        "error_handler",
    ]
    assert len(runs) == 1
    skipped = turn.state["past_steps"][-1]
    assert skipped["status"] == "error"
    assert skipped["output"] == (
        "not run, as it would repeat translate('[1] Seoul (seoul.md#seoul)\\nSeoul is the "
        "capital of South Kor...') failed (ValueError: the translator refuses this text)"
    )
    assert turn.state["error"].startswith("step_4 (translate) failed and the re-plan limit of 1")


def _raised_from(cause: BaseException) -> BaseException:
    try:
        raise RuntimeError("the tool failed") from cause
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize(
    ("exc", "unreachable"),
    [
        (_raised_from(ConnectionRefusedError(111, "Connection refused")), True),
        (_raised_from(socket.gaierror(-2, "Name or service not known")), True),
        (TimeoutError("timed out"), True),
        (_raised_from(HTTPError("https://x", 503, "Service Unavailable", Message(), None)), True),
        (_raised_from(HTTPError("https://x", 404, "Not Found", Message(), None)), False),
        (ValueError("no place called 'Seol' was found"), False),
    ],
    ids=["refused", "dns", "timeout", "http-503", "http-404", "input"],
)
def test_what_counts_as_an_unreachable_service(exc: BaseException, unreachable: bool) -> None:
    assert is_unreachable(exc) is unreachable
