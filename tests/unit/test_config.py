"""Finding and validating the config file: every mistake names the file, the key and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from open_langgraph.checkpointer_config import SerdeConfig
from open_langgraph.config import (
    AppConfig,
    ConfigError,
    CorsConfig,
    GraphSpec,
    ThreadTTLConfig,
    find_config_file,
    load_config,
)
from open_langgraph.header_patterns import HeaderPatterns
from open_langgraph.http_config import HttpConfig

GRAPHS = {"agent": "./agent.py:graph"}


def write(directory: Path, content: Any, name: str = "open_langgraph.json") -> Path:
    """Write `content` as JSON (or verbatim when it is str/bytes) and return the file's path."""
    path = directory / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def assert_names(error: ConfigError, path: Path, key: str, problem: str) -> None:
    message = str(error)
    assert str(path) in message
    assert f"`{key}`" in message
    assert problem in message
    assert (error.path, error.key) == (str(path), key)


@pytest.fixture(autouse=True)
def _no_config_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLG_CONFIG", raising=False)


# -- find_config_file ---------------------------------------------------------------------


def test_find_prefers_open_langgraph_json_over_langgraph_json(tmp_path: Path) -> None:
    ours = write(tmp_path, {"graphs": GRAPHS})
    write(tmp_path, {"graphs": GRAPHS}, "langgraph.json")
    assert find_config_file(cwd=tmp_path) == ours.resolve()


def test_find_uses_langgraph_json_when_alone(tmp_path: Path) -> None:
    theirs = write(tmp_path, {"graphs": GRAPHS}, "langgraph.json")
    assert find_config_file(cwd=tmp_path) == theirs.resolve()


def test_find_defaults_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = write(tmp_path, {"graphs": GRAPHS}, "langgraph.json")
    monkeypatch.chdir(tmp_path)
    assert find_config_file() == theirs.resolve()


def test_find_with_no_config_names_the_directory(tmp_path: Path) -> None:
    (tmp_path / "open_langgraph.json").mkdir()  # a directory is not a config file
    with pytest.raises(ConfigError) as info:
        find_config_file(cwd=tmp_path)
    assert str(tmp_path) in str(info.value)
    assert "open_langgraph.json" in str(info.value)
    assert "langgraph.json" in info.value.problem


def test_find_explicit_path_wins_over_env_and_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"graphs": GRAPHS})
    from_env = write(tmp_path, {"graphs": GRAPHS}, "env.json")
    explicit = write(tmp_path, {"graphs": GRAPHS}, "explicit.json")
    monkeypatch.setenv("OLG_CONFIG", str(from_env))
    assert find_config_file(explicit, cwd=tmp_path) == explicit.resolve()
    assert find_config_file(str(explicit), cwd=tmp_path) == explicit.resolve()


def test_find_relative_explicit_path_is_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conf").mkdir()
    explicit = write(tmp_path / "conf", {"graphs": GRAPHS}, "my.json")
    monkeypatch.chdir(tmp_path)
    found = find_config_file("conf/my.json")
    assert found.is_absolute()
    assert found == explicit.resolve()


def test_find_expands_home_in_explicit_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    explicit = write(tmp_path, {"graphs": GRAPHS}, "home.json")
    assert find_config_file("~/home.json") == explicit.resolve()


def test_find_env_var_wins_over_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"graphs": GRAPHS})
    from_env = write(tmp_path, {"graphs": GRAPHS}, "env.json")
    monkeypatch.setenv("OLG_CONFIG", str(from_env))
    assert find_config_file(cwd=tmp_path) == from_env.resolve()


@pytest.mark.parametrize("how", ["explicit", "env"])
def test_find_missing_named_file_is_an_error_not_a_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    write(tmp_path, {"graphs": GRAPHS})  # present, but not what was asked for
    missing = tmp_path / "missing.json"
    if how == "env":
        monkeypatch.setenv("OLG_CONFIG", str(missing))
    with pytest.raises(ConfigError) as info:
        find_config_file(missing if how == "explicit" else None, cwd=tmp_path)
    assert_names(info.value, missing, "(file)", "no such file")


