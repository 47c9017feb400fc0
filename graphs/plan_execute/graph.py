"""The Plan-then-Execute graph: classify, plan once, execute without the LLM, re-plan on failure.

START -> intent_classifier -> planner -> executor (once per step) -> final_answer -> END
intent_classifier -> final_answer            no tool needed, or chitchat
executor -> replanner -> executor            a step failed; the revised plan runs
intent_classifier | planner | replanner -> error_handler -> END
                                             a broken rule: invalid reply, unknown tool,
                                             the re-plan limit
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from graphs.plan_execute import routing
from graphs.plan_execute.context import Context
from graphs.plan_execute.nodes import Nodes
from graphs.plan_execute.state import InputState, State
from graphs.plan_execute.tools import ToolsFactory, default_tools


def build_graph(
    chat_model: BaseChatModel | None = None,
    tools: ToolsFactory = default_tools,
    checkpointer: Checkpointer = None,
) -> CompiledStateGraph:
    """The compiled agent.

    Args:
        chat_model: one model for every run; None loads the run context's `model` (or the
            project default), which is what a server deployment wants.
        tools: builds the run's tools from its model; every tool takes one string argument.
        checkpointer: for threads outside a server (the server brings its own).
    """
    nodes = Nodes(chat_model=chat_model, tools_factory=tools)
    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node(routing.INTENT_CLASSIFIER, nodes.intent_classifier)
    builder.add_node(routing.PLANNER, nodes.planner)
    builder.add_node(routing.EXECUTOR, nodes.executor)
    builder.add_node(routing.REPLANNER, nodes.replanner)
    builder.add_node(routing.FINAL_ANSWER, nodes.final_answer)
    builder.add_node(routing.ERROR_HANDLER, nodes.error_handler)
    builder.add_edge(START, routing.INTENT_CLASSIFIER)
    builder.add_conditional_edges(routing.INTENT_CLASSIFIER, routing.after_intent)
    builder.add_conditional_edges(routing.PLANNER, routing.after_planner)
    builder.add_conditional_edges(routing.EXECUTOR, routing.after_executor)
    builder.add_conditional_edges(routing.REPLANNER, routing.after_replanner)
    builder.add_edge(routing.FINAL_ANSWER, END)
    builder.add_edge(routing.ERROR_HANDLER, END)
    return builder.compile(checkpointer=checkpointer, name="plan_execute")


graph = build_graph()
