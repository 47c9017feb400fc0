"""`olg serve` with a config it cannot use exits with code 2 and one line naming file and key.

Each case runs the real command in a subprocess. Starting Python with LangGraph imported takes
seconds, so the cases run concurrently in a module fixture and each test checks one result.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from open_langgraph import exit_codes

TIMEOUT_SECONDS = 60
GOOD_GRAPH = """\
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    x: int


builder = StateGraph(State)
builder.add_node("step", lambda state: state)
builder.add_edge(START, "step")
graph = builder.compile()
"""


@dataclass
class Case:
    """What to run, and what its one line of stderr must name."""

    config: Path  # the file the message must name
    key: str
    problem: str
    use: str = "flag"  # how the file is chosen: "flag" (--config), "env" (OLG_CONFIG) or "cwd"
    caused: bool = False  # an exception caused it: its traceback comes before the line


@dataclass
class Outcome:
    returncode: int | None
    stdout: str
    stderr: str


def _write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _config(directory: Path, text: str, name: str = "open_langgraph.json") -> Path:
    return _write(directory, name, text)


def _invalid_json(d: Path) -> Case:
    return Case(_config(d, '{"graphs": {"agent": "./agent.py:graph"},,}'), "(file)", "invalid JSON")


def _unknown_key(d: Path) -> Case:
    text = '{"graphs": {"agent": "./agent.py:graph"}, "auth": {"pth": "a.py:auth"}}'
    return Case(_config(d, text), "auth.pth", "unknown key")


def _bad_cors(d: Path) -> Case:
    text = '{"graphs": {"agent": "./agent.py:graph"}, "http": {"cors": {"allow_origins": "*"}}}'
    return Case(_config(d, text), "http.cors.allow_origins", "list of strings")


def _env_not_a_file(d: Path) -> Case:
    text = '{"graphs": {"agent": "./agent.py:graph"}, "env": "."}'
    return Case(_config(d, text), "env", "'.' is not a file")


def _config_flag_missing_file(d: Path) -> Case:
    d.mkdir(parents=True)
    return Case(d / "nope.json", "(file)", "no such file")


def _env_var_config(d: Path) -> Case:
    return Case(_config(d, "[]", "chosen-by-env.json"), "(root)", "JSON object", use="env")


def _cwd_langgraph_json(d: Path) -> Case:
    return Case(_config(d, '{"graphs": {}}', "langgraph.json"), "graphs", "at least one", "cwd")


def _cwd_without_config(d: Path) -> Case:
    d.mkdir(parents=True)
    return Case(d / "open_langgraph.json", "(file)", "langgraph.json", use="cwd")


def _graph_file_missing(d: Path) -> Case:
    text = '{"graphs": {"agent": "./src/missing.py:graph"}}'
    return Case(_config(d, text), "graphs.agent", "'./src/missing.py' does not exist")


def _graph_attribute_missing(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    text = '{"graphs": {"ok": "./agent.py:graph", "agent": "./agent.py:grph"}}'
    return Case(_config(d, text), "graphs.agent", "has no attribute 'grph'")


def _graph_import_raises(d: Path) -> Case:
    _write(d, "agent.py", 'raise RuntimeError("model API key not set")\n')
    text = '{"graphs": {"agent": "./agent.py:graph"}}'
    return Case(
        _config(d, text), "graphs.agent", "RuntimeError: model API key not set", caused=True
    )


TASK_GROUP_GRAPH = """\
import asyncio


async def _connect():
    raise ConnectionError("[Errno -2] Name or service not known")


async def _load():
    async with asyncio.TaskGroup() as group:
        group.create_task(_connect())


