"""A ReAct agent: a chat model that calls search, calculator and clock tools until it can answer."""

from graphs.react_agent.graph import graph

__all__ = ["graph"]
