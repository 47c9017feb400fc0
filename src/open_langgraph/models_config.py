"""`models` of the config file: which embedded model answers a hosted model's name, on `/v1`
and inside the served graphs (model_aliases.py).

    "models": {"aliases": {"gpt-4o-mini": "local/smollm2-135m",
                           "openai:gpt-4o-mini": "local/smollm2-135m"}}

A project's own `init_chat_model("openai:gpt-4o-mini")`, pointed at this server with
`OPENAI_BASE_URL`, sends `model: "gpt-4o-mini"`; the alias decides which embedded model answers
it (docs/models.md). Targets are checked against the catalogue here, so a typo stops start-up
instead of failing the first request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_langgraph.config_errors import ConfigError

_KEYS = ("aliases",)


@dataclass(frozen=True, slots=True)
class ModelsConfig:
    aliases: dict[str, str] = field(default_factory=dict)
    """Requested name (`gpt-4o-mini`, `openai:gpt-4o-mini`) -> catalogue name (`smollm2-135m`)."""


def local_name(target: str) -> str:
    """`local/smollm2-135m`, `local:smollm2-135m` or `smollm2-135m` -> `smollm2-135m`."""
    for prefix in ("local/", "local:"):
        if target.startswith(prefix):
            return target[len(prefix) :]
    return target


def parse_models(path: Path, value: Any) -> ModelsConfig:
    """The config's `models` object, every alias target a known embedded model."""
    if value is None:
        return ModelsConfig()
    if not isinstance(value, dict):
        raise ConfigError(path, "models", "must be an object")
    for key in value:
        if key not in _KEYS:
            raise ConfigError(path, f"models.{key}", f"unknown key; expected one of {_KEYS}")
    aliases = value.get("aliases", {})
    if not isinstance(aliases, dict):
        raise ConfigError(path, "models.aliases", "must be an object of model names")
    # The catalogue is plain data (no llama.cpp import), cheap to read at config time.
    from open_langgraph.models.local.catalog import LOCAL_MODELS

    parsed: dict[str, str] = {}
    for name, target in aliases.items():
        key = f"models.aliases.{name}"
        if not name.strip():
            raise ConfigError(path, "models.aliases", "an alias name is empty")
        if not isinstance(target, str) or local_name(target) not in LOCAL_MODELS:
            known = ", ".join(f"local/{n}" for n in LOCAL_MODELS)
            raise ConfigError(path, key, f"must name an embedded model ({known})")
        parsed[name] = local_name(target)
    return ModelsConfig(aliases=parsed)
