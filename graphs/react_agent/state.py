"""The ReAct agent's state: `create_agent`'s own (the conversation, merged by message id).

Extend `State` with fields of your own and pass it as `state_schema` in graph.py; a field a
middleware needs is better declared by that middleware's own `state_schema`.
"""

from __future__ import annotations

from langchain.agents import AgentState


class State(AgentState):
    """The conversation (`messages`), plus what LangChain's middleware keep between steps."""
