"""Loading and validating the project config file (`open_langgraph.json` or `langgraph.json`).

The config is validated entirely before anything starts, so a typo stops start-up with one
message naming the file, the key and the problem instead of surfacing on the first request.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values

from open_langgraph.checkpointer_config import (
    CHECKPOINTER_KEYS,
    CheckpointerExtras,
    parse_checkpointer_extras,
)
from open_langgraph.config_errors import ConfigError
from open_langgraph.genui_config import GenerativeUiConfig, parse_generative_ui
from open_langgraph.http_config import HTTP_KEYS, HttpConfig, parse_http
from open_langgraph.models_config import ModelsConfig, parse_models
from open_langgraph.store_config import StoreConfig, parse_store
from open_langgraph.webhook_config import (
    DEFAULT_ENV_PREFIX,
    parse_allowed_fields,
    render_headers,
)

CONFIG_FILE_NAMES = ("open_langgraph.json", "langgraph.json")
CONFIG_ENV_VAR = "OLG_CONFIG"


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """Where one graph lives: `path` is a file (relative to the config) or a module."""

    graph_id: str
    path: str
    attribute: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class CorsConfig:
    allow_origins: list[str] = field(default_factory=list)
    allow_methods: list[str] = field(default_factory=lambda: ["*"])
    allow_headers: list[str] = field(default_factory=lambda: ["*"])
    allow_credentials: bool = False
    expose_headers: list[str] = field(default_factory=list)
    max_age: int = 600
    allow_origin_regex: str | None = None


@dataclass(frozen=True, slots=True)
class HostsConfig:
    """`http.allowed_hosts`: the `Host` names the server answers besides loopback ones.

    A server bound to a loopback address answers only requests addressed to `localhost`, a
    loopback IP or a name listed here, so a web page whose name was re-pointed at 127.0.0.1
    (DNS rebinding) cannot reach it. On any other bind the list is enforced when given;
    `"*"` turns the check off, `"*.example.com"` matches its subdomains.
    """

    allowed_hosts: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Where run webhooks may go (`webhooks.url` in the file) and what they carry.

    The keys are LangGraph Platform's. Safe by default: loopback targets are refused unless
    `disable_loopback` is false, private networks (and every other address that is not
    globally routable) unless `disable_private_ips` is false, link-local addresses (cloud
    metadata endpoints) always; a host listed by exact name in `allowed_domains` is trusted.
    """

    allowed_domains: tuple[str, ...] = ()
    allowed_ports: tuple[int, ...] = ()
    require_https: bool = False
    disable_loopback: bool = True
    disable_private_ips: bool = True
    max_url_length: int = 4096
    headers: dict[str, str] = field(default_factory=dict)
    """Sent with every webhook; `${{ env.NAME }}` templates already replaced."""
    enabled: bool = True
    allowed_fields: frozenset[str] | None = None
    """`webhooks.allowed_fields`: the only payload fields sent; None sends them all."""


#: `checkpointer.ttl.sweep_limit` when not given.
DEFAULT_SWEEP_LIMIT = 100


@dataclass(frozen=True, slots=True)
class ThreadTTLConfig:
    """`checkpointer.ttl` of langgraph.json: when idle threads are swept, and how.

    `default_ttl` (minutes) is given to every new thread that does not name its own TTL;
    `sweep_interval_minutes` is how often expired threads are looked for.
    """

    strategy: Literal["delete", "keep_latest"] = "delete"
    default_ttl: float | None = None
    sweep_interval_minutes: float = 5.0
    #: Most threads one sweep deletes or prunes (the Platform's default is 10000; ours is
    #: lower since SQLite serves requests on the connection a long sweep would hold).
    sweep_limit: int = DEFAULT_SWEEP_LIMIT


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    """`limits`: bounds that keep one client or one run from exhausting the server.

    Every bound has a default generous enough for normal use; `None` (JSON null) turns off
    the ones that may be unbounded (`run_timeout_seconds`, `event_retention_days`).
    """

    #: Largest request body in bytes, counted while reading (413 beyond it).
    max_body_bytes: int = 10 * 1024 * 1024
    #: Most runs in one `POST /runs/batch` (422 beyond it).
    max_batch_size: int = 100
    #: Most items in a list field of a request body (`ids`, `thread_ids`, `run_ids`, ...).
    max_list_items: int = 1000
    #: A run executing longer than this ends with status `timeout`; None: no limit.
    run_timeout_seconds: float | None = 3600.0
    #: Largest `after_seconds` a run may ask for (422 beyond it).
    max_after_seconds: float = 86400.0
    #: Events a thread stream listener may fall behind before it is dropped.
    max_queued_events: int = 1000
    #: Stored run events older than this many days are deleted; None: kept forever.
    event_retention_days: float | None = 7.0
    #: How often old run events are looked for.
    event_sweep_interval_minutes: float = 60.0


