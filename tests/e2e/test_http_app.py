"""`http.app`, `http.middleware_order`, `http.enable_custom_route_auth` and
`http.mount_prefix` on live servers, with the custom app of tests/fixtures/custom_http_app.py
and the API-key auth of tests/fixtures/auth_api_key.py (`key-a` is user-a)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, write_config

pytestmark = pytest.mark.e2e

APP = "tests.fixtures.custom_http_app:app"
AUTH = {"path": "tests.fixtures.auth_api_key:auth"}
KEY_A = {"x-api-key": "key-a"}


def _server(directory: Path, **config: object) -> ServerProcess:
    log = directory / "lifespan.log"
    return ServerProcess(
        write_config(directory, **config),
        directory / "olg.db",
        directory / "server.log",
        env={"OLG_TEST_LIFESPAN_LOG": str(log)},
    )


# -- default order: the custom app's middleware first, its routes open --------------------------
@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory.mktemp("olg-http-app"), auth=AUTH, http={"app": APP}) as process:
        yield process


@pytest.fixture
async def client_a(app_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(app_server.url, api_key="key-a") as lg_client:
        yield lg_client


def test_custom_routes_are_served_unauthenticated_with_the_apps_state(
    app_server: ServerProcess,
) -> None:
    answer = httpx.get(f"{app_server.url}/custom/hello")
    assert answer.status_code == 200
    assert answer.json() == {
        "greeting": "hello from the custom app",
        "state": "state value",
        "user": None,
        "url": f"{app_server.url}/custom/hello",
    }
    assert answer.headers["x-custom-middleware"] == "1"


async def test_the_api_keeps_its_auth_and_runs_through_the_sdk(
    app_server: ServerProcess, client_a: LangGraphClient
) -> None:
    thread = await client_a.threads.create()
    result = await client_a.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    assert result["count"] == 2
    refused = httpx.post(f"{app_server.url}/threads/search", json={})
    assert refused.status_code == 401
    assert refused.json() == {"detail": "invalid api key"}
    # middleware_first: the custom middleware ran before authentication, on the 401 too.
    assert refused.headers["x-custom-middleware"] == "1"
    served = httpx.post(f"{app_server.url}/threads/search", json={}, headers=KEY_A)
    assert served.status_code == 200
    assert served.headers["x-saw-user"] == "no"


def test_custom_routes_shadow_api_routes_but_not_health_and_docs(
    app_server: ServerProcess,
) -> None:
    assert httpx.get(f"{app_server.url}/info").json() == {"custom_info": True}
    assert httpx.get(f"{app_server.url}/ok").json() == {"ok": True}
    assert httpx.get(f"{app_server.url}/docs").status_code == 200
    paths = httpx.get(f"{app_server.url}/openapi.json").json()["paths"]
    assert "/custom/hello" in paths
    assert "/threads/search" in paths


def test_custom_exception_handlers_serve_their_own_errors_only(
    app_server: ServerProcess,
) -> None:
    teapot = httpx.get(f"{app_server.url}/custom/teapot")
    assert (teapot.status_code, teapot.json()) == (418, {"detail": "short and stout"})
    bad = httpx.get(f"{app_server.url}/threads/not-a-uuid", headers=KEY_A)
    assert bad.status_code == 422
    assert "detail" in bad.json()


# -- auth_first, custom routes authenticated, everything under /api ------------------------------
@pytest.fixture(scope="module")
def prefixed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    http = {
        "app": APP,
        "middleware_order": "auth_first",
        "enable_custom_route_auth": True,
        "mount_prefix": "/api",
    }
    with _server(tmp_path_factory.mktemp("olg-http-prefix"), auth=AUTH, http=http) as process:
        yield process


def test_custom_route_auth_and_auth_first(prefixed_server: ServerProcess) -> None:
    url = f"{prefixed_server.url}/api/custom/hello"
    refused = httpx.get(url)
    assert refused.status_code == 401
    # auth_first: authentication refused the request before the custom middleware saw it.
    assert "x-custom-middleware" not in refused.headers
    served = httpx.get(url, headers=KEY_A)
    assert served.status_code == 200
    assert served.json()["user"] == "user-a"
    assert served.json()["url"] == url
    assert served.headers["x-saw-user"] == "yes"


async def test_the_sdk_works_under_the_mount_prefix(prefixed_server: ServerProcess) -> None:
    async with sdk_client(f"{prefixed_server.url}/api", api_key="key-a") as client:
        thread = await client.threads.create()
        parts = [
            part
            async for part in client.runs.stream(
                thread["thread_id"], "counter", input={"count": 1}, stream_mode="values"
            )
        ]
        assert parts[-1].data == {"count": 3, "trail": ["a", "b"]}
        state = await client.threads.get_state(thread["thread_id"])
        assert state["values"]["count"] == 3


def test_only_health_and_metrics_stay_at_the_root(prefixed_server: ServerProcess) -> None:
    base = prefixed_server.url
    assert httpx.get(f"{base}/ok").json() == {"ok": True}
    assert httpx.get(f"{base}/api/ok").json() == {"ok": True}
    outside = httpx.post(f"{base}/threads/search", json={}, headers=KEY_A)
    assert outside.status_code == 404
    assert "/api" in outside.json()["detail"]
    assert httpx.get(f"{base}/api/docs").status_code == 200
    spec = httpx.get(f"{base}/api/openapi.json").json()
    assert spec["servers"] == [{"url": "/api"}]
    assert "/threads/search" in spec["paths"]


# -- the custom app's lifespan inside the server's ------------------------------------------------
def test_the_custom_lifespan_starts_before_serving_and_stops_with_the_server(
    tmp_path: Path,
) -> None:
    process = _server(tmp_path, http={"app": APP})
    log = tmp_path / "lifespan.log"
    try:
        process.start()  # returns once /ok answers
        assert log.read_text().split() == ["startup"]
        process.stop()
        assert process.process is not None and process.process.returncode == 0
        assert log.read_text().split() == ["startup", "shutdown"]
    finally:
        process.close()
