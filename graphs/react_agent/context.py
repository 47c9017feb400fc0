"""What a run of the ReAct agent can configure, read by nodes through `Runtime[Context]`.

Each field is resolved, first match wins, from:

1. the run's `context` (`client.runs.create(..., context={"model": ...})`),
2. the run's `config["configurable"]` (the older LangGraph way, still common in clients),
3. the environment variable named after the field in upper case (`MODEL`, `SYSTEM_PROMPT`,
   `MAX_SEARCH_RESULTS`),
4. the default below; `model` defaults to the project's default model (`$OLG_MODEL`, else the
   embedded `local/qwen2.5-coder-1.5b`).

A `context` value equal to the default counts as not given, since a dataclass cannot tell
the two apart.
"""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from langchain_core.runnables import RunnableConfig

from graphs.react_agent.prompts import SYSTEM_PROMPT
from graphs.toolkit.search import MAX_RESULTS_LIMIT
from open_langgraph.models import default_model


@dataclass(kw_only=True)
class Context:
    """Per-run settings of the ReAct agent."""

    system_prompt: str = field(
        default=SYSTEM_PROMPT,
        metadata={"description": "System prompt; `{system_time}` becomes today's UTC date."},
    )
    model: str = field(
        default_factory=default_model,
        metadata={
            "description": "Chat model as provider/model, e.g. openai/gpt-4o-mini or "
            "local/smollm2-135m. Default: $OLG_MODEL, else local/qwen2.5-coder-1.5b."
        },
    )
    max_search_results: int = field(
        default=3,
        metadata={
            "description": "Results per search call (1-50). Small by default: each result is "
            "up to 1,200 characters and embedded models have 4k-8k token windows."
        },
    )

    def __post_init__(self) -> None:
        defaults = _built_in_defaults(type(self))
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            env_value = os.environ.get(f.name.upper(), "").strip()
            if value == defaults[f.name] and env_value:
                value = env_value
            setattr(self, f.name, _coerce(f.name, value, hints[f.name]))
        if not 1 <= self.max_search_results <= MAX_RESULTS_LIMIT:
            raise ValueError(
                f"max_search_results must be between 1 and {MAX_RESULTS_LIMIT}, "
                f"got {self.max_search_results}"
            )
        if not self.model.strip():
            raise ValueError("model must be a provider/model string such as local/smollm2-135m")

    @classmethod
    def resolve(cls, context: Any, config: RunnableConfig | None) -> Self:
        """The settings a run uses: its `context` over its `configurable` over env and defaults.

        Args:
            context: `runtime.context`: an instance, a mapping, or None (a direct `invoke`).
            config: the run's config, whose `configurable` may carry any field.
        """
        names = [f.name for f in dataclasses.fields(cls)]
        configurable = (config or {}).get("configurable") or {}
        resolved = cls(**{n: configurable[n] for n in names if configurable.get(n) is not None})
        if context is None:
            return resolved
        if isinstance(context, Mapping):
            given = {n: context[n] for n in names if context.get(n) is not None}
        else:
            given = {n: getattr(context, n) for n in names if hasattr(context, n)}
        baseline = cls()
        overrides = {n: v for n, v in given.items() if v != getattr(baseline, n)}
        return dataclasses.replace(resolved, **overrides) if overrides else resolved


def _built_in_defaults(cls: type) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory()
    return defaults


def _coerce(name: str, value: Any, kind: Any) -> Any:
    """Values from env vars and JSON arrive as text; give each field its declared type."""
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value)
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if kind is str and not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {value!r}")
    return value
