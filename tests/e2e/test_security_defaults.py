"""Safe by default, open by choice: a live `olg serve` on 127.0.0.1 answers only LangGraph
Studio's page and clients without a browser, only under loopback `Host` names, sends
webhooks to public addresses only, and keeps webhook tokens out of its log."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config
from tests.fixtures.webhook_listener import Listener

pytestmark = pytest.mark.e2e

STUDIO = "https://smith.langchain.com"
EVIL = "https://evil.example"


def preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose config opens it to Agent Chat UI's origin and one extra host name."""
    directory: Path = tmp_path_factory.mktemp("olg-open-by-choice")
    config = write_config(
        directory,
        http={
            "cors": {"allow_origins": ["http://localhost:3000"]},
            "allowed_hosts": ["olg.internal", "*.corp.test"],
        },
    )
    with serving(directory, config) as process:
        yield process


def test_a_foreign_page_is_refused_and_studio_is_allowed(server: ServerProcess):
    refused = httpx.options(f"{server.url}/threads", headers=preflight(EVIL))
    assert refused.status_code == 403
    assert "access-control-allow-origin" not in refused.headers
    assert "http.cors.allow_origins" in refused.json()["detail"]
    # A request a browser sends without asking first (a no-cors POST) does nothing either.
    before = httpx.post(f"{server.url}/threads/count", json={}).json()
    simple = httpx.post(
        f"{server.url}/threads",
        content=b"{}",
        headers={"Origin": EVIL, "Content-Type": "text/plain"},
    )
    assert simple.status_code == 403
    assert httpx.post(f"{server.url}/threads/count", json={}).json() == before

    allowed = httpx.options(f"{server.url}/threads", headers=preflight(STUDIO))
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == STUDIO
    response = httpx.post(f"{server.url}/threads", json={}, headers={"Origin": STUDIO})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == STUDIO


def test_the_servers_own_docs_page_may_call_it(server: ServerProcess):
    response = httpx.post(f"{server.url}/threads", json={}, headers={"Origin": server.url})
    assert response.status_code == 200


async def test_clients_without_a_browser_are_unaffected(server: ServerProcess):
    for base in (server.url, f"http://localhost:{server.port}"):
        async with sdk_client(base) as client:
            thread = await client.threads.create()
            assert (await client.threads.get(thread["thread_id"]))["status"] == "idle"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example"])
def test_a_rebound_host_name_is_refused(server: ServerProcess, host: str):
    response = httpx.get(f"{server.url}/ok", headers={"Host": host.format(port=server.port)})
    assert response.status_code == 403
    assert "http.allowed_hosts" in response.json()["detail"]


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "localhost", "[::1]:{port}"]
)
def test_loopback_host_names_are_served(server: ServerProcess, host: str):
    response = httpx.get(f"{server.url}/ok", headers={"Host": host.format(port=server.port)})
    assert response.status_code == 200


def test_configured_origins_and_hosts_are_served(configured: ServerProcess):
    ui = httpx.options(f"{configured.url}/threads", headers=preflight("http://localhost:3000"))
    assert ui.headers["access-control-allow-origin"] == "http://localhost:3000"
    # Naming origins replaces the default: Studio is then refused unless listed too.
    assert httpx.options(f"{configured.url}/threads", headers=preflight(STUDIO)).status_code == 403
    for host in ("olg.internal", f"olg.internal:{configured.port}", "a.corp.test"):
        response = httpx.get(f"{configured.url}/ok", headers={"Host": host})
        assert response.status_code == 200, host
    assert httpx.get(f"{configured.url}/ok", headers={"Host": "evil.example"}).status_code == 403


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/hook", "http://192.168.1.10:8080/hook", "http://127.0.0.1:9/hook"]
)
def test_webhooks_to_private_networks_are_refused_by_default(server: ServerProcess, url: str):
    response = httpx.post(
        f"{server.url}/runs", json={"assistant_id": "counter", "input": {}, "webhook": url}
    )
    assert response.status_code == 422
    assert "webhooks.url.disable_" in response.json()["detail"]


def test_webhook_tokens_stay_out_of_the_log(tmp_path: Path):
    listener = Listener()
    config = write_config(tmp_path, webhooks={"url": {"disable_loopback": False}})
    log = tmp_path / "server.log"
    server = ServerProcess(config, tmp_path / "olg.db", log)
    server.start()
    try:
        hook = listener.url("/hook?token=tok-SECRET-1234&channel=ops").replace(
            "http://", "http://alice:pw-SECRET-5678@"
        )
        response = httpx.post(
            f"{server.url}/runs/wait",
            json={"assistant_id": "counter", "input": {"count": 0}, "webhook": hook},
        )
        assert response.status_code == 200
        deadline = time.monotonic() + 15
        while "delivered to" not in log.read_text():
            assert time.monotonic() < deadline, f"no delivery logged:\n{log.read_text()}"
            time.sleep(0.05)
        # The receiver got the credentials (the URL works) ...
        path, _, headers = listener.received[0]
        assert path == "/hook?token=tok-SECRET-1234&channel=ops"
        assert headers["Authorization"].startswith("Basic ")
    finally:
        server.close()
        listener.close()
    # ... and the log, at its default INFO level, shows neither.
    text = log.read_text()
    assert "SECRET" not in text
    # Library lines too: httpx logs every request's URL at INFO.
    assert "HTTP Request: POST http://***@127.0.0.1" in text
    assert f"http://***@127.0.0.1:{listener.port}/hook?token=***&channel=***" in text
