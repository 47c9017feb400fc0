"""Plan-then-Execute agent: an intent classifier, one planning call, tools run without the LLM,
a re-planner only on failure, and a fail-closed Error Handler (docs/agents/plan_execute.md)."""

from graphs.plan_execute.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
