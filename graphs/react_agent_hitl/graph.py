"""The ReAct agent with a person's review before every tool call: react_agent plus LangChain's
`HumanInTheLoopMiddleware`.

The run pauses with the middleware's request (`action_requests` and `review_configs`, one per
call), which Agent Chat UI, Agent Inbox, our web UI and `olg run` show, and resumes with one
decision per call, in order:

    Command(resume={"decisions": [
        {"type": "approve"},
        {"type": "edit", "edited_action": {"name": "calculator", "args": {...}}},
        {"type": "reject", "message": "Use the search tool instead."},
        {"type": "respond", "message": "It is 42."},
    ]})

A rejected or answered call never runs; the model gets the person's message as its result.
"""

from __future__ import annotations

from langchain.agents.middleware import HumanInTheLoopMiddleware

from graphs.react_agent.graph import build_agent
from graphs.react_agent.tools import TOOLS

REVIEW = HumanInTheLoopMiddleware(interrupt_on=dict.fromkeys((t.name for t in TOOLS), True))
"""Every tool, every decision: approve, edit, reject, or respond (the person answers for the
tool, which never runs)."""

# A tool round is three steps here: the review, the tools, and the model again.
graph = build_agent("react_agent_hitl", middleware=[REVIEW], steps_per_round=3)
