"""`GET /assistants/{id}/schemas` gives LangGraph's own schemas of a graph's input, output
and context, as langgraph-api does (retrieval-agent-template's dataclass states were titled
and defaulted differently), and falls back field by field where LangGraph's fail."""

from __future__ import annotations

import sys
import typing
from dataclasses import dataclass, field

import pytest
import typing_extensions
from langgraph.graph import START, StateGraph

from open_langgraph.runtime.introspection import graph_schemas


@dataclass
class InputState:
    """What a user sends."""

    question: str = ""


@dataclass
class State(InputState):
    queries: list[str] = field(default_factory=list)
    k: int = 3


@dataclass(kw_only=True)
class Context:
    """How the graph runs."""

    model: str = "openai/gpt-4o"


def _node(state: State) -> dict[str, typing.Any]:
    return {}


def _dataclass_graph() -> typing.Any:
    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    builder.add_node("n", _node)
    builder.add_edge(START, "n")
    graph = builder.compile()
    graph.name = "RetrievalGraph"
    return graph


def test_a_dataclass_graph_s_schemas_are_langgraph_s():
    schemas = graph_schemas(_dataclass_graph(), "retrieval")
    assert schemas["input_schema"]["title"] == "RetrievalGraphInput"
    assert schemas["output_schema"]["title"] == "RetrievalGraphOutput"
    defaults = {k: v.get("default") for k, v in schemas["output_schema"]["properties"].items()}
    assert defaults == {"question": "", "queries": [], "k": 3}  # default_factory included
    assert schemas["context_schema"]["title"] == "Context"
    assert schemas["context_schema"]["properties"]["model"]["default"] == "openai/gpt-4o"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="pydantic takes typing.TypedDict on 3.12")
def test_a_typing_typeddict_state_still_gets_a_schema():
    """pydantic refuses `typing.TypedDict` on Python 3.11, and LangGraph's schema with it
    (langgraph-api answers that request with a 500); the fallback describes it field by field."""

    class Plain(typing.TypedDict):
        count: int

    builder = StateGraph(Plain)
    builder.add_node("n", lambda state: {})
    builder.add_edge(START, "n")
    schemas = graph_schemas(builder.compile(), "plain")
    assert schemas["input_schema"]["properties"]["count"]["type"] == "integer"


def test_channels_whose_names_start_with_an_underscore_stay_in_the_state_schema():
    """deepagents keeps such channels; langgraph-api shows them, pydantic alone drops them."""

    class Agent(typing_extensions.TypedDict, total=False):
        messages: list[str]
        _summary_cursor: int

    builder = StateGraph(Agent)
    builder.add_node("n", lambda state: {})
    builder.add_edge(START, "n")
    state = graph_schemas(builder.compile(), "agent")["state_schema"]
    assert state["properties"]["_summary_cursor"]["type"] == "integer"
    assert set(state["properties"]) == {"messages", "_summary_cursor"}
