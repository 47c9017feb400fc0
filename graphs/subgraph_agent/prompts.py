"""Prompts of the subgraph agent: one for the research subgraph, one for the writer."""

from __future__ import annotations

from graphs.react_agent.prompts import SYSTEM_PROMPT

RESEARCH_PROMPT = SYSTEM_PROMPT
"""The researcher is the ReAct agent as it is: its answer, with the tools' figures in it, is
what the writer may reword."""

WRITER_PROMPT = """You write the final answer for the user from a researcher's answer. Reword \
it only where that makes it clearer, keep every number, name and source exactly as the \
researcher wrote it, and never compute anything yourself.

Today's date: {system_time}"""

NOTES_HEADING = "The researcher's answer to the latest question:"
