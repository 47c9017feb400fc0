"""The agents the harness can evaluate: how to build each one's graph, context and outcome."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.pregel import Pregel

from open_langgraph.envs.webshop import WebShopEnv


class AgentError(ValueError):
    """Unknown agent, or its code cannot be imported."""


@dataclass(frozen=True)
class AgentSpec:
    name: str
    load_graph: Callable[[], Pregel]
    make_context: Callable[[WebShopEnv, BaseChatModel, dict[str, Any]], Any]
    """(env, model, settings) -> the graph's context object."""


def _import_laser() -> Any:
    """``graphs.laser`` lives in the repository's ``graphs/`` folder, beside the config file,
    not in the installed package; the current directory is searched for it too."""
    try:
        return importlib.import_module("graphs.laser.graph")
    except ModuleNotFoundError:
        cwd = os.getcwd()
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        try:
            return importlib.import_module("graphs.laser.graph")
        except ModuleNotFoundError as exc:
            raise AgentError(
                "the laser agent lives in graphs/laser/ of the repository; run from the "
                "repository root"
            ) from exc


def _laser_graph() -> Pregel:
    return _import_laser().graph


def _laser_context(env: WebShopEnv, model: BaseChatModel, settings: dict[str, Any]) -> Any:
    from graphs.laser.context import LaserContext  # importable once _import_laser ran

    known = {"max_steps", "backup_after", "memory_size", "thought_tokens", "first_query"}
    return LaserContext(
        env=env, chat_model=model, **{k: v for k, v in settings.items() if k in known}
    )


def _react_graph() -> Pregel:
    from open_langgraph.evals.react import graph

    return graph


def _react_context(env: WebShopEnv, model: BaseChatModel, settings: dict[str, Any]) -> Any:
    from open_langgraph.evals.react import ReactContext

    return ReactContext(env=env, chat_model=model, max_steps=settings.get("max_steps", 15))


AGENTS: dict[str, AgentSpec] = {
    "laser": AgentSpec("laser", _laser_graph, _laser_context),
    "react": AgentSpec("react", _react_graph, _react_context),
}


def get_agent(name: str) -> AgentSpec:
    try:
        return AGENTS[name]
    except KeyError:
        raise AgentError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}") from None


def outcome(final: dict[str, Any]) -> dict[str, Any]:
    """Per-episode figures every agent's final state provides (both keep ``info`` and
    ``step_count``)."""
    info = final.get("info") or {}
    reward = float(info.get("reward") or 0.0)
    return {
        "reward": reward,
        "success": reward == 1.0,
        "bought": bool(info.get("done")),
        "steps": int(final.get("step_count") or 0),
        "invalid_actions": int(info.get("invalid_actions") or 0),
        "backup_fired": bool(info.get("backup_fired")),
        "backup_rule": info.get("backup_rule"),
        "reward_info": info.get("reward_info"),
    }
