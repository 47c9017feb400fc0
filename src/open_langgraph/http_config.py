"""`http` keys of the config file that shape what the server serves, beyond CORS and hosts.

They are langgraph.json's, with the Platform's meaning (docs/config.md):

    "http": {
        "app": "./webapp.py:app",               # a Starlette/FastAPI app served with the API
        "middleware_order": "middleware_first", # or "auth_first"
        "enable_custom_route_auth": false,      # the app's routes go through `auth` too
        "mount_prefix": "/api",                 # every route served under it
        "disable_store": true,                  # and the other disable_* keys
        "configurable_headers": {"includes": ["x-user-*"]},
        "logging_headers": {"includes": ["user-agent"]}
    }

Only the shape is checked here; the app is imported when the server starts
(`server/custom_app.py`), after the config's `dependencies` are on `sys.path`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from open_langgraph.config_errors import ConfigError
from open_langgraph.header_patterns import HeaderPatterns

#: The API parts `http.disable_<part>: true` removes (`disable_webhooks` is config.py's).
#: `event_streaming` is langgraph-api's name for the thread protocol's routes.
DISABLEABLE = ("assistants", "threads", "runs", "store", "mcp", "a2a", "meta", "ui")
_EXTRA_DISABLEABLE = ("event_streaming",)

MiddlewareOrder = Literal["auth_first", "middleware_first"]

#: The `http` keys this module reads.
HTTP_KEYS = (
    "app",
    "middleware_order",
    "enable_custom_route_auth",
    "mount_prefix",
    "configurable_headers",
    "logging_headers",
    *(f"disable_{part}" for part in (*DISABLEABLE, *_EXTRA_DISABLEABLE)),
)

_PREFIX_CHARS = re.compile(r"^(/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$")


@dataclass(frozen=True, slots=True)
class HttpConfig:
    """What `http` asks of the served app (server/app.py, server/custom_app.py)."""

    app: str | None = None
    """`path/to/file.py:app` or `module:app`, a Starlette or FastAPI app to serve with ours."""
    middleware_order: MiddlewareOrder = "middleware_first"
    enable_custom_route_auth: bool = False
    mount_prefix: str | None = None
    """Served under this path (`/api`), without a trailing slash; None: at the root."""
    disabled: frozenset[str] = field(default_factory=frozenset)
    """Parts of the API not served: names of `DISABLEABLE` and `event_streaming`."""
    configurable_headers: HeaderPatterns | None = None
    """Request headers copied into a run's `config["configurable"]`; None: none are."""
    logging_headers: HeaderPatterns | None = None
    """Request headers written into request log lines; None: none are."""

    def serves(self, part: str) -> bool:
        """Whether the part of the API `part` (a `DISABLEABLE` name) is served."""
        return part not in self.disabled


def _flag(path: Path, http: dict[str, Any], key: str) -> bool:
    value = http.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(path, f"http.{key}", "must be true or false")
    return value


def _patterns(path: Path, key: str, value: Any) -> HeaderPatterns | None:
    """`{includes, excludes}` (or `include`, `exclude`), each a list of names or null."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, key, 'must be an object like {"includes": ["x-*"]}')
    known = {"includes", "excludes", "include", "exclude"}
    unknown = set(value) - known
    if unknown:
        raise ConfigError(path, key, f"unknown keys {sorted(unknown)}; expected some of {known}")
    lists: dict[str, tuple[str, ...]] = {}
    for name in sorted(known):
        items = value.get(name)
        if items is None:
            continue
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            raise ConfigError(path, f"{key}.{name}", "must be a list of header names")
        lists[name] = tuple(items)
    return HeaderPatterns(
        includes=lists.get("includes") or lists.get("include") or (),
        excludes=lists.get("excludes") or lists.get("exclude") or (),
    )


def _mount_prefix(path: Path, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("/"):
        raise ConfigError(
            path, "http.mount_prefix", "must be a path starting with '/', like '/api'"
        )
    prefix = value.rstrip("/")
    if prefix and not _PREFIX_CHARS.match(prefix):
        raise ConfigError(
            path,
            "http.mount_prefix",
            f"{value!r} must be path segments without spaces, '?', '#' or empty segments",
        )
    return prefix or None


def parse_http(path: Path, http: Any) -> HttpConfig:
    """The keys of `HTTP_KEYS` in `http` (config.py checks that no other key is there)."""
    if not isinstance(http, dict):
        return HttpConfig()
    app = http.get("app")
    if app is not None and not isinstance(app, str):
        raise ConfigError(path, "http.app", "must be 'path/to/file.py:app' or 'package.module:app'")
    order = http.get("middleware_order")
    if order is None:
        order = "middleware_first"
    if order not in ("auth_first", "middleware_first"):
        raise ConfigError(
            path, "http.middleware_order", 'must be "auth_first" or "middleware_first"'
        )
    disabled = frozenset(
        part for part in (*DISABLEABLE, *_EXTRA_DISABLEABLE) if _flag(path, http, f"disable_{part}")
    )
    return HttpConfig(
        app=app,
        middleware_order=order,
        enable_custom_route_auth=_flag(path, http, "enable_custom_route_auth"),
        mount_prefix=_mount_prefix(path, http.get("mount_prefix")),
        disabled=disabled,
        configurable_headers=_patterns(
            path, "http.configurable_headers", http.get("configurable_headers")
        ),
        logging_headers=_patterns(path, "http.logging_headers", http.get("logging_headers")),
    )