def test_find_explicit_directory_is_not_a_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        find_config_file(tmp_path)


# -- load_config: valid files -------------------------------------------------------------


def test_minimal_config(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": GRAPHS})
    config = load_config(path)
    assert config == AppConfig(
        path=path, graphs={"agent": GraphSpec("agent", "./agent.py", "graph", None)}
    )
    assert config.base_dir == tmp_path
    assert config.dependencies == []
    assert config.env == {}
    assert config.auth_path is None
    assert config.cors is None
    assert config.default_config == {}


def test_javascript_graphs_beside_python_ones_are_left_out_with_a_note(tmp_path: Path) -> None:
    """LangGraph's templates mix Python and LangGraph.js graphs; the Python ones are served."""
    graphs = {"py": "./agent.py:graph", "js": "./src/agent.ts:graph", "mjs": "./a.mjs:graph"}
    config = load_config(write(tmp_path, {"graphs": graphs}))
    assert list(config.graphs) == ["py"]
    assert [note for note in config.ignored if "JavaScript" in note] == [
        "graph 'js' (./src/agent.ts) is JavaScript and is not served: olg serves Python graphs",
        "graph 'mjs' (./a.mjs) is JavaScript and is not served: olg serves Python graphs",
    ]


def test_only_javascript_graphs_is_an_error_naming_their_server(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": {"agent": "./src/agent.ts:graph"}})
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert_names(caught.value, path, "graphs", "every graph is JavaScript (./src/agent.ts)")
    assert "@langchain/langgraph-cli" in str(caught.value)


def test_graph_forms(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "graphs": {
                "file": "./src/agent.py:graph",
                "module": "my_pkg.agents:make_graph",
                "described": {"path": "./b.py:builder", "description": "Does b."},
                "object_form": {"path": "other.mod:g"},
                "bare_file": "agent.py:graph",
            }
        },
    )
    graphs = load_config(path).graphs
    assert list(graphs) == ["file", "module", "described", "object_form", "bare_file"]
    assert graphs["file"] == GraphSpec("file", "./src/agent.py", "graph")
    assert graphs["module"] == GraphSpec("module", "my_pkg.agents", "make_graph")
    assert graphs["described"] == GraphSpec("described", "./b.py", "builder", "Does b.")
    assert graphs["object_form"] == GraphSpec("object_form", "other.mod", "g", None)
    assert graphs["bare_file"] == GraphSpec("bare_file", "agent.py", "graph")


def test_dependencies_are_local_directories_relative_to_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "libs" / "tools").mkdir(parents=True)
    path = write(
        project, {"graphs": GRAPHS, "dependencies": [".", "./libs/tools", "langchain-openai"]}
    )
    monkeypatch.chdir(tmp_path)  # relative to the config file, not to the working directory
    assert load_config(path).dependencies == [project.resolve(), (project / "libs/tools").resolve()]


