"""The seven design scenarios of the Plan-then-Execute agent, each with its exact LLM-call count.

The model is scripted (LangChain's FakeMessagesListChatModel); everything else is real: the graph,
the schema validation, the offline BM25 search, the summarize tool's model call, and the
Open-Meteo client (aimed at a closed port, so it fails as it does without internet).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from graphs.plan_execute import build_graph, prompts
from graphs.plan_execute.tools import make_get_weather, make_summarize, make_web_search
from graphs.plan_execute.weather import WeatherService
from tests.agents.plan_execute.scripted import intent, run_turn, scripted_model

pytestmark = pytest.mark.usefixtures("search_docs")


def agent(model: BaseChatModel, weather: WeatherService) -> CompiledStateGraph:
    def tools(run_model: BaseChatModel) -> list[BaseTool]:
        return [make_web_search(), make_summarize(run_model), make_get_weather(weather)]

    return build_graph(chat_model=model, tools=tools, checkpointer=InMemorySaver())


def system_text(prompt: list) -> str:
    assert isinstance(prompt[0], SystemMessage)
    return prompt[0].text


def test_simple_question_takes_three_llm_calls(unreachable_weather: WeatherService) -> None:
    model = scripted_model(
        intent("new_question", "Which dish is from Busan?", needs_tool=True),
        [{"step_id": "step_1", "tool": "web_search", "input": "dish from Busan"}],
        "Milmyeon, a cold wheat noodle dish, comes from Busan.",
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": "Which dish is from Busan?"})

    assert turn.route == ["intent_classifier", "planner", "executor", "final_answer"]
    assert len(turn.calls) == 3
    [record] = turn.state["past_steps"]
    assert record["step"] == {"step_id": "step_1", "tool": "web_search", "input": "dish from Busan"}
    assert record["status"] == "ok"
    assert "Milmyeon" in record["output"]  # the real search found the Busan document
    # The final answer is written from the tool results, with the results prompt.
    final = turn.calls.prompts[2]
    assert system_text(final) == prompts.RESULTS_PROMPT.format(**turn.state)
    assert "Milmyeon" in final[1].text
    assert turn.state["result"] == "Milmyeon, a cold wheat noodle dish, comes from Busan."
    assert turn.state["messages"][-1].text == turn.state["result"]
    assert turn.state["error"] is None
    # The time the prompts saw is Korean time.
    assert datetime.fromisoformat(turn.state["current_datetime"]).utcoffset() == timedelta(hours=9)
    assert turn.state["available_tools"] == ["web_search", "summarize", "get_weather"]
    assert "- get_weather(location):" in turn.state["tool_manifest"]


def test_chitchat_takes_two_llm_calls_and_no_tools(unreachable_weather: WeatherService) -> None:
    # Even if the classifier says a tool is needed, chitchat never reaches the planner.
    model = scripted_model(
        intent("chitchat", "안녕하세요!", needs_tool=True), "안녕하세요! 반가워요."
    )
    turn = run_turn(
        agent(model, unreachable_weather),
        {"messages": [{"role": "user", "content": "안녕하세요!"}]},
    )

    assert turn.route == ["intent_classifier", "final_answer"]
    assert len(turn.calls) == 2
    assert turn.state["past_steps"] == []
    assert turn.state["intent"] == "chitchat"
    assert turn.state["needs_tool"] is False
    assert turn.state["input"] == "안녕하세요!"  # taken from the chat message
    final = turn.calls.prompts[1]
    assert system_text(final) == prompts.GENERAL_PROMPT.format(**turn.state)
    assert final[-1].text == "안녕하세요!"
    assert [m.type for m in turn.state["messages"]] == ["human", "ai"]


def test_bare_content_is_analysed_without_tools(unreachable_weather: WeatherService) -> None:
    notes = (
        "Meeting notes, 21 Nov. Attendees: Kim, Lee, Park. The server migration slipped by two "
        "weeks because the storage vendor delayed the new disks. Budget is unchanged. Lee will "
        "re-run the load test once the disks arrive; Park owns the rollback plan. " * 3
    )
    model = scripted_model(
        intent("new_question", "meeting notes on a delayed server migration", needs_tool=False),
        "Summary: the migration slipped two weeks. Next steps: confirm the disk date, ...",
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": notes})

    assert turn.route == ["intent_classifier", "final_answer"]
    assert len(turn.calls) == 2
    assert turn.state["past_steps"] == []
    final = turn.calls.prompts[1]
    assert system_text(final) == prompts.GENERAL_PROMPT.format(**turn.state)
    assert "propose concrete next steps" in system_text(final)
    assert final[-1].text == notes.strip()
    assert turn.state["result"].startswith("Summary:")


def test_follow_up_keeps_constraints_of_earlier_turns(unreachable_weather: WeatherService) -> None:
    model = scripted_model(
        # turn 1
        intent("new_question", "peanut-free restaurant in Busan", needs_tool=True),
        [{"step_id": "step_1", "tool": "web_search", "input": "peanut-free restaurant Busan"}],
        "Try a milmyeon restaurant near Haeundae.",
        # turn 2: "and dessert?" only makes sense with turn 1's place and allergy
        intent("follow_up", "peanut-free dessert in Busan", needs_tool=True),
        [{"step_id": "step_1", "tool": "web_search", "input": "peanut-free dessert Busan"}],
        "Bingsu with red beans and fruit is peanut-free.",
    )
    graph = agent(model, unreachable_weather)
    first = run_turn(
        graph, {"input": "I'm in Busan and allergic to peanuts. Where should I eat?"}, "t1"
    )
    assert first.route == ["intent_classifier", "planner", "executor", "final_answer"]

    second = run_turn(graph, {"messages": [{"role": "user", "content": "And dessert?"}]}, "t1")

    assert second.route == ["intent_classifier", "planner", "executor", "final_answer"]
    assert len(second.calls) == 3
    classifier_request = second.calls.prompts[0][1].text
    assert "allergic to peanuts" in classifier_request  # it saw the earlier turn
    assert "Try a milmyeon restaurant" in classifier_request
    assert classifier_request.endswith("Latest message:\nAnd dessert?")
    assert second.state["intent"] == "follow_up"
    assert second.state["rewritten_query"] == "peanut-free dessert in Busan"
    assert second.calls.prompts[1][1] == HumanMessage("peanut-free dessert in Busan")
    # This turn's audit trail only: turn 1's step was reset.
    [record] = second.state["past_steps"]
    assert record["step"]["input"] == "peanut-free dessert Busan"
    assert "Bingsu" in record["output"]
    assert [m.type for m in second.state["messages"]] == ["human", "ai", "human", "ai"]
    assert second.state["input"] == "And dessert?"


def test_two_step_chain_feeds_output_with_input_from(unreachable_weather: WeatherService) -> None:
    model = scripted_model(
        intent("new_question", "Summarize what is known about Seoul", needs_tool=True),
        [
            {"step_id": "step_1", "tool": "web_search", "input": "Seoul"},
            {"step_id": "step_2", "tool": "summarize", "input_from": "step_1"},
        ],
        "Seoul is South Korea's capital, home of Gyeongbokgung.",  # inside the summarize tool
        "Seoul is the capital of South Korea; Gyeongbokgung palace is there.",
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": "Tell me briefly about Seoul"})

    assert turn.route == ["intent_classifier", "planner", "executor", "executor", "final_answer"]
    assert len(turn.calls) == 4  # intent, plan, the summarize tool's own call, final answer
    search, summary = turn.state["past_steps"]
    assert search["status"] == summary["status"] == "ok"
    assert "Gyeongbokgung" in search["output"]
    assert summary["step"]["input_from"] == "step_1"
    assert summary["step"]["input"] == search["output"]
    assert summary["output"] == "Seoul is South Korea's capital, home of Gyeongbokgung."
    # The summarize tool really sent the search output to the model.
    tool_prompt = turn.calls.prompts[2]
    assert tool_prompt == [SystemMessage(prompts.SUMMARIZE_PROMPT), HumanMessage(search["output"])]


def test_tool_failure_is_recovered_by_replanning(unreachable_weather: WeatherService) -> None:
    model = scripted_model(
        intent("new_question", "current weather in Seoul", needs_tool=True),
        [{"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}],
        [{"step_id": "step_2", "tool": "web_search", "input": "Seoul weather"}],
        "Around 8 °C in Seoul this time of year (from the documents; live data was unavailable).",
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": "서울 날씨 어때?"})

    assert turn.route == [
        "intent_classifier",
        "planner",
        "executor",
        "replanner",
        "executor",
        "final_answer",
    ]
    assert len(turn.calls) == 4
    failed, recovered = turn.state["past_steps"]
    assert failed["step"] == {"step_id": "step_1", "tool": "get_weather", "input": "Seoul"}
    assert failed["status"] == "error"
    assert "WeatherError: the weather service is unreachable" in failed["output"]
    assert recovered["step"]["tool"] == "web_search"
    assert recovered["status"] == "ok"
    assert "8 degrees" in recovered["output"]
    assert turn.state["replan_count"] == 1
    assert turn.state["error"] is None
    # The re-planner was shown the plan and the failure.
    replan_request = turn.calls.prompts[2][1].text
    assert '"tool": "get_weather"' in replan_request
    assert "unreachable" in replan_request
    # Only the successful step reaches the final answer's results.
    final_request = turn.calls.prompts[3][1].text
    assert "web_search" in final_request and "get_weather" not in final_request


def test_invalid_planner_json_ends_at_the_error_handler(
    unreachable_weather: WeatherService,
) -> None:
    model = scripted_model(
        intent("new_question", "weather in Seoul", needs_tool=True),
        "Sure! First I will search for the weather, then summarize it.",
    )
    turn = run_turn(agent(model, unreachable_weather), {"input": "weather in Seoul?"})

    assert turn.route == ["intent_classifier", "planner", "error_handler"]
    assert len(turn.calls) == 2
    assert turn.state["past_steps"] == []
    assert turn.state["plan"] == []
    assert turn.state["error"].startswith("the planner reply is not valid JSON")
    assert turn.state["result"] == f"I stopped without answering because {turn.state['error']}."
    assert turn.state["messages"][-1] == AIMessage(
        content=turn.state["result"], id=turn.state["messages"][-1].id
    )


def test_only_the_final_answer_streams_as_chat_messages(
    unreachable_weather: WeatherService,
) -> None:
    """A chat UI following `messages` shows the answer, not the routing JSON or the summary."""
    model = scripted_model(
        intent("new_question", "Summarize what is known about Seoul", needs_tool=True),
        [
            {"step_id": "step_1", "tool": "web_search", "input": "Seoul"},
            {"step_id": "step_2", "tool": "summarize", "input_from": "step_1"},
        ],
        "a summary",
        "Seoul is the capital.",
    )
    graph = agent(model, unreachable_weather)
    config = {"configurable": {"thread_id": "streamed"}}
    streamed = [
        (chunk.type, chunk.text, metadata["langgraph_node"])
        for chunk, metadata in graph.stream({"input": "Seoul?"}, config, stream_mode="messages")
    ]

    # The user's message (appended to the state by the classifier), then the answer only.
    assert streamed == [
        ("human", "Seoul?", "intent_classifier"),
        ("ai", "Seoul is the capital.", "final_answer"),
    ]
