"""Run context of the LASER graph: the environment and model are injected, never stored.

An evaluation harness passes a ready ``WebShopEnv`` (already reset to its goal) and a chat model
in the context. When the graph is served by ``olg serve`` with none injected, each thread gets
its own session on a shared environment built from ``data`` (or ``$OLG_WEBSHOP_DATA``, else the
bundled demo catalog), and the model comes from ``model`` (or ``$OLG_MODEL``).
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.models import shared_chat_model

DATA_ENV_VAR = "OLG_WEBSHOP_DATA"
MAX_SERVED_SESSIONS = 256
FIRST_QUERY_SOURCES = ("instruction", "model")


@dataclass
class LaserContext:
    """Settings of one LASER run. ``env`` and ``chat_model`` are objects a caller may inject;
    the other fields are JSON and can be sent as a served run's ``context``."""

    model: str | None = None
    """``provider/model`` string; None means ``$OLG_MODEL`` or the embedded default."""
    data: str | None = None
    """WebShop catalog path for a self-made environment; None: ``$OLG_WEBSHOP_DATA`` or demo."""
    goals: str = "synthetic"
    goal_index: int | None = None
    """Goal to shop for in a self-made environment; None draws one by weight."""
    max_steps: int = 15
    """At most this many state transitions (LASER's budget)."""
    backup_after: int = 13
    """After this many transitions, stop exploring and buy the best item from memory."""
    memory_size: int = 30
    first_query: str = "instruction"
    """Where the episode's first search keywords come from: "instruction" (its product part,
    `graphs/laser/query.py`) or "model" (asked of the model, as in the paper)."""
    thought_tokens: int = 96
    """Unused since the thought rides in the step's call (its `thought` argument is bounded
    by the schema); kept so existing contexts and `olg eval --thought-tokens` still work."""
    env: Any = None
    """An injected ``WebShopEnv`` already reset to its goal."""
    chat_model: Any = None
    """An injected LangChain chat model; overrides ``model``."""


class ContextError(ValueError):
    """The run context is unusable (wrong types, impossible budget)."""


_lock = threading.Lock()
_base_envs: dict[tuple[str | None, str], WebShopEnv] = {}
_served: OrderedDict[str, WebShopEnv] = OrderedDict()


def check_context(ctx: LaserContext) -> None:
    """Reject settings that would make the run meaningless, with a message saying which."""
    if ctx.max_steps < 1:
        raise ContextError(f"max_steps must be at least 1, got {ctx.max_steps}")
    if ctx.backup_after < 0:
        raise ContextError(f"backup_after must be non-negative, got {ctx.backup_after}")
    if ctx.first_query not in FIRST_QUERY_SOURCES:
        raise ContextError(
            f"first_query must be one of {', '.join(FIRST_QUERY_SOURCES)}, got {ctx.first_query!r}"
        )
    if ctx.memory_size < 1:
        raise ContextError(f"memory_size must be at least 1, got {ctx.memory_size}")
    if ctx.env is not None and not isinstance(ctx.env, WebShopEnv):
        raise ContextError(f"context env must be a WebShopEnv, got {type(ctx.env).__name__}")
    if ctx.chat_model is not None and not isinstance(ctx.chat_model, BaseChatModel):
        raise ContextError(
            f"context chat_model must be a chat model, got {type(ctx.chat_model).__name__}"
        )


def _thread_key(config: RunnableConfig | None) -> str:
    configurable = (config or {}).get("configurable") or {}
    key = configurable.get("thread_id") or configurable.get("run_id")
    if key is None:
        key = (config or {}).get("run_id")
    return str(key)


def resolve_env(ctx: LaserContext, config: RunnableConfig | None) -> WebShopEnv:
    """The injected environment, else this thread's session on a shared self-made one."""
    if ctx.env is not None:
        return ctx.env
    key = _thread_key(config)
    with _lock:
        env = _served.get(key)
        if env is not None:
            _served.move_to_end(key)
            return env
        data = ctx.data or os.environ.get(DATA_ENV_VAR) or None
        base_key = (data, ctx.goals)
        base = _base_envs.get(base_key)
        if base is None:
            base = _base_envs[base_key] = WebShopEnv(data, goals=ctx.goals)  # type: ignore[arg-type]
        # A shallow copy shares catalog, index and goals but holds its own session.
        env = copy.copy(base)
        if ctx.goal_index is not None and not 0 <= ctx.goal_index < len(base.goals):
            raise ContextError(f"goal_index {ctx.goal_index} outside 0..{len(base.goals) - 1}")
        env.reset(session=ctx.goal_index)
        _served[key] = env
        while len(_served) > MAX_SERVED_SESSIONS:
            _served.popitem(last=False)
        return env


def resolve_model(ctx: LaserContext) -> BaseChatModel:
    """The injected chat model, else the named (or default) one, built once per name."""
    if ctx.chat_model is not None:
        return ctx.chat_model
    return shared_chat_model(ctx.model)