@dataclass(frozen=True, slots=True)
class AppConfig:
    """The validated content of a config file."""

    path: Path
    graphs: dict[str, GraphSpec]
    dependencies: list[Path] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    auth_path: str | None = None
    cors: CorsConfig | None = None
    default_config: dict[str, Any] = field(default_factory=dict)
    webhooks: WebhookConfig = field(default_factory=WebhookConfig)
    thread_ttl: ThreadTTLConfig = field(default_factory=ThreadTTLConfig)
    hosts: HostsConfig = field(default_factory=HostsConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    encryption_path: str | None = None
    """`encryption.path`: the `langgraph_sdk.Encryption` object to load (`encryption/`)."""
    generative_ui: GenerativeUiConfig = field(default_factory=GenerativeUiConfig)
    """`ui` and `ui_config`: the generative UI components to build and serve (`genui/`)."""
    http: HttpConfig = field(default_factory=HttpConfig)
    checkpointer: CheckpointerExtras = field(default_factory=CheckpointerExtras)
    ignored: tuple[str, ...] = ()
    """Keys accepted without effect here and a missing `env` file, one sentence each, which
    `olg serve` logs as warnings (they cannot be logged while loading: logging is set up
    later)."""
    models: ModelsConfig = field(default_factory=ModelsConfig)
    """`models.aliases`: hosted model names answered by embedded models, on `/v1` and in graphs."""

    @property
    def base_dir(self) -> Path:
        return self.path.parent


def find_config_file(
    explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None
) -> Path:
    """Pick the config file: `--config`, then `OLG_CONFIG`, then the default names in `cwd`."""
    chosen = explicit or os.environ.get(CONFIG_ENV_VAR)
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise ConfigError(path, "(file)", "no such file")
        return path.resolve()
    base = cwd or Path.cwd()
    for name in CONFIG_FILE_NAMES:
        candidate = base / name
        if candidate.is_file():
            return candidate.resolve()
    raise ConfigError(
        base / CONFIG_FILE_NAMES[0], "(file)", "no open_langgraph.json or langgraph.json here"
    )


def load_config(path: Path) -> AppConfig:
    """Read and validate a config file, raising `ConfigError` on the first problem."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(path, "(file)", f"invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "(file)", f"is not UTF-8 text: {exc.reason}") from exc
    except OSError as exc:
        raise ConfigError(path, "(file)", f"cannot be read: {exc.strerror}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(path, "(root)", "must be a JSON object")

    known = {
        "graphs",
        "dependencies",
        "env",
        "auth",
        "http",
        "default_config",
        "webhooks",
        "limits",
        "store",
        "encryption",
        "ui",
        "ui_config",
        "models",
        # Keys of langgraph.json that only matter to LangGraph's docker build; accepted so
        # that an existing langgraph.json is served unchanged.
        "python_version",
        "api_version",
        "base_image",
        "pip_config_file",
        "pip_installer",
        "keep_pkg_tools",
        "dockerfile_lines",
        "image_distro",
        "checkpointer",
        "node_version",
        "_INTERNAL_docker_tag",
        "$schema",
        # Platform keys accepted without effect here (`_ignored_top_level`).
        *_IGNORED_TOP_LEVEL,
    }
    unknown = [_unknown_key_note(key, known) for key in raw if key not in known]

    base = path.parent
    env, env_notes = _parse_env(path, base, raw.get("env", {}))
    http = parse_http(path, raw.get("http"))
    if http.app is not None:
        split_target(path, "http.app", http.app)
    checkpointer = parse_checkpointer_extras(path, raw.get("checkpointer"))
    store = parse_store(path, raw.get("store"))
    graphs, graph_notes = _parse_graphs(path, raw.get("graphs"))
    return AppConfig(
        path=path,
        graphs=graphs,
        dependencies=_parse_dependencies(path, base, raw.get("dependencies", [])),
        env=env,
        auth_path=_parse_auth(path, raw.get("auth")),
        cors=_parse_cors(path, raw.get("http")),
        default_config=_parse_default_config(path, raw.get("default_config", {})),
        webhooks=_parse_webhooks(path, raw.get("webhooks"), raw.get("http"), env),
        thread_ttl=_parse_thread_ttl(path, raw.get("checkpointer")),
        hosts=_parse_hosts(path, raw.get("http")),
        limits=_parse_limits(path, raw.get("limits")),
        store=store,
        http=http,
        checkpointer=checkpointer,
        ignored=(
            *unknown,
            *_ignored_top_level(path, raw),
            *graph_notes,
            *env_notes,
            *checkpointer.ignored,
            *store.ignored,
        ),
        encryption_path=_parse_encryption(path, raw.get("encryption")),
        generative_ui=parse_generative_ui(path, raw.get("ui"), raw.get("ui_config")),
        models=parse_models(path, raw.get("models")),
    )


#: Top-level Platform keys with no effect here, and why (logged once at start-up).
_IGNORED_TOP_LEVEL = {
    "priority": "`priority` is ignored: runs here are started in the order they are queued, "
    "with no per-thread priority function",
    "source": "`source` is ignored: it tells LangGraph's image build where the uv project "
    "is; here the project is whatever Python environment runs olg",
}


def _unknown_key_note(key: str, known: set[str]) -> str:
    """The warning for a top-level key no langgraph.json has. langgraph-cli only warns, and
    published projects carry such keys (chat-langchain's `config`), so they are served; a
    misspelt key is named with the one it resembles."""
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.82)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return f"`{key}` is not a langgraph.json key and is ignored{hint}"


def _ignored_top_level(path: Path, raw: dict[str, Any]) -> list[str]:
    """The warnings for the keys of `_IGNORED_TOP_LEVEL` in `raw`, their shape checked."""
    priority = raw.get("priority")
    if priority is not None and not (
        isinstance(priority, dict) and isinstance(priority.get("path", ""), str)
    ):
        raise ConfigError(path, "priority", "must be an object like {'path': './p.py:priority'}")
    source = raw.get("source")
    if source is not None and not isinstance(source, dict):
        raise ConfigError(path, "source", "must be an object like {'kind': 'uv', 'root': '.'}")
    return [note for key, note in _IGNORED_TOP_LEVEL.items() if raw.get(key) is not None]


def split_target(config_path: Path, key: str, target: Any) -> tuple[str, str]:
    """`location`, `attribute` of a `location:attribute` string, or a `ConfigError`."""
    if not isinstance(target, str) or target.count(":") != 1:
        raise ConfigError(
            config_path, key, "must be 'path/to/file.py:attribute' or 'package.module:attribute'"
        )
    location, attribute = target.split(":")
    if not location or not attribute.isidentifier():
        raise ConfigError(config_path, key, f"{target!r} needs a path and an attribute name")
    return location, attribute


#: Graph files LangGraph.js serves; a Python server cannot import them.
_JAVASCRIPT_SUFFIXES = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")


def _parse_graphs(path: Path, value: Any) -> tuple[dict[str, GraphSpec], list[str]]:
    """The Python graphs, and a note for each JavaScript one left out: a project mixing both
    (LangGraph's templates do) serves its Python graphs rather than none."""
    if value is None:
        raise ConfigError(path, "graphs", "is required")
    if not isinstance(value, dict):
        raise ConfigError(path, "graphs", "must be an object mapping graph ids to paths")
    graphs: dict[str, GraphSpec] = {}
    for graph_id, entry in value.items():
        key = f"graphs.{graph_id}"
        description = None
        if isinstance(entry, dict):
            unknown = set(entry) - {"path", "description"}
            if unknown:
                raise ConfigError(path, key, f"unknown keys {sorted(unknown)}")
            description = entry.get("description")
            if description is not None and not isinstance(description, str):
                raise ConfigError(path, f"{key}.description", "must be a string")
            entry = entry.get("path")
        location, attribute = split_target(path, key, entry)
        graphs[graph_id] = GraphSpec(graph_id, location, attribute, description)
    if not graphs:
        raise ConfigError(path, "graphs", "must name at least one graph")
    javascript = {
        graph_id: spec.path
        for graph_id, spec in graphs.items()
        if spec.path.lower().endswith(_JAVASCRIPT_SUFFIXES)
    }
    if len(javascript) == len(graphs):
        raise ConfigError(
            path,
            "graphs",
            f"every graph is JavaScript ({', '.join(sorted(set(javascript.values())))}); olg "
            "serves Python graphs: serve these with LangGraph.js "
            "(npx @langchain/langgraph-cli dev)",
        )
    notes = [
        f"graph {graph_id!r} ({location}) is JavaScript and is not served: olg serves Python graphs"
        for graph_id, location in javascript.items()
    ]
    return {k: v for k, v in graphs.items() if k not in javascript}, notes


def _parse_dependencies(path: Path, base: Path, value: Any) -> list[Path]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, "dependencies", "must be a list of paths")
    # Package names (as in langgraph.json's pip dependencies) are installed separately;
    # only local directories go on sys.path, and a local path that is missing is a typo.
    local = [v for v in value if v.startswith((".", "/"))]
    for entry in local:
        if not (base / entry).is_dir():
            raise ConfigError(path, "dependencies", f"{entry!r} is not a directory")
    return [(base / v).resolve() for v in local]


def _parse_env(path: Path, base: Path, value: Any) -> tuple[dict[str, str], list[str]]:
    """The variables `env` sets, and a warning when its file is missing.

    A missing file is not an error, as with `langgraph dev`: LangChain's templates name a
    `.env` in their langgraph.json but ship only `.env.example` (`.env` holds secrets and is
    not committed), so a fresh clone has none, and its variables may come from the
    environment instead.
    """
    if isinstance(value, str):
        env_file = base / value
        if not env_file.exists():
            example = env_file.with_name(env_file.name + ".example")
            hint = (
                f" (copy {example.name} to {env_file.name} to set them)"
                if example.is_file()
                else ""
            )
            return {}, [
                f"`env`: env file {value!r} does not exist; serving with the process "
                f"environment's variables only{hint}"
            ]
        if not env_file.is_file():
            raise ConfigError(path, "env", f"env file {value!r} is not a file")
        return {k: v for k, v in dotenv_values(env_file).items() if v is not None}, []
    if isinstance(value, dict):
        bad = [k for k, v in value.items() if not isinstance(v, str | int | float | bool)]
        if bad:
            raise ConfigError(path, f"env.{bad[0]}", "values must be strings")
        return {k: str(v) for k, v in value.items()}, []
    raise ConfigError(path, "env", "must be an object or the path of a .env file")


#: Keys of langgraph.json's `auth`; only `path` changes anything here (docs/server.md).
_AUTH_KEYS = ("path", "disable_studio_auth", "openapi", "cache")


def _parse_auth(path: Path, value: Any) -> str | None:
    """`auth.path`, the `langgraph_sdk.Auth` object to load (`auth/loading.py`); the other
    Platform keys are accepted so an existing langgraph.json is served, and ignored."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, "auth", "must be an object like {'path': './auth.py:auth'}")
    for key in value:
        if key not in _AUTH_KEYS:
            raise ConfigError(path, f"auth.{key}", f"unknown key; expected one of {_AUTH_KEYS}")
    auth_path = value.get("path")
    if auth_path is not None and not isinstance(auth_path, str):
        raise ConfigError(path, "auth.path", "must be a string")
    disable_studio_auth = value.get("disable_studio_auth", False)
    if not isinstance(disable_studio_auth, bool):
        raise ConfigError(path, "auth.disable_studio_auth", "must be true or false")
    for key in ("openapi", "cache"):
        if key in value and not isinstance(value[key], dict):
            raise ConfigError(path, f"auth.{key}", "must be an object")
    return auth_path


def _parse_encryption(path: Path, value: Any) -> str | None:
    """`encryption.path`, the `langgraph_sdk.Encryption` object to load; only its shape is
    checked here, the import happens at start-up (`encryption/loading.py`)."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"path"}:
        raise ConfigError(
            path, "encryption", "must be an object like {'path': './encryption.py:encryption'}"
        )
    split_target(path, "encryption.path", value["path"])
    return str(value["path"])


_HTTP_KEYS = ["cors", "disable_webhooks", "allowed_hosts", *HTTP_KEYS]


def _parse_cors(path: Path, value: Any) -> CorsConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, "http", "must be an object")
    for key in value:
        if key not in _HTTP_KEYS:
            raise ConfigError(path, f"http.{key}", f"not supported; expected one of {_HTTP_KEYS}")
    cors = value.get("cors")
    if cors is None:
        return None
    if not isinstance(cors, dict):
        raise ConfigError(path, "http.cors", "must be an object")
    fields = set(CorsConfig.__dataclass_fields__)
    unknown = set(cors) - fields
    if unknown:
        raise ConfigError(path, "http.cors", f"unknown keys {sorted(unknown)}")
    for name in ("allow_origins", "allow_methods", "allow_headers", "expose_headers"):
        if name in cors and not (
            isinstance(cors[name], list) and all(isinstance(v, str) for v in cors[name])
        ):
            raise ConfigError(path, f"http.cors.{name}", "must be a list of strings")
    if "allow_credentials" in cors and not isinstance(cors["allow_credentials"], bool):
        raise ConfigError(path, "http.cors.allow_credentials", "must be true or false")
    regex = cors.get("allow_origin_regex")
    if regex is not None and not isinstance(regex, str):
        raise ConfigError(path, "http.cors.allow_origin_regex", "must be a string")
    max_age = cors.get("max_age", 0)
    if not isinstance(max_age, int) or isinstance(max_age, bool) or max_age < 0:
        raise ConfigError(path, "http.cors.max_age", "must be a non-negative integer (seconds)")
    return CorsConfig(**cors)


def _parse_hosts(path: Path, http: Any) -> HostsConfig:
    """`http.allowed_hosts`: a list of host names (no scheme, no port)."""
    if not isinstance(http, dict) or "allowed_hosts" not in http:
        return HostsConfig()
    hosts = http["allowed_hosts"]
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h.strip() for h in hosts):
        raise ConfigError(path, "http.allowed_hosts", "must be a list of host names")
    for host in hosts:
        if "/" in host or (":" in host and not host.startswith("[")):
            raise ConfigError(
                path,
                "http.allowed_hosts",
                f"{host!r} must be a bare host name, without scheme or port",
            )
    return HostsConfig(allowed_hosts=tuple(h.strip().lower() for h in hosts))


