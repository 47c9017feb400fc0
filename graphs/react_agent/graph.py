"""The ReAct agent: LangChain v1's `create_agent` loop (the model calls tools until it can
answer), with its behaviour beyond the model and the tools as middleware, one concern each:

- `RunSettings`: each run's model and system prompt, from its context (context.py);
- `UnansweredCalls`: a tool call that never ran is shown to the model as such;
- `RepeatedCallGuard`: a call already made this turn is not run again;
- `StepBudget`: the model answers while the run's step limit still has room for an answer,
  and after at most `MAX_TOOL_ROUNDS` tool rounds a turn.

`build_agent` is shared with react_agent_hitl (plus a person's review) and subgraph_agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.graph.state import CompiledStateGraph

from graphs.react_agent.context import Context
from graphs.react_agent.prompts import render_system_prompt
from graphs.react_agent.state import State
from graphs.react_agent.tools import TOOLS
from graphs.toolkit.middleware import (
    ModelChosenPerRun,
    RepeatedCallGuard,
    RunSettings,
    StepBudget,
    UnansweredCalls,
)
from open_langgraph.models import load_chat_model

MAX_TOOL_ROUNDS = 4
"""Tool rounds a turn before the model must answer: a question needs one or two."""


def run_model(request: ModelRequest[Any]) -> tuple[BaseChatModel, str]:
    """The run's model and system prompt: its context over its `configurable` over env."""
    settings = Context.resolve(request.runtime.context, get_config())
    return load_chat_model(settings.model), render_system_prompt(settings.system_prompt)


def build_agent(
    name: str,
    *,
    tools: Sequence[BaseTool] = TOOLS,
    middleware: Sequence[AgentMiddleware[Any, Any]] = (),
    steps_per_round: int = 2,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The ReAct agent named `name`, with `middleware` inside the agent's own.

    Args:
        steps_per_round: graph steps a tool round takes: the tools and the model again, plus
            one for each node `middleware` adds between them (a review).
    """
    return create_agent(
        ModelChosenPerRun(),
        list(tools),
        middleware=[
            RunSettings(run_model),
            StepBudget(max_tool_rounds=MAX_TOOL_ROUNDS, steps_per_round=steps_per_round),
            UnansweredCalls(),
            RepeatedCallGuard(),
            *middleware,
        ],
        state_schema=State,
        context_schema=Context,
        name=name,
    )


graph = build_agent("react_agent")
