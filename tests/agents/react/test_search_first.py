"""A question about this project starts with a search of its docs (graphs/react_agent/
search_first.py): when the model would answer from memory or read the clock for it."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.react_agent import graph
from graphs.react_agent.search_first import is_project_question

from .conftest import ModelScript, tool_call


def test_project_questions_are_told_from_others() -> None:
    for question in (
        "Which environment variable names the model used when a graph names none?",
        "Which command starts a queue worker process?",
        "What port does olg serve listen on by default?",
        "Which extra do I install for PostgreSQL?",
    ):
        assert is_project_question(question), question
    for question in (
        "A bag of rice weighs 2.5 kg. How many grams do 4 bags weigh?",
        "What day of the week will 25 December 2030 be?",
        "What is 12.5% of 640?",
        "hello",
    ):
        assert not is_project_question(question), question


async def test_an_answer_from_memory_becomes_a_search_on_the_question(
    script: ModelScript,
) -> None:
    model = script(
        AIMessage("It is MODEL_NAME."),  # what the embedded model answered unaided
        AIMessage("OLG_MODEL (source: docs/models.md#settings)."),
    )
    question = "Which environment variable names the model used when a graph names none?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    call = result["messages"][1]
    assert isinstance(call, AIMessage)
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [("search", {"query": question})]
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and "source: " in str(found.content)
    assert result["messages"][-1].content.startswith("OLG_MODEL")
    assert len(model.seen) == 2  # the model answered once more, from the search's results


async def test_a_clock_call_for_a_project_question_becomes_a_search(script: ModelScript) -> None:
    script(
        tool_call("get_current_time", "t1"),
        AIMessage("The default port is 8123."),
    )
    question = "What port does olg serve listen on by default?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    assert [c["name"] for c in result["messages"][1].tool_calls] == ["search"]


async def test_the_models_own_moves_stand(script: ModelScript) -> None:
    # A search of its own, a clock call for a question about time, any non-project question.
    script(
        tool_call("search", "s1", query="olg worker"),
        AIMessage("olg worker"),
        tool_call("get_current_time", "t1"),
        AIMessage("It is Friday."),
        AIMessage("Hello!"),
    )
    first = await graph.ainvoke(
        {"messages": [HumanMessage("Which command starts a queue worker process?")]}
    )
    assert first["messages"][1].tool_calls[0]["args"] == {"query": "olg worker"}
    second = await graph.ainvoke(
        {"messages": [HumanMessage("What day is it today on the olg server?")]}
    )
    assert second["messages"][1].tool_calls[0]["name"] == "get_current_time"
    third = await graph.ainvoke({"messages": [HumanMessage("hello")]})
    assert third["messages"][-1].content == "Hello!"


async def test_an_answer_naming_only_a_section_is_asked_again(script: ModelScript) -> None:
    """The model copied a result's heading line; asked again, it gives the fact."""
    model = script(
        tool_call("search", "s1", query="semantic search store extra"),
        AIMessage("The store: Semantic search (source: docs/store.md#semantic-search)"),
        AIMessage("The `vector` extra (source: docs/store.md#semantic-search)."),
    )
    question = "Which extra gives the store semantic search on SQLite?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and "The store: Semantic search" in str(found.content)
    assert result["messages"][-1].content.startswith("The `vector` extra")
    note = str(model.seen[-1][-1].content)
    assert "names the section" in note and note.endswith(f"The question: {question}")
    assert "sqlite-vec" in note  # the section's own text, quoted back


def test_a_real_answer_is_not_taken_for_a_heading() -> None:
    from graphs.react_agent.section_answers import names_only_a_section

    shown = ToolMessage(
        "[1] The store: Semantic search (source: docs/store.md#semantic-search)\ntext",
        tool_call_id="s1",
        name="search",
    )
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[]), shown]
    assert names_only_a_section(AIMessage("Semantic search."), messages)
    assert not names_only_a_section(AIMessage("The `vector` extra."), messages)