asyncio.run(_load())
"""


def _graph_import_fails_in_a_task_group(d: Path) -> Case:
    # The group's own message says only "1 sub-exception": the line names the one inside, where
    # it was raised, and the project's line.
    _write(d, "agent.py", TASK_GROUP_GRAPH)
    text = '{"graphs": {"agent": "./agent.py:graph"}}'
    problem = (
        "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception); cause: "
        "ConnectionError: [Errno -2] Name or service not known ("
    )
    return Case(_config(d, text), "graphs.agent", problem, caused=True)


def _graph_module_missing(d: Path) -> Case:
    text = '{"graphs": {"agent": "olg_no_such_package.agent:graph"}}'
    return Case(_config(d, text), "graphs.agent", "olg_no_such_package", caused=True)


def _graph_imports_a_file_beside_it(d: Path) -> Case:
    # Written to run from its own folder (`from prompts import ...`): the hint names the folder
    # to add to `dependencies`, not a package to install.
    _write(d / "src" / "research", "graph.py", "from prompts import PROMPT\n")
    _write(d / "src" / "research", "prompts.py", "PROMPT = 'x'\n")
    text = '{"graphs": {"agent": "./src/research/graph.py:graph"}}'
    hint = 'not on the import path: add "./src/research" to `dependencies`'
    return Case(_config(d, text), "graphs.agent", hint, caused=True)


def _graph_sees_config_env(d: Path) -> Case:
    # `env` is applied before graphs are imported: the module reads it at import time.
    _write(d, "agent.py", 'import os\nraise RuntimeError("got " + os.environ["OLG_T_SECRET"])\n')
    text = '{"graphs": {"agent": "./agent.py:graph"}, "env": {"OLG_T_SECRET": "s3cr3t"}}'
    return Case(_config(d, text), "graphs.agent", "got s3cr3t", caused=True)


def _auth_file_missing(d: Path) -> Case:
    # Serving openly a config that asks for authentication would expose every thread.
    _write(d, "agent.py", GOOD_GRAPH)
    text = '{"graphs": {"agent": "./agent.py:graph"}, "auth": {"path": "./auth.py:auth"}}'
    return Case(_config(d, text), "auth.path", "'./auth.py' does not exist")


def _auth_not_an_auth_object(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    _write(d, "auth.py", "def auth(headers):\n    return 'me'\n")
    text = '{"graphs": {"agent": "./agent.py:graph"}, "auth": {"path": "./auth.py:auth"}}'
    return Case(_config(d, text), "auth.path", "not a langgraph_sdk.Auth")


def _auth_without_authenticate(d: Path) -> Case:
    # Only authorization handlers: every request would be anonymous.
    _write(d, "agent.py", GOOD_GRAPH)
    _write(
        d,
        "auth.py",
        "from langgraph_sdk import Auth\nauth = Auth()\n\n\n@auth.on\n"
        "async def deny(ctx, value):\n    return False\n",
    )
    text = '{"graphs": {"agent": "./agent.py:graph"}, "auth": {"path": "./auth.py:auth"}}'
    return Case(_config(d, text), "auth.path", "no @auth.authenticate handler")


def _factory_signature_unusable(d: Path) -> Case:
    # Two parameters, neither a ServerRuntime: the server could not tell which is which.
    _write(d, "agent.py", "def make(config, other):\n    raise AssertionError\n")
    text = '{"graphs": {"agent": "./agent.py:make"}}'
    return Case(_config(d, text), "graphs.agent", "ServerRuntime")


def _graph_module_exits(d: Path) -> Case:
    _write(d, "agent.py", "import sys\nsys.exit(3)\n")
    return Case(
        _config(d, '{"graphs": {"agent": "./agent.py:graph"}}'),
        "graphs.agent",
        "SystemExit",
        caused=True,
    )


def _store_embed_missing(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    text = (
        '{"graphs": {"agent": "./agent.py:graph"}, '
        '"store": {"index": {"embed": "./embed.py:vectors", "dims": 3}}}'
    )
    return Case(_config(d, text), "store.index.embed", "'./embed.py' does not exist")


def _store_ttl_bad(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    text = '{"graphs": {"agent": "./agent.py:graph"}, "store": {"ttl": {"default_ttl": -1}}}'
    return Case(_config(d, text), "store.ttl.default_ttl", "positive number of minutes")


def _http_app_not_an_app(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    _write(d, "webapp.py", "def app(scope, receive, send):\n    pass\n")
    text = '{"graphs": {"agent": "./agent.py:graph"}, "http": {"app": "./webapp.py:app"}}'
    return Case(_config(d, text), "http.app", "is a function, not a Starlette or FastAPI app")


def _http_app_javascript(d: Path) -> Case:
    _write(d, "agent.py", GOOD_GRAPH)
    text = '{"graphs": {"agent": "./agent.py:graph"}, "http": {"app": "./app.ts:app"}}'
    return Case(_config(d, text), "http.app", "JavaScript")


def _webhook_header_env_missing(d: Path) -> Case:
    text = (
        '{"graphs": {"agent": "./agent.py:graph"}, "webhooks": {"headers": '
        '{"Authorization": "Bearer ${{ env.LG_WEBHOOK_OLG_T_UNSET }}"}}}'
    )
    return Case(
        _config(d, text), "webhooks.headers.Authorization", "'LG_WEBHOOK_OLG_T_UNSET' is not set"
    )


CASES: dict[str, Callable[[Path], Case]] = {
    "http-app-not-an-app": _http_app_not_an_app,
    "http-app-javascript": _http_app_javascript,
    "webhook-header-env-missing": _webhook_header_env_missing,
    "store-embed-missing": _store_embed_missing,
    "store-ttl-bad": _store_ttl_bad,
    "auth-file-missing": _auth_file_missing,
    "auth-not-an-auth-object": _auth_not_an_auth_object,
    "auth-without-authenticate": _auth_without_authenticate,
    "factory-signature-unusable": _factory_signature_unusable,
    "graph-module-exits": _graph_module_exits,
    "invalid-json": _invalid_json,
    "unknown-key": _unknown_key,
    "bad-cors": _bad_cors,
    "env-not-a-file": _env_not_a_file,
    "config-flag-missing-file": _config_flag_missing_file,
    "olg-config-env-var": _env_var_config,
    "cwd-langgraph-json": _cwd_langgraph_json,
    "cwd-without-config": _cwd_without_config,
    "graph-file-missing": _graph_file_missing,
    "graph-attribute-missing": _graph_attribute_missing,
    "graph-import-raises": _graph_import_raises,
    "graph-import-fails-in-a-task-group": _graph_import_fails_in_a_task_group,
    "graph-module-missing": _graph_module_missing,
    "graph-imports-a-file-beside-it": _graph_imports_a_file_beside_it,
    "graph-sees-config-env": _graph_sees_config_env,
}


def _run(case: Case, workdir: Path) -> Outcome:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OLG_")}
    args = [sys.executable, "-m", "open_langgraph.cli", "serve", "--port", "0"]
    args += ["--db", str(workdir / "olg.db")]
    if case.use == "flag":
        args += ["--config", str(case.config)]
    elif case.use == "env":
        env["OLG_CONFIG"] = str(case.config)
    try:
        done = subprocess.run(
            args,
            cwd=case.config.parent if case.use == "cwd" else workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        return Outcome(None, str(exc.stdout or ""), str(exc.stderr or ""))
    return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Case, Outcome]]:
    root = tmp_path_factory.mktemp("cli")
    cases = {name: make(root / name / "project") for name, make in CASES.items()}
    workdir = root / "elsewhere"  # the working directory, unrelated to the config's
    workdir.mkdir()
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {name: pool.submit(_run, case, workdir) for name, case in cases.items()}
        return {name: (cases[name], future.result()) for name, future in futures.items()}


# The first case's setup runs every case (the module fixture): on a loaded 2-core machine the
# whole batch can take longer than the default per-test timeout.
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", list(CASES))
def test_config_error_exits_2_with_one_line(
    outcomes: dict[str, tuple[Case, Outcome]], name: str
) -> None:
    case, outcome = outcomes[name]
    assert outcome.returncode is not None, f"olg serve did not exit: {outcome.stderr}"
    assert outcome.returncode == 2, outcome.stderr
    *before, line = outcome.stderr.strip().splitlines()
    # A cause's whole traceback (every sub-exception of a group) comes before the line.
    assert bool(before) == case.caused, outcome.stderr
    if before:
        assert "Traceback (most recent call last)" in before[0], outcome.stderr
    assert line.startswith("olg: config error: "), line
    assert str(case.config) in line or str(case.config.resolve()) in line
    assert f"`{case.key}`" in line
    assert case.problem in line
    assert outcome.stdout == ""


PROBE_CONFIG_ERROR = """
import sys
from open_langgraph.cli import main

