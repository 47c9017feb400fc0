"""`checkpointer` keys of the config file besides `ttl` (config.py): `serde`, and the
custom-backend keys `path`, `backend` and `uri`, which are accepted and ignored.

    "checkpointer": {
        "serde": {
            "allowed_json_modules": [["my_agent", "models", "Plan"]],
            "allowed_msgpack_modules": [["my_agent", "models", "Plan"]],
            "pickle_fallback": false
        }
    }

`serde` configures LangGraph's `JsonPlusSerializer` for the checkpointer
(`storage/checkpoint_serde.py`).
A custom checkpointer (`path`) cannot replace ours: the storage shares the saver's connection
and transactions, and rolls back, prunes and measures checkpoints in its tables directly, so
threads would lose those operations (docs/config.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from open_langgraph.config_errors import ConfigError

#: `checkpointer` keys this module reads (`ttl` is config.py's).
CHECKPOINTER_KEYS = ("serde", "path", "backend", "uri")

Modules = tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class SerdeConfig:
    """`checkpointer.serde`: what the checkpointer may revive from stored checkpoints."""

    allowed_json_modules: Modules | Literal[True] | None = None
    """Classes (module path + name) revived from the legacy `json` type; True: any."""
    allowed_msgpack_modules: Modules | Literal[True] | Literal["default"] | None = "default"
    """Classes revived from msgpack besides LangGraph's safe ones; True: any (with a
    warning per type); None: only the safe ones; "default": LangGraph's default (True
    unless LANGGRAPH_STRICT_MSGPACK is set)."""
    pickle_fallback: bool = False
    """Pickle values msgpack cannot encode (and unpickle them when read)."""


@dataclass(frozen=True, slots=True)
class CheckpointerExtras:
    serde: SerdeConfig | None = None
    ignored: tuple[str, ...] = ()
    """One sentence per key accepted without effect, for the start-up warning."""


def _modules(path: Path, key: str, value: Any) -> Modules | Literal[True] | None:
    if value is None or value is False:
        return None
    if value is True:
        return True
    if not isinstance(value, list) or not all(
        isinstance(entry, list) and entry and all(isinstance(p, str) and p for p in entry)
        for entry in value
    ):
        raise ConfigError(
            path,
            key,
            'must be true, null or a list of [module, ..., name] lists like [["my_agent", '
            '"models", "Plan"]]',
        )
    return tuple(tuple(entry) for entry in value)


def _serde(path: Path, value: Any) -> SerdeConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, "checkpointer.serde", "must be an object")
    known = {"allowed_json_modules", "allowed_msgpack_modules", "pickle_fallback"}
    unknown = set(value) - known
    if unknown:
        raise ConfigError(
            path, "checkpointer.serde", f"unknown keys {sorted(unknown)}; expected {sorted(known)}"
        )
    pickle_fallback = value.get("pickle_fallback", False)
    if not isinstance(pickle_fallback, bool):
        raise ConfigError(path, "checkpointer.serde.pickle_fallback", "must be true or false")
    msgpack: Modules | Literal[True] | Literal["default"] | None = "default"
    if "allowed_msgpack_modules" in value:
        msgpack = _modules(
            path, "checkpointer.serde.allowed_msgpack_modules", value["allowed_msgpack_modules"]
        )
    return SerdeConfig(
        allowed_json_modules=_modules(
            path, "checkpointer.serde.allowed_json_modules", value.get("allowed_json_modules")
        ),
        allowed_msgpack_modules=msgpack,
        pickle_fallback=pickle_fallback,
    )


def _ignored(path: Path, checkpointer: dict[str, Any]) -> tuple[str, ...]:
    """Why `path`, `backend` and `uri` change nothing, one sentence each one given."""
    backend = checkpointer.get("backend")
    if backend is not None and backend not in ("default", "custom", "mongo"):
        raise ConfigError(path, "checkpointer.backend", 'must be "default", "custom" or "mongo"')
    for key in ("path", "uri"):
        if key in checkpointer and not isinstance(checkpointer[key], str):
            raise ConfigError(path, f"checkpointer.{key}", "must be a string")
    notes: list[str] = []
    if checkpointer.get("path") or backend == "custom":
        notes.append(
            "`checkpointer.path` is ignored: threads are checkpointed by the built-in "
            "SQLite or PostgreSQL saver, whose tables the server also rolls back, prunes "
            "and measures directly, which a custom saver would not support"
        )
    if backend == "mongo" or "uri" in checkpointer:
        notes.append(
            "`checkpointer.backend: mongo` / `checkpointer.uri` are ignored: threads are "
            "checkpointed in the server's own SQLite or PostgreSQL database"
        )
    return tuple(notes)


def parse_checkpointer_extras(path: Path, checkpointer: Any) -> CheckpointerExtras:
    """`serde`, `path`, `backend` and `uri` of `checkpointer`, validated."""
    if not isinstance(checkpointer, dict):
        return CheckpointerExtras()
    return CheckpointerExtras(
        serde=_serde(path, checkpointer.get("serde")), ignored=_ignored(path, checkpointer)
    )
