"""Every key of the Platform's langgraph.json schema is accepted by `load_config`.

The schema is langgraph-cli's own (`langgraph_cli.schemas.Config`, the TypedDicts the CLI
validates langgraph.json against). The test walks it, every nested TypedDict included, and for
each key path (`http.cors.max_age`; `*` stands for a name the user picks, as in
`graphs.*.path`) writes a minimal langgraph.json that uses it with a value from `VALUES`, then
loads it. A key a newer langgraph-cli adds has no value here, so `test_every_schema_key_has_a_value`
fails until config.py handles it (implements it, or accepts it with a warning) and it gets one.
"""

from __future__ import annotations

import copy
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest
from langgraph_cli.schemas import Config
from typing_extensions import is_typeddict

from open_langgraph.config import load_config

GRAPH = "./agent.py:graph"

#: A value for every key path, valid on the Platform, one each.
VALUES: dict[str, Any] = {
    "python_version": "3.12",
    "node_version": "20",
    "api_version": "0.4",
    "_INTERNAL_docker_tag": "latest",
    "base_image": "langchain/langgraph-api:3.12",
    "image_distro": "wolfi",
    "pip_config_file": "pip.conf",
    "pip_installer": "uv",
    "source": {"kind": "uv", "root": "."},
    "source.kind": "uv",
    "source.root": ".",
    "source.package": "my-agent",
    "dockerfile_lines": ["RUN echo hi"],
    "dependencies": ["."],
    "graphs": {"agent": GRAPH},
    "graphs.*.path": GRAPH,
    "graphs.*.description": "An agent.",
    "env": {"A": "1"},
    "store": {},
    "store.index": {"embed": "openai:text-embedding-3-small", "dims": 1536},
    "store.index.dims": 1536,
    "store.index.embed": "openai:text-embedding-3-small",
    "store.index.fields": ["$"],
    "store.ttl": {},
    "store.ttl.refresh_on_read": False,
    "store.ttl.default_ttl": 60,
    "store.ttl.sweep_interval_minutes": 10,
    "checkpointer": {},
    "checkpointer.path": "./checkpointer.py:create_checkpointer",
    "checkpointer.ttl": {},
    "checkpointer.ttl.strategy": "keep_latest",
    "checkpointer.ttl.default_ttl": 1440,
    "checkpointer.ttl.sweep_interval_minutes": 10,
    "checkpointer.ttl.sweep_limit": 500,
    "checkpointer.serde": {},
    "checkpointer.serde.allowed_json_modules": [["my_agent", "models", "Plan"]],
    "checkpointer.serde.allowed_msgpack_modules": [["my_agent.models", "Plan"]],
    "checkpointer.serde.pickle_fallback": True,
    "auth": {},
    "auth.path": "./auth.py:auth",
    "auth.disable_studio_auth": True,
    "auth.openapi": {},
    "auth.openapi.securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "k"}},
    "auth.openapi.security": [{"apiKey": []}],
    "auth.openapi.paths": {"/threads": {"post": [{"apiKey": []}]}},
    "auth.cache": {},
    "auth.cache.cache_keys": ["authorization"],
    "auth.cache.ttl_seconds": 60,
    "auth.cache.max_size": 1000,
    "encryption": {"path": "./encryption.py:encryption"},
    "encryption.path": "./encryption.py:encryption",
    "priority": {},
    "priority.path": "./priority.py:priority",
    "http": {},
    "http.app": "./webapp.py:app",
    "http.disable_assistants": True,
    "http.disable_threads": True,
    "http.disable_runs": True,
    "http.disable_store": True,
    "http.disable_mcp": True,
    "http.disable_a2a": True,
    "http.disable_meta": True,
    "http.disable_ui": True,
    "http.disable_webhooks": True,
    "http.cors": {},
    "http.cors.allow_origins": ["https://app.example.com"],
    "http.cors.allow_methods": ["GET", "POST"],
    "http.cors.allow_headers": ["authorization"],
    "http.cors.allow_credentials": True,
    "http.cors.allow_origin_regex": "^https://.*\\.example\\.com$",
    "http.cors.expose_headers": ["x-pagination-next"],
    "http.cors.max_age": 600,
    "http.configurable_headers": {},
    "http.configurable_headers.includes": ["x-user-*"],
    "http.configurable_headers.excludes": ["*token*"],
    "http.logging_headers": {},
    "http.logging_headers.includes": ["user-agent"],
    "http.logging_headers.excludes": ["*key*"],
    "http.middleware_order": "auth_first",
    "http.enable_custom_route_auth": True,
    "http.mount_prefix": "/api",
    "webhooks": {},
    "webhooks.env_prefix": "MY_HOOKS_",
    "webhooks.url": {},
    "webhooks.url.require_https": True,
    "webhooks.url.allowed_domains": ["hooks.example.com", "*.corp.example"],
    "webhooks.url.allowed_ports": [443],
    "webhooks.url.max_url_length": 2048,
    "webhooks.url.disable_loopback": False,
    "webhooks.headers": {"Authorization": "Bearer ${{ env.LG_WEBHOOK_SCHEMA_TEST }}"},
    "ui": {"agent": "./ui.tsx"},
    "keep_pkg_tools": ["pip"],
}

