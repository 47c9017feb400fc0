"""`store` of the config file: the long-term memory store's TTL and semantic index.

The keys are langgraph.json's, so an existing file is served unchanged:

    "store": {
        "ttl": {"default_ttl": 60, "refresh_on_read": true, "sweep_interval_minutes": 5},
        "index": {"embed": "openai:text-embedding-3-small", "dims": 1536, "fields": ["$"]}
    }

langgraph-api's `path` (a custom `BaseStore`) is accepted and ignored, with a start-up
warning: the store is the server database's own. Only the shape is checked here; the
embedding function `index.embed` names is loaded when
the server starts (`store_embeddings.py`), so a config can be validated without its
provider's package installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from open_langgraph.config_errors import ConfigError


@dataclass(frozen=True, slots=True)
class StoreTTLConfig:
    """`store.ttl`: how long items live (minutes) unless a `put` names its own `ttl`."""

    default_ttl: float | None = None
    #: Whether reading an item (get, search) restarts its TTL when the request does not say.
    refresh_on_read: bool = True
    #: How often expired items are deleted.
    sweep_interval_minutes: float = 5.0


@dataclass(frozen=True, slots=True)
class StoreIndexConfig:
    """`store.index`: embed items' `fields` into `dims`-sized vectors for `query` searches."""

    embed: str
    """`provider:model` (LangChain's `init_embeddings`), `path.py:function` or
    `module:function` (a user function from texts to vectors), or `local:<model>`."""
    dims: int
    fields: tuple[str, ...] | None = None
    """JSON paths of the value to embed; None embeds the whole value (`["$"]`)."""


@dataclass(frozen=True, slots=True)
class StoreConfig:
    ttl: StoreTTLConfig | None = None
    index: StoreIndexConfig | None = None
    ignored: tuple[str, ...] = ()
    """Why keys given here have no effect (`path`), for the start-up warning."""


#: langgraph-api's `store.path` (a custom `BaseStore`), accepted without effect.
_PATH_IGNORED = (
    "`store.path` is ignored: the store lives in the server's own SQLite or PostgreSQL "
    "database, whose items the server also sweeps (TTL) and indexes itself"
)


def _positive(path: Path, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e12:
        raise ConfigError(path, key, "must be a positive number of minutes")
    return float(value)


def _only(path: Path, key: str, value: dict[str, Any], known: set[str]) -> None:
    unknown = set(value) - known
    if unknown:
        raise ConfigError(
            path, key, f"unknown keys {sorted(unknown)}; expected some of {sorted(known)}"
        )


def _parse_ttl(path: Path, value: Any) -> StoreTTLConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, "store.ttl", "must be an object")
    _only(path, "store.ttl", value, {"default_ttl", "refresh_on_read", "sweep_interval_minutes"})
    refresh = value.get("refresh_on_read", True)
    if not isinstance(refresh, bool):
        raise ConfigError(path, "store.ttl.refresh_on_read", "must be true or false")
    default_ttl = value.get("default_ttl")
    return StoreTTLConfig(
        default_ttl=None
        if default_ttl is None
        else _positive(path, "store.ttl.default_ttl", default_ttl),
        refresh_on_read=refresh,
        sweep_interval_minutes=_positive(
            path,
            "store.ttl.sweep_interval_minutes",
            5.0 if value.get("sweep_interval_minutes") is None else value["sweep_interval_minutes"],
        ),
    )


def _parse_index(path: Path, value: Any) -> StoreIndexConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, "store.index", "must be an object")
    _only(path, "store.index", value, {"embed", "dims", "fields"})
    embed = value.get("embed")
    if not isinstance(embed, str) or embed.count(":") < 1 or not all(embed.split(":", 1)):
        raise ConfigError(
            path,
            "store.index.embed",
            "must be 'provider:model', 'path/to/file.py:function', 'module:function' "
            "or 'local:<model>'",
        )
    dims = value.get("dims")
    if isinstance(dims, bool) or not isinstance(dims, int) or not 0 < dims <= 65536:
        raise ConfigError(path, "store.index.dims", "must be a positive integer")
    fields = value.get("fields")
    if fields is not None and (
        not isinstance(fields, list)
        or not fields
        or not all(isinstance(f, str) and f for f in fields)
    ):
        raise ConfigError(path, "store.index.fields", "must be a non-empty list of field paths")
    return StoreIndexConfig(
        embed=embed, dims=dims, fields=None if fields is None else tuple(fields)
    )


def parse_store(path: Path, value: Any) -> StoreConfig:
    """`store`, validated; raises `ConfigError` naming the first wrong key."""
    if value is None:
        return StoreConfig()
    if not isinstance(value, dict):
        raise ConfigError(path, "store", "must be an object")
    _only(path, "store", value, {"ttl", "index", "path"})
    if "path" in value and not isinstance(value["path"], str):
        raise ConfigError(path, "store.path", "must be a string")
    return StoreConfig(
        ttl=_parse_ttl(path, value.get("ttl")),
        index=_parse_index(path, value.get("index")),
        ignored=(_PATH_IGNORED,) if value.get("path") else (),
    )
