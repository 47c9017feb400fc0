"""Authentication end to end on a live server, through the real SDK: the basics a user relies
on (tests/e2e/test_auth.py goes through every route)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.backend import ServerDatabase
from tests.fixtures.server import ServerProcess, free_port, serving, write_config

pytestmark = pytest.mark.e2e

AUTH = "tests.fixtures.auth_api_key:auth"
STUDIO = "https://smith.langchain.com"


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-auth-smoke")
    config = write_config(directory, auth={"path": AUTH, "disable_studio_auth": True})
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def users(auth_server: ServerProcess) -> AsyncIterator[tuple[LangGraphClient, ...]]:
    clients = tuple(get_client(url=auth_server.url, api_key=key) for key in ("key-a", "key-b"))
    yield clients
    for client in clients:
        await client.http.client.aclose()


@pytest.mark.parametrize("path", ["/threads/search", "/assistants/search"])
@pytest.mark.parametrize("key", [None, "wrong"])
def test_without_a_valid_key_the_api_answers_401(auth_server: ServerProcess, path, key):
    headers = {"Origin": STUDIO} | ({"x-api-key": key} if key else {})
    response = httpx.post(auth_server.url + path, headers=headers, json={})
    assert response.status_code == 401
    assert response.json() == {"detail": "invalid api key"}
    # A browser client (Studio) can read why.
    assert response.headers["access-control-allow-origin"] == STUDIO


@pytest.mark.parametrize("path", ["/ok", "/info", "/docs", "/openapi.json"])
def test_health_and_docs_stay_open(auth_server: ServerProcess, path: str):
    """As on the Platform; Agent Chat UI checks a server with `/info` before it sends the
    user's token."""
    assert httpx.get(auth_server.url + path).status_code == 200


async def test_a_users_thread_is_invisible_to_another(users):
    a, b = users
    thread = await a.threads.create(metadata={"topic": "smoke"})
    thread_id = thread["thread_id"]
    assert thread["metadata"] == {"topic": "smoke", "owner": "user-a"}
    with pytest.raises(httpx.HTTPStatusError) as missing:
        await b.threads.get(thread_id)
    assert missing.value.response.status_code == 404
    assert thread_id not in {t["thread_id"] for t in await b.threads.search(limit=1000)}
    assert await b.threads.count(metadata={"topic": "smoke"}) == 0
    assert thread_id in {t["thread_id"] for t in await a.threads.search(limit=1000)}
    # A run of B on A's thread is as missing as the thread.
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await b.runs.create(thread_id, "counter", input={"count": 0})
    assert refused.value.response.status_code == 404
    # Assistants are shared read-only: B reads the system one, nobody creates one.
    assert (await b.assistants.get("counter"))["graph_id"] == "counter"
    with pytest.raises(httpx.HTTPStatusError) as forbidden:
        await a.assistants.create("counter")
    assert forbidden.value.response.status_code == 403


async def test_graphs_see_the_runs_user_and_clients_cannot_forge_it(users):
    a, b = users
    forged = {"langgraph_auth_user_id": "user-b", "langgraph_auth_permissions": ["admin"]}
    # Sent in `configurable` or in `context` (both at once is refused, as on the Platform).
    for sent in ({"config": {"configurable": forged}}, {"context": forged}):
        thread = await a.threads.create()
        result = await a.runs.wait(thread["thread_id"], "whoami", input={}, **sent)
        assert result == {
            "user_id": "user-a",
            "permissions": ["threads:write"],
            "identity": "user-a",
        }
    # Stateless runs too; their temporary thread, kept, belongs to the caller.
    run = await b.runs.create(None, "whoami", input={}, on_completion="keep")
    assert (await b.runs.join(run["thread_id"], run["run_id"]))["user_id"] == "user-b"
    assert (await b.threads.get(run["thread_id"]))["metadata"]["owner"] == "user-b"
    # The run records its user, so a queued or recovered run executes as its creator.
    stored = await b.runs.get(run["thread_id"], run["run_id"])
    assert stored["kwargs"]["config"]["configurable"]["langgraph_auth_user"]["identity"] == "user-b"


def test_serving_a_public_address_without_auth_warns_once(tmp_path: Path):
    command = [sys.executable, "-m", "open_langgraph.cli", "serve", "--host", "0.0.0.0"]
    command += ["--port", str(free_port()), "--config", str(write_config(tmp_path))]
    database = ServerDatabase(tmp_path / "olg.db")
    command += database.cli_args()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert process.stderr is not None
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("olg: serving"):
                break
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        finally:
            if process.poll() is None:  # it did not stop: fail, but leave nothing running
                process.kill()
                process.wait(timeout=5)
            database.close()
    assert any(line.startswith("olg: serving") for line in lines), "".join(lines)
    warnings = [line for line in lines if "without authentication" in line]
    assert len(warnings) == 1, "".join(lines)
