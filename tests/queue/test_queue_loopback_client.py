"""`get_client()` with no URL in a graph executed by a queue worker, which has no app beside it:
its requests reach the API over HTTP with the secret the API shares with its workers, and are
served as the API's own (no auth, as on LangGraph Platform). Served with an auth file, so a
request without that secret, or with a wrong one, still needs a key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_loopback_client import loopback_project
from tests.fixtures.local_services import RedisServer
from tests.fixtures.postgres import fresh_database
from tests.fixtures.queue_cluster import Member
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import free_port

pytestmark = pytest.mark.timeout(240)

KEY = {"x-api-key": "secret"}


class Deployment:
    def __init__(self, directory: Path, database_url: str, redis: RedisServer) -> None:
        self.directory = directory
        self.config = loopback_project(directory, with_auth=True)
        self.queue = ["--config", str(self.config), "--database-url", database_url]
        self.queue += ["--redis-url", redis.url, "--grace-seconds", "2"]
        self.members: list[Member] = []

    def start(self, argv: list[str], name: str, port: int | None = None, **env: str) -> Member:
        member = Member([*argv, *self.queue], self.directory / f"{name}.log", port)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            member.start()
        finally:
            for k, v in saved.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        self.members.append(member)
        member.wait_ready()
        return member

    def api(self, *extra: str, **env: str) -> Member:
        port = free_port()
        return self.start(["serve", "--port", str(port), *extra], "api", port, **env)


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    redis = RedisServer(tmp_path)
    redis.start()
    try:
        with fresh_database() as url:
            deployment = Deployment(tmp_path, url, redis)
            try:
                yield deployment
            finally:
                for member in deployment.members:
                    member.stop()
    finally:
        redis.kill()


async def _delegate(url: str) -> tuple[dict, dict]:
    """The supervisor's run, which `runs.wait`s the worker graph through `get_client()`."""
    async with sdk_client(url, api_key=KEY["x-api-key"]) as client:
        thread = await client.threads.create()
        result = await client.runs.wait(
            thread["thread_id"], "supervisor", input={"n": 21}, raise_error=False
        )
        run = (await client.runs.list(thread["thread_id"]))[0]
    return result, run


async def test_a_graph_in_a_worker_of_olg_serve_calls_the_server(deployment: Deployment):
    api = deployment.api("--workers", "1")
    result, run = await _delegate(api.url)
    assert run["status"] == "success", (result, (deployment.directory / "api.log").read_text())
    assert result["n"] == 42
    assert result["graphs"] == ["supervisor", "worker"]
    assert result["threads_seen"] >= 1

    async with httpx.AsyncClient(base_url=api.url) as http:
        forged = await http.post(
            "/threads/search", json={}, headers={"x-olg-loopback-token": "guess"}
        )
    assert forged.status_code == 401, forged.text


async def test_standalone_workers_reach_the_api_they_are_given(deployment: Deployment):
    token = {"OLG_LOOPBACK_TOKEN": "shared-by-the-deployment"}
    api = deployment.api("--api-only", **token)
    # Told no address: the run fails saying what to set, not inside httpx.
    lost = deployment.start(["worker"], "lost-worker", **token)
    result, run = await _delegate(api.url)
    assert run["status"] == "error"
    assert "needs the API's address" in result["__error__"]["message"], result
    lost.stop()

    deployment.start(["worker", "--api-url", api.url], "worker", **token)
    result, run = await _delegate(api.url)
    assert run["status"] == "success", (result, (deployment.directory / "worker.log").read_text())
    assert result["n"] == 42