def test_env_object(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": GRAPHS, "env": {"API_URL": "http://x", "RETRIES": 3}})
    assert load_config(path).env == {"API_URL": "http://x", "RETRIES": "3"}


def test_env_file_relative_to_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(
        '# comment\nAPI_KEY=secret\nQUOTED="a b"\nEMPTY=\nexport EXPORTED=yes\n', encoding="utf-8"
    )
    path = write(project, {"graphs": GRAPHS, "env": ".env"})
    monkeypatch.chdir(tmp_path)
    assert load_config(path).env == {
        "API_KEY": "secret",
        "QUOTED": "a b",
        "EMPTY": "",
        "EXPORTED": "yes",
    }


def test_auth_path(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": GRAPHS, "auth": {"path": "./auth.py:auth"}})
    assert load_config(path).auth_path == "./auth.py:auth"


def test_auth_keys_of_the_platform_are_accepted(tmp_path: Path) -> None:
    # Accepted (and ignored) so an existing langgraph.json is served unchanged.
    auth = {
        "path": "./auth.py:auth",
        "disable_studio_auth": True,
        "openapi": {"securitySchemes": {}},
        "cache": {"ttl_seconds": 60},
    }
    assert load_config(write(tmp_path, {"graphs": GRAPHS, "auth": auth})).auth_path == auth["path"]


def test_cors(tmp_path: Path) -> None:
    cors = {
        "allow_origins": ["https://app.example"],
        "allow_methods": ["GET", "POST"],
        "allow_headers": ["x-api-key"],
        "allow_credentials": True,
        "expose_headers": ["x-run-id"],
        "max_age": 60,
    }
    path = write(tmp_path, {"graphs": GRAPHS, "http": {"cors": cors}})
    assert load_config(path).cors == CorsConfig(**cors)


def test_cors_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": GRAPHS, "http": {"cors": {"allow_origins": ["*"]}}})
    cors = load_config(path).cors
    assert cors == CorsConfig(
        allow_origins=["*"],
        allow_methods=["*"],
        allow_headers=["*"],
        allow_credentials=False,
        expose_headers=[],
        max_age=600,
    )


def test_http_without_cors(tmp_path: Path) -> None:
    path = write(tmp_path, {"graphs": GRAPHS, "http": {}})
    assert load_config(path).cors is None


def test_default_config(tmp_path: Path) -> None:
    default_config = {
        "recursion_limit": 1,
        "configurable": {"model": "small"},
        "metadata": {"team": "a"},
        "tags": ["prod"],
    }
    path = write(tmp_path, {"graphs": GRAPHS, "default_config": default_config})
    assert load_config(path).default_config == default_config


def test_an_existing_langgraph_json_loads_unchanged(tmp_path: Path) -> None:
    # Keys only LangGraph's docker build uses are accepted, so the same file serves here.
    (tmp_path / ".env").write_text("A=1\n", encoding="utf-8")
    path = write(
        tmp_path,
        {
            "$schema": "https://langgra.ph/schema.json",
            "python_version": "3.12",
            "node_version": "20",
            "api_version": "0.4",
            "base_image": "langchain/langgraph-api:3.12",
            "image_distro": "wolfi",
            "pip_config_file": "pip.conf",
            "pip_installer": "uv",
            "keep_pkg_tools": True,
            "dockerfile_lines": ["RUN echo hi"],
            "dependencies": ["."],
            "graphs": {"agent": {"path": "./agent.py:graph", "description": "An agent."}},
            "env": ".env",
            "checkpointer": {"ttl": {"strategy": "delete"}},
            "auth": {"path": "./auth.py:auth"},
            "http": {"cors": {"allow_origins": ["*"]}},
        },
        "langgraph.json",
    )
    config = load_config(path)
    assert config.graphs["agent"].description == "An agent."
    assert config.env == {"A": "1"}
    assert config.thread_ttl == ThreadTTLConfig(strategy="delete")


def test_checkpointer_ttl(tmp_path: Path) -> None:
    ttl = {"strategy": "keep_latest", "default_ttl": 1440, "sweep_interval_minutes": 0.5}
    path = write(tmp_path, {"graphs": GRAPHS, "checkpointer": {"ttl": ttl}})
    assert load_config(path).thread_ttl == ThreadTTLConfig("keep_latest", 1440.0, 0.5)
    assert load_config(write(tmp_path, {"graphs": GRAPHS})).thread_ttl == ThreadTTLConfig()


# -- load_config: invalid files -----------------------------------------------------------

# (file content, key named in the error, problem text in the error)
BAD_CONFIGS: list[tuple[str, Any, str, str]] = [
    ("truncated JSON", '{"graphs": {', "(file)", "invalid JSON at line 1"),
    ("empty file", "", "(file)", "invalid JSON"),
    (
        "trailing comma",
        '{\n  "graphs": {"agent": "./agent.py:graph"},\n}\n',
        "(file)",
        "invalid JSON at line 3",
    ),
    ("not UTF-8", '{"graphs": {"caf\xe9": "./a.py:g"}}'.encode("latin-1"), "(file)", "UTF-8"),
    ("root is a list", [{"graphs": GRAPHS}], "(root)", "must be a JSON object"),
    ("root is a string", '"graphs"', "(root)", "must be a JSON object"),
    # graphs
    ("graphs missing", {}, "graphs", "is required"),
    ("graphs null", {"graphs": None}, "graphs", "is required"),
    ("graphs list", {"graphs": ["./agent.py:graph"]}, "graphs", "must be an object"),
    ("graphs string", {"graphs": "./agent.py:graph"}, "graphs", "must be an object"),
    ("graphs empty", {"graphs": {}}, "graphs", "must name at least one graph"),
    ("graph number", {"graphs": {"agent": 5}}, "graphs.agent", "'path/to/file.py:attribute'"),
    ("graph null", {"graphs": {"agent": None}}, "graphs.agent", "'path/to/file.py:attribute'"),
    ("no attribute", {"graphs": {"agent": "./agent.py"}}, "graphs.agent", "file.py:attribute"),
    ("two colons", {"graphs": {"agent": "a:b:c"}}, "graphs.agent", "file.py:attribute"),
    ("empty path", {"graphs": {"agent": ":graph"}}, "graphs.agent", "needs a path"),
    ("empty attribute", {"graphs": {"agent": "./agent.py:"}}, "graphs.agent", "attribute name"),
    ("bad attribute", {"graphs": {"agent": "./a.py:my-graph"}}, "graphs.agent", "attribute name"),
    ("dotted attribute", {"graphs": {"agent": "./a.py:x.graph"}}, "graphs.agent", "attribute"),
    (
        "object without path",
        {"graphs": {"agent": {"description": "no path"}}},
        "graphs.agent",
        "file.py:attribute",
    ),
    (
        "object with unknown key",
        {"graphs": {"agent": {"path": "./a.py:g", "desc": "typo"}}},
        "graphs.agent",
        "unknown keys ['desc']",
    ),
    (
        "description not a string",
        {"graphs": {"agent": {"path": "./a.py:g", "description": 3}}},
        "graphs.agent.description",
        "must be a string",
    ),
    (
        "second graph bad",
        {"graphs": {"ok": "./a.py:g", "broken": "./b.py"}},
        "graphs.broken",
        "file.py:attribute",
    ),
    # top level
    # dependencies
    ("dependencies string", {"graphs": GRAPHS, "dependencies": "."}, "dependencies", "list"),
    ("dependency number", {"graphs": GRAPHS, "dependencies": [".", 1]}, "dependencies", "list"),
    # env
    ("env number", {"graphs": GRAPHS, "env": 1}, "env", "object or the path of a .env file"),
    ("env list", {"graphs": GRAPHS, "env": ["A=1"]}, "env", "object or the path"),
    ("env directory", {"graphs": GRAPHS, "env": "."}, "env", "'.' is not a file"),
    ("env value null", {"graphs": GRAPHS, "env": {"A": "1", "B": None}}, "env.B", "strings"),
    ("env value object", {"graphs": GRAPHS, "env": {"A": {"x": 1}}}, "env.A", "strings"),
    ("env value list", {"graphs": GRAPHS, "env": {"A": ["x"]}}, "env.A", "strings"),
    # auth
    ("auth string", {"graphs": GRAPHS, "auth": "./auth.py:auth"}, "auth", "must be an object"),
    ("auth path number", {"graphs": GRAPHS, "auth": {"path": 1}}, "auth.path", "string"),
    ("auth unknown key", {"graphs": GRAPHS, "auth": {"pth": "a.py:x"}}, "auth.pth", "unknown"),
    (
        "auth studio flag",
        {"graphs": GRAPHS, "auth": {"path": "a.py:x", "disable_studio_auth": "yes"}},
        "auth.disable_studio_auth",
        "true or false",
    ),
    ("auth cache list", {"graphs": GRAPHS, "auth": {"cache": []}}, "auth.cache", "an object"),
    # http.cors
    ("http list", {"graphs": GRAPHS, "http": []}, "http", "must be an object"),
    ("cors list", {"graphs": GRAPHS, "http": {"cors": ["*"]}}, "http.cors", "must be an object"),
    (
        "cors unknown key",
        {"graphs": GRAPHS, "http": {"cors": {"allow_origin": ["*"]}}},
        "http.cors",
        "unknown keys ['allow_origin']",
    ),
    (
        "cors origins string",
        {"graphs": GRAPHS, "http": {"cors": {"allow_origins": "*"}}},
        "http.cors.allow_origins",
        "must be a list of strings",
    ),
    (
        "cors origins numbers",
        {"graphs": GRAPHS, "http": {"cors": {"allow_origins": ["*", 1]}}},
        "http.cors.allow_origins",
        "must be a list of strings",
    ),
    (
        "cors methods string",
        {"graphs": GRAPHS, "http": {"cors": {"allow_methods": "GET"}}},
        "http.cors.allow_methods",
        "must be a list of strings",
    ),
    (
        "cors headers null item",
        {"graphs": GRAPHS, "http": {"cors": {"allow_headers": [None]}}},
        "http.cors.allow_headers",
        "must be a list of strings",
    ),
    (
        "cors expose object",
        {"graphs": GRAPHS, "http": {"cors": {"expose_headers": {"x": 1}}}},
        "http.cors.expose_headers",
        "must be a list of strings",
    ),
    (
        "cors credentials string",
        {"graphs": GRAPHS, "http": {"cors": {"allow_credentials": "false"}}},
        "http.cors.allow_credentials",
        "true or false",
    ),
    (
        "cors credentials number",
        {"graphs": GRAPHS, "http": {"cors": {"allow_credentials": 1}}},
        "http.cors.allow_credentials",
        "true or false",
    ),
    (
        "cors max_age string",
        {"graphs": GRAPHS, "http": {"cors": {"max_age": "600"}}},
        "http.cors.max_age",
        "non-negative integer",
    ),
    (
        "cors max_age negative",
        {"graphs": GRAPHS, "http": {"cors": {"max_age": -1}}},
        "http.cors.max_age",
        "non-negative integer",
    ),
    (
        "cors max_age float",
        {"graphs": GRAPHS, "http": {"cors": {"max_age": 1.5}}},
        "http.cors.max_age",
        "non-negative integer",
    ),
    # default_config
    ("default_config list", {"graphs": GRAPHS, "default_config": []}, "default_config", "object"),
    (
        "default_config null",
        {"graphs": GRAPHS, "default_config": None},
        "default_config",
        "must be an object",
    ),
    *[
        (
            f"recursion_limit {limit!r}",
            {"graphs": GRAPHS, "default_config": {"recursion_limit": limit}},
            "default_config.recursion_limit",
            "must be a positive integer",
        )
        for limit in (0, -5, "25", 2.5, True, False, [25])
    ],
    (
        "configurable string",
        {"graphs": GRAPHS, "default_config": {"configurable": "model=x"}},
        "default_config.configurable",
        "must be an object",
    ),
    (
        "metadata list",
        {"graphs": GRAPHS, "default_config": {"metadata": ["a"]}},
        "default_config.metadata",
        "must be an object",
    ),
    (
        "tags string",
        {"graphs": GRAPHS, "default_config": {"tags": "prod"}},
        "default_config.tags",
        "must be a list of strings",
    ),
    # checkpointer.ttl
    (
        "ttl strategy",
        {"graphs": GRAPHS, "checkpointer": {"ttl": {"strategy": "archive"}}},
        "checkpointer.ttl.strategy",
        "keep_latest",
    ),
    (
        "ttl zero default",
        {"graphs": GRAPHS, "checkpointer": {"ttl": {"default_ttl": 0}}},
        "checkpointer.ttl.default_ttl",
        "positive number of minutes",
    ),
    (
        "ttl sweep as text",
        {"graphs": GRAPHS, "checkpointer": {"ttl": {"sweep_interval_minutes": "5"}}},
        "checkpointer.ttl.sweep_interval_minutes",
        "positive number of minutes",
    ),
    # store
    ("store list", {"graphs": GRAPHS, "store": []}, "store", "must be an object"),
    ("store unknown key", {"graphs": GRAPHS, "store": {"indx": {}}}, "store", "['indx']"),
    (
        "store ttl zero",
        {"graphs": GRAPHS, "store": {"ttl": {"default_ttl": 0}}},
        "store.ttl.default_ttl",
        "positive number of minutes",
    ),
    (
        "store ttl refresh text",
        {"graphs": GRAPHS, "store": {"ttl": {"refresh_on_read": "yes"}}},
        "store.ttl.refresh_on_read",
        "true or false",
    ),
    (
        "store ttl unknown key",
        {"graphs": GRAPHS, "store": {"ttl": {"sweep_limit": 5}}},
        "store.ttl",
        "['sweep_limit']",
    ),
    (
        "store index embed missing",
        {"graphs": GRAPHS, "store": {"index": {"dims": 3}}},
        "store.index.embed",
        "provider:model",
    ),
    (
        "store index dims text",
        {"graphs": GRAPHS, "store": {"index": {"dims": "3", "embed": "openai:x"}}},
        "store.index.dims",
        "positive integer",
    ),
    (
        "store index fields empty",
        {"graphs": GRAPHS, "store": {"index": {"dims": 3, "embed": "openai:x", "fields": []}}},
        "store.index.fields",
        "non-empty list",
    ),
    # http: the app, prefix, order and header keys
    ("http app number", {"graphs": GRAPHS, "http": {"app": 3}}, "http.app", "file.py:app"),
    ("http app no attr", {"graphs": GRAPHS, "http": {"app": "./web.py"}}, "http.app", "attribute"),
    (
        "http unknown key",
        {"graphs": GRAPHS, "http": {"disable_stores": True}},
        "http.disable_stores",
        "not supported",
    ),
    (
        "disable flag text",
        {"graphs": GRAPHS, "http": {"disable_store": "yes"}},
        "http.disable_store",
        "true or false",
    ),
    (
        "middleware order",
        {"graphs": GRAPHS, "http": {"middleware_order": "first"}},
        "http.middleware_order",
        "auth_first",
    ),
    (
        "custom route auth text",
        {"graphs": GRAPHS, "http": {"enable_custom_route_auth": 1}},
        "http.enable_custom_route_auth",
        "true or false",
    ),
    (
        "mount prefix relative",
        {"graphs": GRAPHS, "http": {"mount_prefix": "api"}},
        "http.mount_prefix",
        "starting with '/'",
    ),
    (
        "mount prefix query",
        {"graphs": GRAPHS, "http": {"mount_prefix": "/api?x=1"}},
        "http.mount_prefix",
        "path segments",
    ),
    (
        "mount prefix empty segment",
        {"graphs": GRAPHS, "http": {"mount_prefix": "/a//b"}},
        "http.mount_prefix",
        "path segments",
    ),
    (
        "configurable headers list",
        {"graphs": GRAPHS, "http": {"configurable_headers": ["x-*"]}},
        "http.configurable_headers",
        "must be an object",
    ),
    (
        "configurable headers includes string",
        {"graphs": GRAPHS, "http": {"configurable_headers": {"includes": "x-*"}}},
        "http.configurable_headers.includes",
        "list of header names",
    ),
    (
        "logging headers unknown key",
        {"graphs": GRAPHS, "http": {"logging_headers": {"only": ["a"]}}},
        "http.logging_headers",
        "['only']",
    ),
    # webhooks
    (
        "webhook env prefix number",
        {"graphs": GRAPHS, "webhooks": {"env_prefix": 1}},
        "webhooks.env_prefix",
        "must be a string",
    ),
    (
        "webhook header template not env",
        {"graphs": GRAPHS, "webhooks": {"headers": {"A": "${{ secrets.X }}"}}},
        "webhooks.headers.A",
        "env.LG_WEBHOOK_NAME",
    ),
    (
        "webhook header variable without prefix",
        {"graphs": GRAPHS, "webhooks": {"headers": {"A": "${{ env.OPENAI_API_KEY }}"}}},
        "webhooks.headers.A",
        "must start with webhooks.env_prefix 'LG_WEBHOOK_'",
    ),
    (
        "webhook allowed fields unknown",
        {"graphs": GRAPHS, "webhooks": {"allowed_fields": ["run_id", "secret"]}},
        "webhooks.allowed_fields",
        "unknown fields ['secret']",
    ),
    # Platform keys accepted without effect still have a shape
    ("priority string", {"graphs": GRAPHS, "priority": "./p.py:p"}, "priority", "object"),
    ("source list", {"graphs": GRAPHS, "source": ["uv"]}, "source", "object"),
    ("store path number", {"graphs": GRAPHS, "store": {"path": 1}}, "store.path", "string"),
    (
        "checkpointer unknown key",
        {"graphs": GRAPHS, "checkpointer": {"sered": {}}},
        "checkpointer.sered",
        "unknown key",
    ),
    (
        "serde pickle text",
        {"graphs": GRAPHS, "checkpointer": {"serde": {"pickle_fallback": "yes"}}},
        "checkpointer.serde.pickle_fallback",
        "true or false",
    ),
    (
        "serde modules flat",
        {"graphs": GRAPHS, "checkpointer": {"serde": {"allowed_json_modules": ["a", "B"]}}},
        "checkpointer.serde.allowed_json_modules",
        "[module, ..., name]",
    ),
    (
        "serde unknown key",
        {"graphs": GRAPHS, "checkpointer": {"serde": {"pickle": True}}},
        "checkpointer.serde",
        "['pickle']",
    ),
    (
        "checkpointer backend",
        {"graphs": GRAPHS, "checkpointer": {"backend": "redis"}},
        "checkpointer.backend",
        "mongo",
    ),
    (
        "ttl sweep_limit zero",
        {"graphs": GRAPHS, "checkpointer": {"ttl": {"sweep_limit": 0}}},
        "checkpointer.ttl.sweep_limit",
        "positive integer",
    ),
    (
        "ttl unknown key",
        {"graphs": GRAPHS, "checkpointer": {"ttl": {"defualt_ttl": 5}}},
        "checkpointer.ttl",
        "unknown keys ['defualt_ttl']",
    ),
]


@pytest.mark.parametrize(
    ("content", "key", "problem"),
    [case[1:] for case in BAD_CONFIGS],
    ids=[case[0] for case in BAD_CONFIGS],
)
def test_bad_config_names_file_key_and_problem(
    tmp_path: Path, content: Any, key: str, problem: str
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert_names(info.value, path, key, problem)
    assert "\n" not in str(info.value)


def test_an_unknown_top_level_key_is_a_warning_naming_the_key_it_resembles(
    tmp_path: Path,
) -> None:
    """langgraph-cli only warns, and published projects carry such keys (chat-langchain's
    `config`): the project is served, and a misspelt key is pointed out."""
    path = write(tmp_path, {"graphs": GRAPHS, "grahps": {}, "config": {"recursion_limit": 9}})
    config = load_config(path)
    assert set(config.graphs) == set(GRAPHS)
    assert "`grahps` is not a langgraph.json key and is ignored (did you mean `graphs`?)" in (
        config.ignored
    )
    assert "`config` is not a langgraph.json key and is ignored" in config.ignored


def test_unreadable_config_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "open_langgraph.json"
    path.mkdir()
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert_names(info.value, path, "(file)", "cannot be read")


def test_invalid_json_error_chains_the_parser_error(tmp_path: Path) -> None:
    path = write(tmp_path, "{not json}")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert isinstance(info.value.__cause__, json.JSONDecodeError)


# -- keys added for the Platform's schema ---------------------------------------------------


def test_http_keys(tmp_path: Path) -> None:
    http = {
        "app": "./webapp.py:app",
        "middleware_order": "auth_first",
        "enable_custom_route_auth": True,
        "mount_prefix": "/my-deployment/api/",
        "disable_store": True,
        "disable_meta": False,
        "disable_event_streaming": True,
        "configurable_headers": {"include": ["x-user-*"], "exclude": ["*token*"]},
        "logging_headers": {"includes": ["user-agent"]},
    }
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "http": http}))
    assert config.http == HttpConfig(
        app="./webapp.py:app",
        middleware_order="auth_first",
        enable_custom_route_auth=True,
        mount_prefix="/my-deployment/api",
        disabled=frozenset({"store", "event_streaming"}),
        configurable_headers=HeaderPatterns(includes=("x-user-*",), excludes=("*token*",)),
        logging_headers=HeaderPatterns(includes=("user-agent",)),
    )
    assert config.ignored == ()
    bare = load_config(write(tmp_path, {"graphs": GRAPHS, "http": {"mount_prefix": "/"}}))
    assert bare.http.mount_prefix is None