#: What a key needs beside it in its object (`dims` needs `embed`, ...).
SIBLINGS: dict[str, dict[str, Any]] = {
    "graphs.*": {"path": GRAPH},
    "store.index": {"embed": "openai:text-embedding-3-small", "dims": 1536},
    "source": {"kind": "uv"},
}


def _unwrapped(annotation: Any) -> Iterator[tuple[bool, Any]]:
    """The types inside `annotation` (Optional, unions, lists and dict values unwrapped),
    each with whether it sits under a dict key the user names."""
    origin = get_origin(annotation)
    if origin in (typing.Required, typing.NotRequired, typing.Annotated):
        yield from _unwrapped(get_args(annotation)[0])
    elif origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            if arg is not type(None):
                yield from _unwrapped(arg)
    elif origin in (list, set, tuple):
        for arg in get_args(annotation):
            yield from _unwrapped(arg)
    elif origin is dict:
        for _, inner in _unwrapped(get_args(annotation)[1]):
            yield True, inner
    else:
        yield False, annotation


def schema_keys(typed_dict: Any = Config, prefix: str = "") -> Iterator[str]:
    """Every key path of the TypedDict `typed_dict`, depth first."""
    for key, annotation in get_type_hints(typed_dict, include_extras=True).items():
        path = prefix + key
        yield path
        for keyed, inner in _unwrapped(annotation):
            if is_typeddict(inner):
                yield from schema_keys(inner, path + (".*." if keyed else "."))


KEYS = list(dict.fromkeys(schema_keys()))


def config_using(key: str) -> dict[str, Any]:
    """A minimal langgraph.json whose only addition is `key` set to its value."""
    config: dict[str, Any] = {"graphs": {"agent": GRAPH}}
    parts = key.split(".")
    node = config
    for depth, part in enumerate(parts[:-1]):
        name = "agent" if part == "*" else part
        child = node.get(name)
        if not isinstance(child, dict):
            child = copy.deepcopy(SIBLINGS.get(".".join(parts[: depth + 1]), {}))
            node[name] = child
        node = child
    node[parts[-1]] = copy.deepcopy(VALUES[key])
    return config


def test_the_schema_is_walked() -> None:
    assert {"graphs.*.path", "http.cors.max_age", "checkpointer.serde.pickle_fallback"} <= set(KEYS)


def test_every_schema_key_has_a_value() -> None:
    missing = [key for key in KEYS if key not in VALUES]
    assert not missing, (
        f"langgraph-cli's schema has keys config.py may not handle: {missing}; make "
        "load_config accept them (docs/config.md) and give each a value in VALUES"
    )
    assert not set(VALUES) - set(KEYS), "VALUES names keys the schema no longer has"


@pytest.mark.parametrize(
    "key",
    KEYS,
)
def test_load_config_accepts_the_key(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LG_WEBHOOK_SCHEMA_TEST", "token")
    # Files the values name are checked to exist (a `ui` component); encryption's and the
    # graph's are imported only at start-up.
    (tmp_path / "ui.tsx").write_text("export default function Agent() { return null; }\n")
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps(config_using(key)), encoding="utf-8")
    load_config(path)
