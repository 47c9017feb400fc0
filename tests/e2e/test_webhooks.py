"""Run webhooks received by a real local HTTP listener, through the SDK."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, free_port, serving, write_config
from tests.fixtures.webhook_listener import Listener

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    listening = Listener()
    yield listening
    listening.close()


@pytest.fixture(scope="module")
def webhook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("olg-webhooks")
    config = write_config(
        directory,
        webhooks={
            "url": {"disable_loopback": False},
            "headers": {
                "X-Webhook-Secret": "s3cret",
                # Resolved from the environment at start-up (default env_prefix LG_WEBHOOK_).
                "X-Signed": "v1=${{ env.LG_WEBHOOK_SIGNING_KEY }};${{env.LG_WEBHOOK_KEY_ID}}",
            },
        },
    )
    with serving(
        directory, config, env={"LG_WEBHOOK_SIGNING_KEY": "from-env", "LG_WEBHOOK_KEY_ID": "k1"}
    ) as process:
        yield process


@pytest.fixture
async def client(webhook_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(webhook_server.url) as lg_client:
        yield lg_client


async def _wait_for(predicate, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "no webhook arrived in time"
        await asyncio.sleep(0.05)


async def test_a_finished_run_posts_itself_to_its_webhook(
    client: LangGraphClient, listener: Listener
):
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"],
        "counter",
        input={"count": 0},
        webhook=listener.url("/done"),
        metadata={"owner": "tests"},
    )
    assert run["kwargs"]["webhook"] == listener.url("/done")
    await _wait_for(lambda: listener.posts_to("/done"))
    body = listener.posts_to("/done")[0]
    assert body["run_id"] == run["run_id"]
    assert body["thread_id"] == thread["thread_id"]
    assert body["status"] == "success"
    assert body["values"] == {"count": 2, "trail": ["a", "b"]}
    assert body["metadata"]["owner"] == "tests"
    assert body["metadata"]["graph_id"] == "counter"
    assert body["run_started_at"] <= body["run_ended_at"] <= body["webhook_sent_at"]
    assert "error" not in body
    headers = next(h for path, _, h in listener.received if path == "/done")
    assert headers["X-Webhook-Secret"] == "s3cret"
    assert headers["X-Signed"] == "v1=from-env;k1"
    assert headers["Content-Type"] == "application/json"


async def test_a_failed_run_posts_its_error(client: LangGraphClient, listener: Listener):
    result = await client.runs.wait(
        None, "failing", input={}, webhook=listener.url("/failed"), raise_error=False
    )
    assert result["__error__"]["error"] == "ValueError"
    await _wait_for(lambda: listener.posts_to("/failed"))
    body = listener.posts_to("/failed")[0]
    assert body["status"] == "error"
    assert body["error"] == {"error": "ValueError", "message": "the failing node failed on purpose"}


async def test_a_run_stopped_at_an_interrupt_posts_success(
    client: LangGraphClient, listener: Listener
):
    """A run that stops at `interrupt()` ended as it should: `success`, as the Platform posts
    it, with the values it reached."""
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"], "hitl", input={"request": "x"}, webhook=listener.url("/hitl")
    )
    await _wait_for(lambda: listener.posts_to("/hitl"))
    [posted] = listener.posts_to("/hitl")
    assert posted["status"] == "success"
    assert posted["values"]["request"] == "x"


async def test_a_failing_webhook_is_retried_then_delivered(
    client: LangGraphClient, listener: Listener
):
    listener.failures["/flaky"] = 2
    await client.runs.wait(None, "counter", input={"count": 0}, webhook=listener.url("/flaky"))
    await _wait_for(lambda: len(listener.posts_to("/flaky")) == 3)
    attempts = listener.posts_to("/flaky")
    assert {body["run_id"] for body in attempts} == {attempts[0]["run_id"]}
    assert [body["status"] for body in attempts] == ["success"] * 3


async def test_an_unreachable_webhook_never_hurts_the_runs(client: LangGraphClient):
    dead = f"http://127.0.0.1:{free_port()}/nobody-listens"
    thread = await client.threads.create()
    first = await client.runs.wait(thread["thread_id"], "counter", input={"count": 0}, webhook=dead)
    second = await client.runs.wait(thread["thread_id"], "counter", input={"count": 5})
    assert first["count"] == 2 and second["count"] == 7
    assert (await client.threads.get(thread["thread_id"]))["status"] == "idle"


async def test_webhook_policy_still_refuses_link_local_and_bad_urls(client: LangGraphClient):
    for url in ("http://169.254.169.254/latest/meta-data", "not a url", "ftp://x/y"):
        response = await client.http.client.post(
            "/runs/wait", json={"assistant_id": "counter", "input": {}, "webhook": url}
        )
        assert response.status_code == 422, url
        assert "webhook" in response.json()["detail"]


@pytest.fixture(scope="module")
def trimmed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """`env_prefix` of its own, and `allowed_fields` cutting the payload down."""
    directory: Path = tmp_path_factory.mktemp("olg-webhooks-trimmed")
    config = write_config(
        directory,
        webhooks={
            "url": {"disable_loopback": False},
            "env_prefix": "OLG_HOOK_",
            "headers": {"Authorization": "Bearer ${{ env.OLG_HOOK_TOKEN }}"},
            "allowed_fields": ["run_id", "status", "values"],
        },
    )
    with serving(directory, config, env={"OLG_HOOK_TOKEN": "t-1"}) as process:
        yield process


async def test_env_prefix_and_allowed_fields(trimmed_server: ServerProcess, listener: Listener):
    async with sdk_client(trimmed_server.url) as client:
        run = await client.runs.wait(
            None, "counter", input={"count": 0}, webhook=listener.url("/trimmed")
        )
    assert run["count"] == 2
    await _wait_for(lambda: listener.posts_to("/trimmed"))
    body = listener.posts_to("/trimmed")[0]
    assert set(body) == {"run_id", "status", "values"}
    assert body["status"] == "success"
    headers = next(h for path, _, h in listener.received if path == "/trimmed")
    assert headers["Authorization"] == "Bearer t-1"