def test_webhook_header_templates_read_the_environment_and_the_config_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "from-process")
    webhooks = {
        "env_prefix": "HOOK_",
        "headers": {"Authorization": "Bearer ${{ env.HOOK_TOKEN }}", "X-Id": "${{env.HOOK_ID}}"},
        "allowed_fields": ["run_id", "status"],
    }
    env = {"HOOK_ID": "from-config", "HOOK_TOKEN": "loses"}
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "webhooks": webhooks, "env": env}))
    assert config.webhooks.headers == {
        "Authorization": "Bearer from-process",
        "X-Id": "from-config",
    }
    assert config.webhooks.allowed_fields == frozenset({"run_id", "status"})


def test_a_missing_env_file_is_a_warning_not_an_error(tmp_path: Path) -> None:
    """LangChain's templates name `.env` but ship `.env.example`: a fresh clone is served
    (as `langgraph dev` serves it), with one warning naming the file."""
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "env": ".env"}))
    assert config.env == {}
    [note] = config.ignored
    assert note.startswith("`env`: env file '.env' does not exist")
    assert "copy" not in note
    # With the template's example beside it, the warning says what to do.
    (tmp_path / ".env.example").write_text("A=\n", encoding="utf-8")
    [note] = load_config(write(tmp_path, {"graphs": GRAPHS, "env": ".env"})).ignored
    assert note.endswith("(copy .env.example to .env to set them)")
    (tmp_path / ".env").write_text("A=1\n", encoding="utf-8")
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "env": ".env"}))
    assert (config.env, config.ignored) == ({"A": "1"}, ())


