"""Evaluating WebShop agents: a resumable harness, episode records and summaries, a ReAct
baseline, and offline replay of recorded episodes."""

from __future__ import annotations

from open_langgraph.evals.harness import EvalSettings, run_eval
from open_langgraph.evals.replay import ReplayChatModel, ReplayMismatch, replay_file
from open_langgraph.evals.summary import format_summary, summarize

__all__ = [
    "EvalSettings",
    "ReplayChatModel",
    "ReplayMismatch",
    "format_summary",
    "replay_file",
    "run_eval",
    "summarize",
]
