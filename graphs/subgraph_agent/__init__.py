"""A writer agent that hands each question to a ReAct research subgraph, then answers."""

from graphs.subgraph_agent.graph import graph

__all__ = ["graph"]