def test_platform_keys_without_effect_are_accepted_with_a_reason(tmp_path: Path) -> None:
    content = {
        "graphs": GRAPHS,
        "priority": {"path": "./priority.py:priority"},
        "source": {"kind": "uv", "root": "."},
        "checkpointer": {"path": "./saver.py:make", "ttl": {"sweep_limit": 50}},
        "store": {"path": "./store.py:make"},
    }
    config = load_config(write(tmp_path, content))
    assert [note.split("`")[1] for note in config.ignored] == [
        "priority",
        "source",
        "checkpointer.path",
        "store.path",
    ]
    assert all("ignored" in note for note in config.ignored)
    assert config.thread_ttl.sweep_limit == 50


def test_checkpointer_serde(tmp_path: Path) -> None:
    serde = {
        "allowed_json_modules": True,
        "allowed_msgpack_modules": None,
        "pickle_fallback": True,
    }
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "checkpointer": {"serde": serde}}))
    assert config.checkpointer.serde == SerdeConfig(
        allowed_json_modules=True, allowed_msgpack_modules=None, pickle_fallback=True
    )
    listed = {"allowed_msgpack_modules": [["my_agent.models", "Plan"]]}
    config = load_config(write(tmp_path, {"graphs": GRAPHS, "checkpointer": {"serde": listed}}))
    assert config.checkpointer.serde == SerdeConfig(
        allowed_msgpack_modules=(("my_agent.models", "Plan"),)
    )
    assert load_config(write(tmp_path, {"graphs": GRAPHS})).checkpointer.serde is None
