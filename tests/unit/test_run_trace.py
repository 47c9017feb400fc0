"""The run trace's recorder on real LangGraph graphs with LangChain's fake chat models: what a
person debugging a run relies on seeing (tokens, a tool's failure, an interrupt, where a
subgraph's work sits) and the bounds that keep a long thread's traces small."""

from __future__ import annotations

import contextlib
import operator
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt
from typing_extensions import TypedDict

from open_langgraph.observability.run_trace import MAX_PROMPT_MESSAGES, MAX_TEXT, RunTrace
from open_langgraph.serde import loads


@tool
def shout(text: str) -> str:
    """Say it louder."""
    if text == "fail":
        raise ValueError("cannot shout that")
    return text.upper() + "!" * 20_000


def _agent(replies: list[AIMessage]) -> Any:
    model = FakeMessagesListChatModel(responses=replies)

    async def call(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("agent", call)
    builder.add_node("tools", ToolNode([shout], handle_tool_errors=True))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile()


def _call(text: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "shout", "args": {"text": text}, "id": f"c-{text}"}])


async def _traced(graph: Any, state: dict[str, Any], **config: Any) -> dict[str, Any]:
    trace = RunTrace()
    with contextlib.suppress(ValueError):  # a failing graph's trace is what is looked at
        await graph.ainvoke(state, {"callbacks": [trace], **config})
    stored = trace.stored()
    assert stored is not None
    return loads(stored)


async def test_tokens_a_long_tool_result_cut_and_a_failed_tool_call() -> None:
    reply = AIMessage(
        "done",
        usage_metadata={
            "input_tokens": 30,
            "output_tokens": 2,
            "total_tokens": 32,
            "input_token_details": {"cache_read": 24},
        },
    )
    graph = _agent([_call("hi"), _call("fail"), reply])
    trace = await _traced(graph, {"messages": [HumanMessage("shout hi")]})

    assert trace["complete"] is True
    models = [s for s in trace["spans"] if s["kind"] == "model"]
    assert models[-1]["tokens"] == {"input": 30, "output": 2, "cached": 24}
    assert models[0]["tokens"] == {"input": 0, "output": 0, "cached": 0}  # reported none
    ok, failed = [s for s in trace["spans"] if s["kind"] == "tool"]
    assert ok["status"] == "success"
    assert ok["result"].startswith("HI!!!")
    assert len(ok["result"]) < MAX_TEXT + 100
    assert ok["result"].endswith("more characters]")
    assert failed["status"] == "error"
    assert failed["error"] == {"error": "ValueError", "message": "cannot shout that"}


async def test_a_long_threads_prompt_keeps_its_system_prompt_and_latest_messages() -> None:
    history: list[AnyMessage] = [HumanMessage("system-like first")]
    for i in range(30):
        history += [HumanMessage(f"question {i}"), AIMessage(f"answer {i}")]
    graph = _agent([AIMessage("fine")])
    trace = await _traced(graph, {"messages": history})

    [model] = [s for s in trace["spans"] if s["kind"] == "model"]
    messages = model["prompt"]["messages"]
    assert len(messages) == MAX_PROMPT_MESSAGES + 2
    assert messages[0]["content"] == "system-like first"
    assert messages[1] == {"type": "omitted", "content": f"{61 - 13} earlier messages not kept"}
    assert messages[-1]["content"] == "answer 29"


class _Trail(TypedDict, total=False):
    trail: Annotated[list[str], operator.add]


def _step(name: str) -> Any:
    def run(state: _Trail) -> _Trail:
        return {"trail": [name]}

    return run


async def test_subgraph_nodes_sit_under_their_node_and_an_interrupt_is_not_an_error() -> None:
    inner = StateGraph(_Trail)
    inner.add_node("a", _step("a"))
    inner.add_edge(START, "a")

    def ask(state: _Trail) -> _Trail:
        return {"trail": [interrupt("ok?")]}

    outer = StateGraph(_Trail)
    outer.add_node("inner", inner.compile())
    outer.add_node("ask", ask)
    outer.add_edge(START, "inner")
    outer.add_edge("inner", "ask")
    graph = outer.compile(checkpointer=InMemorySaver())

    trace = await _traced(graph, {}, configurable={"thread_id": "t"})
    nodes = {s["name"]: s for s in trace["spans"]}
    assert nodes["a"]["parent"] == nodes["inner"]["id"]
    assert nodes["inner"]["parent"] is None
    assert nodes["ask"]["status"] == "interrupted"
    assert "error" not in nodes["ask"]


def test_a_run_with_no_span_stores_nothing() -> None:
    assert RunTrace().stored() is None


async def test_a_failed_node_says_why() -> None:
    def boom(state: _Trail) -> _Trail:
        raise ValueError("no")

    builder = StateGraph(_Trail)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    trace = await _traced(builder.compile(), {})
    [node] = trace["spans"]
    assert (node["status"], node["error"]) == ("error", {"error": "ValueError", "message": "no"})
