"""The ReAct agent with a person in the loop: every tool call waits for approve, edit, reject or
respond: LangChain v1's `HumanInTheLoopMiddleware`."""

from graphs.react_agent_hitl.graph import graph

__all__ = ["graph"]
