"""`get_client()` with no URL inside the server, as on LangGraph Platform: a graph that hands
work to another assistant (a supervisor, a cron graph reading threads), a custom route that
lists threads, with a client made at import time or during a run. Served with an auth file
too: in-process calls are the server's own and pass it, as on the Platform, while outside
callers still need a key."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving

pytestmark = pytest.mark.e2e

GRAPHS = """
from typing_extensions import TypedDict
from langgraph.graph import END, START, StateGraph
from langgraph_sdk import get_client

# Made while the graphs are imported, before the server's app exists.
AT_IMPORT = get_client()


class Count(TypedDict, total=False):
    n: int
    graphs: list[str]
    threads_seen: int


async def double(state: Count) -> Count:
    return {"n": state["n"] * 2}


async def delegate(state: Count) -> Count:
    client = get_client()  # made during the run
    done = await client.runs.wait(None, "worker", input={"n": state["n"]})
    listed = await AT_IMPORT.assistants.search()
    threads = await client.threads.search(limit=100)
    return {
        "n": done["n"],
        "graphs": sorted({a["graph_id"] for a in listed}),
        "threads_seen": len(threads),
    }


def _one_node(node):
    builder = StateGraph(Count)
    builder.add_node("step", node)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile()


worker = _one_node(double)
supervisor = _one_node(delegate)
"""

ROUTES = """
from fastapi import FastAPI
from langgraph_sdk import get_client

app = FastAPI()


@app.get("/custom/thread-count")
async def thread_count() -> dict:
    threads = await get_client().threads.search(limit=100)
    return {"threads": len(threads)}
"""

AUTH = """
from langgraph_sdk import Auth

auth = Auth()


@auth.authenticate
async def authenticate(headers: dict) -> dict:
    if headers.get(b"x-api-key") != b"secret":
        raise Auth.exceptions.HTTPException(status_code=401, detail="invalid api key")
    return {"identity": "outside-user"}


@auth.on
async def own_only(ctx: Auth.types.AuthContext, value: dict) -> dict:
    if ctx.action == "create" and isinstance(value.get("metadata"), dict):
        value["metadata"]["owner"] = ctx.user.identity
    return {"owner": ctx.user.identity}
"""


def loopback_project(directory: Path, *, with_auth: bool) -> Path:
    (directory / "agents.py").write_text(textwrap.dedent(GRAPHS), encoding="utf-8")
    (directory / "routes.py").write_text(textwrap.dedent(ROUTES), encoding="utf-8")
    config: dict[str, object] = {
        "graphs": {"worker": "./agents.py:worker", "supervisor": "./agents.py:supervisor"},
        "http": {"app": "./routes.py:app"},
    }
    if with_auth:
        (directory / "auth.py").write_text(textwrap.dedent(AUTH), encoding="utf-8")
        config["auth"] = {"path": "./auth.py:auth"}
    path = directory / "langgraph.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["open", "auth"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ServerProcess, dict[str, str]]]:
    """The project served without and with its auth file, and the headers a caller needs."""
    directory = tmp_path_factory.mktemp(f"olg-loopback-{request.param}")
    with_auth = request.param == "auth"
    config = loopback_project(directory, with_auth=with_auth)
    with serving(directory, config, cwd=directory) as process:
        yield process, ({"x-api-key": "secret"} if with_auth else {})


async def test_a_graph_runs_another_assistant_through_get_client(
    served: tuple[ServerProcess, dict[str, str]],
):
    server, headers = served
    async with sdk_client(server.url, api_key=headers.get("x-api-key")) as client:
        thread = await client.threads.create()
        result = await client.runs.wait(thread["thread_id"], "supervisor", input={"n": 21})
        run = (await client.runs.list(thread["thread_id"]))[0]
    assert run["status"] == "success", result
    assert result["n"] == 42
    assert result["graphs"] == ["supervisor", "worker"]
    # In-process calls see every thread (the server's own), the caller's included.
    assert result["threads_seen"] >= 1


async def test_a_custom_route_calls_the_server_through_get_client(
    served: tuple[ServerProcess, dict[str, str]],
):
    server, headers = served
    async with httpx.AsyncClient(base_url=server.url, headers=headers) as http:
        await http.post("/threads", json={})
        response = await http.get("/custom/thread-count")
    assert response.status_code == 200, response.text
    assert response.json()["threads"] >= 1


async def test_outside_callers_need_what_the_auth_file_asks(
    served: tuple[ServerProcess, dict[str, str]],
):
    """The in-process pass is no way in from outside: a request naming the loopback's host
    is refused, and without the key the auth file answers 401."""
    server, headers = served
    async with httpx.AsyncClient(base_url=server.url) as http:
        posing = await http.post("/threads/search", json={}, headers={"host": "api"})
        keyless = await http.post("/threads/search", json={})
    assert posing.status_code == 403, posing.text
    assert keyless.status_code == (401 if headers else 200), keyless.text