code = main(sys.argv[1:])
heavy = [m for m in ("langgraph.graph", "langchain_core.tracers", "fastapi") if m in sys.modules]
print(code, heavy)
"""


def test_an_import_failure_names_its_innermost_cause_and_the_project_line(
    outcomes: dict[str, tuple[Case, Outcome]],
) -> None:
    _, outcome = outcomes["graph-import-fails-in-a-task-group"]
    line = outcome.stderr.strip().splitlines()[-1]
    assert line.endswith("(./agent.py:5)"), line  # raised at the project's own line 5
    assert "ConnectionError: [Errno -2]" in outcome.stderr.split("olg: config error")[0]


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_a_config_error_is_reported_before_the_heavy_imports(tmp_path: Path, command: str):
    """A typo in the config file is answered at once: before LangGraph, LangChain and the
    server are imported (seconds on a small machine), in a fresh interpreter."""
    config = _config(tmp_path, '{"graphs": {"agent": "./agent.py:graph"}, "auth": {"pth": 1}}')
    argv = [command, "--config", str(config)]
    if command == "worker":
        argv += ["--database-url", "postgresql://x@127.0.0.1/x", "--redis-url", "redis://x"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE_CONFIG_ERROR, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() == f"{exit_codes.CONFIG_ERROR} []", done.stderr
    assert "`auth.pth`: unknown key" in done.stderr
