"""Where the graph goes after each node; every decision reads only the state, never a model."""

from __future__ import annotations

from typing import Literal

from graphs.plan_execute.state import State

INTENT_CLASSIFIER = "intent_classifier"
PLANNER = "planner"
EXECUTOR = "executor"
REPLANNER = "replanner"
FINAL_ANSWER = "final_answer"
ERROR_HANDLER = "error_handler"


def after_intent(state: State) -> Literal["planner", "final_answer", "error_handler"]:
    if state.get("error"):
        return ERROR_HANDLER
    if state.get("needs_tool") and state.get("intent") != "chitchat":
        return PLANNER
    return FINAL_ANSWER


def after_planner(state: State) -> Literal["executor", "error_handler"]:
    return ERROR_HANDLER if state.get("error") else EXECUTOR


def after_executor(state: State) -> Literal["executor", "replanner", "final_answer"]:
    past_steps = state.get("past_steps") or []
    if past_steps and past_steps[-1]["status"] == "error":
        return REPLANNER
    if state.get("next_step", 0) < len(state.get("plan") or []):
        return EXECUTOR
    return FINAL_ANSWER


def after_replanner(state: State) -> Literal["executor", "error_handler"]:
    return ERROR_HANDLER if state.get("error") else EXECUTOR
