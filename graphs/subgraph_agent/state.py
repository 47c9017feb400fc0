"""State of the subgraph agent: the conversation, the question handed over, and the findings."""

from __future__ import annotations

from graphs.react_agent.state import InputState


class State(InputState, total=False):
    """`question` is what the research subgraph was asked; `findings` is its final reply."""

    question: str
    findings: str