def _parse_default_config(path: Path, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(path, "default_config", "must be an object (a RunnableConfig)")
    limit = value.get("recursion_limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ConfigError(path, "default_config.recursion_limit", "must be a positive integer")
    for name in ("configurable", "metadata"):
        if name in value and not isinstance(value[name], dict):
            raise ConfigError(path, f"default_config.{name}", "must be an object")
    tags = value.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ConfigError(path, "default_config.tags", "must be a list of strings")
    return value


def _parse_webhooks(path: Path, value: Any, http: Any, env: dict[str, str]) -> WebhookConfig:
    disabled = isinstance(http, dict) and http.get("disable_webhooks", False)
    if not isinstance(disabled, bool):
        raise ConfigError(path, "http.disable_webhooks", "must be true or false")
    if value is None:
        return WebhookConfig(enabled=not disabled)
    if not isinstance(value, dict):
        raise ConfigError(path, "webhooks", "must be an object")
    known_keys = ("url", "headers", "env_prefix", "allowed_fields")
    unknown = set(value) - set(known_keys)
    if unknown:
        raise ConfigError(
            path, "webhooks", f"unknown keys {sorted(unknown)}; expected {', '.join(known_keys)}"
        )
    headers = value.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ConfigError(path, "webhooks.headers", "must be an object of string values")
    env_prefix = value.get("env_prefix", DEFAULT_ENV_PREFIX)
    if not isinstance(env_prefix, str):
        raise ConfigError(path, "webhooks.env_prefix", "must be a string")
    # The process's environment wins over the config's `env`, as when `olg serve` applies it.
    headers = render_headers(path, headers, env_prefix, {**env, **os.environ})
    url = value.get("url", {})
    if not isinstance(url, dict):
        raise ConfigError(path, "webhooks.url", "must be an object")
    flags = ("require_https", "disable_loopback", "disable_private_ips")
    known = {*flags, "allowed_domains", "allowed_ports", "max_url_length"}
    if set(url) - known:
        raise ConfigError(path, "webhooks.url", f"unknown keys {sorted(set(url) - known)}")
    for flag in flags:
        if flag in url and not isinstance(url[flag], bool):
            raise ConfigError(path, f"webhooks.url.{flag}", "must be true or false")
    domains = url.get("allowed_domains", [])
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise ConfigError(path, "webhooks.url.allowed_domains", "must be a list of host names")
    ports = url.get("allowed_ports", [])
    if not isinstance(ports, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and 0 < p < 65536 for p in ports
    ):
        raise ConfigError(path, "webhooks.url.allowed_ports", "must be a list of port numbers")
    length = url.get("max_url_length", 4096)
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        raise ConfigError(path, "webhooks.url.max_url_length", "must be a positive integer")
    return WebhookConfig(
        allowed_domains=tuple(d.strip().lower() for d in domains),
        allowed_ports=tuple(ports),
        max_url_length=length,
        headers=dict(headers),
        enabled=not disabled,
        allowed_fields=parse_allowed_fields(path, value.get("allowed_fields")),
        **{flag: url[flag] for flag in flags if flag in url},
    )


def _positive_minutes(path: Path, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(path, key, "must be a positive number of minutes")
    return float(value)


def _parse_thread_ttl(path: Path, checkpointer: Any) -> ThreadTTLConfig:
    """`checkpointer.ttl`; the other `checkpointer` keys are checkpointer_config.py's."""
    if checkpointer is None:
        return ThreadTTLConfig()
    if not isinstance(checkpointer, dict):
        raise ConfigError(path, "checkpointer", "must be an object")
    known_keys = ("ttl", *CHECKPOINTER_KEYS)
    for key in checkpointer:
        if key not in known_keys:
            raise ConfigError(
                path, f"checkpointer.{key}", f"unknown key; expected one of {list(known_keys)}"
            )
    ttl = checkpointer.get("ttl")
    if ttl is None:
        return ThreadTTLConfig()
    if not isinstance(ttl, dict):
        raise ConfigError(path, "checkpointer.ttl", "must be an object")
    known = {"strategy", "default_ttl", "sweep_interval_minutes", "sweep_limit"}
    if set(ttl) - known:
        raise ConfigError(
            path,
            "checkpointer.ttl",
            f"unknown keys {sorted(set(ttl) - known)}; expected {sorted(known)}",
        )
    strategy = ttl.get("strategy", "delete")
    if strategy not in ("delete", "keep_latest"):
        raise ConfigError(path, "checkpointer.ttl.strategy", 'must be "delete" or "keep_latest"')
    default_ttl = ttl.get("default_ttl")
    sweep_limit = ttl.get("sweep_limit")
    if sweep_limit is None:
        sweep_limit = DEFAULT_SWEEP_LIMIT
    if isinstance(sweep_limit, bool) or not isinstance(sweep_limit, int) or sweep_limit < 1:
        raise ConfigError(path, "checkpointer.ttl.sweep_limit", "must be a positive integer")
    return ThreadTTLConfig(
        strategy=strategy,
        sweep_limit=sweep_limit,
        default_ttl=None
        if default_ttl is None
        else _positive_minutes(path, "checkpointer.ttl.default_ttl", default_ttl),
        sweep_interval_minutes=_positive_minutes(
            path,
            "checkpointer.ttl.sweep_interval_minutes",
            5.0 if ttl.get("sweep_interval_minutes") is None else ttl["sweep_interval_minutes"],
        ),
    )


def _parse_limits(path: Path, value: Any) -> LimitsConfig:
    """`limits`: each key a positive number; the two that may be unbounded also take null
    (and `event_retention_days` 0, meaning keep events forever)."""
    if value is None:
        return LimitsConfig()
    if not isinstance(value, dict):
        raise ConfigError(path, "limits", "must be an object")
    known = list(LimitsConfig.__dataclass_fields__)
    for key in value:
        if key not in known:
            raise ConfigError(path, f"limits.{key}", f"unknown key; expected one of {known}")
    integers = {"max_body_bytes", "max_batch_size", "max_list_items", "max_queued_events"}
    nullable = {"run_timeout_seconds", "event_retention_days"}
    parsed: dict[str, Any] = {}
    for key, number in value.items():
        if number is None and key in nullable:
            parsed[key] = None
            continue
        if key == "event_retention_days" and number == 0 and not isinstance(number, bool):
            parsed[key] = None
            continue
        if (
            isinstance(number, bool)
            or not isinstance(number, int | float)
            or not 0 < number < float("inf")
        ):
            raise ConfigError(
                path,
                f"limits.{key}",
                f"must be a positive {'integer' if key in integers else 'number'}"
                + (" or null" if key in nullable else ""),
            )
        if key in integers:
            if number != int(number):
                raise ConfigError(path, f"limits.{key}", "must be a positive integer")
            number = int(number)
        parsed[key] = number
    return LimitsConfig(**parsed)
