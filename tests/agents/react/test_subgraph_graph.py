"""The subgraph agent: research happens in a ReAct subgraph, the parent writes the answer."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from graphs.subgraph_agent import graph
from graphs.subgraph_agent.prompts import NOTES_HEADING

from .conftest import ModelScript, tool_call


async def test_research_runs_as_a_subgraph_and_the_parent_answers(script: ModelScript) -> None:
    model = script(
        tool_call("calculator", "c1", expression="25 * 4 + 17"),
        AIMessage("25 * 4 + 17 = 117 (calculator)."),
        AIMessage("The answer is 117."),
    )
    namespaces: set[tuple[str, ...]] = set()
    final = None
    async for namespace, mode, chunk in graph.astream(
        {"messages": [HumanMessage("What's 25 * 4 + 17?")]},
        stream_mode=["updates", "values"],
        subgraphs=True,
    ):
        namespaces.add(namespace)
        if mode == "values" and not namespace:
            final = chunk

    nested = [ns for ns in namespaces if ns]
    assert nested and all(ns[0].startswith("research:") for ns in nested)
    assert final is not None
    # The user's conversation holds the question and the answer, not the research traffic.
    assert [m.content for m in final["messages"]] == ["What's 25 * 4 + 17?", "The answer is 117."]
    assert final["question"] == "What's 25 * 4 + 17?"
    assert final["findings"] == "25 * 4 + 17 = 117 (calculator)."
    research_system, writer_system = model.seen[0][0].content, model.seen[2][0].content
    assert research_system.startswith("You are a helpful assistant.")
    assert writer_system.startswith("You write the final answer")
    assert f"{NOTES_HEADING}\n25 * 4 + 17 = 117 (calculator)." in writer_system
    assert model.seen[1][-1].content == "117"


async def test_a_writer_that_recomputes_is_replaced_by_the_researchers_answer(
    script: ModelScript,
) -> None:
    """The writer may reword, never recompute: a number neither the findings nor the question
    holds means the findings go to the user unchanged."""
    script(
        tool_call("calculator", "c1", expression="23.4 * 17"),
        AIMessage("23.4 km a day for 17 days is 397.8 km."),
        AIMessage("That is 409.8 km in total."),
    )
    question = "A cyclist rides 23.4 km a day for 17 days. How far is that?"
    final = await graph.ainvoke({"messages": [HumanMessage(question)]})
    assert final["messages"][-1].content == "23.4 km a day for 17 days is 397.8 km."

    script(
        tool_call("calculator", "c1", expression="23.4 * 17"),
        AIMessage("23.4 km a day for 17 days is 397.8 km."),
        AIMessage("In total the cyclist rides 397.8 km."),
    )
    reworded = await graph.ainvoke({"messages": [HumanMessage(question)]})
    assert reworded["messages"][-1].content == "In total the cyclist rides 397.8 km."


async def test_research_prompt_and_model_follow_the_run_context(script: ModelScript) -> None:
    model = script(AIMessage("notes"), AIMessage("answer"))
    await graph.ainvoke(
        {"messages": [HumanMessage("hi")]},
        context={"model": "openai/ctx", "research_prompt": "Dig deep.", "system_prompt": "Write."},
    )
    assert script.requested == ["openai/ctx", "openai/ctx"]
    assert model.seen[0][0].content == "Dig deep."
    assert model.seen[1][0].content.startswith("Write.")
