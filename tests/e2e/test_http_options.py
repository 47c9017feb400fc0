"""`http.disable_*`, `http.configurable_headers`, `http.logging_headers` and
`checkpointer.serde` on live servers, driven through the SDK and plain HTTP."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.config_graphs import GRAPHS
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

SERVED_GRAPHS = {**GRAPHS, "counter": "tests.fixtures.graphs:counter"}
SENT_HEADERS = {
    "x-user-id": "user-7",
    "x-secret-token": "not for the run",
    "x-request-source": "tests",
    "authorization": "Bearer never-copied",
    "cookie": "session=never-copied",
    "langsmith-trace": "20260101T000000000000Zabc",
    "baggage": "langsmith-project=proj-1,langsmith-tags=a%2Cb,other=x",
}


async def _configurable(client: LangGraphClient) -> dict[str, Any]:
    result = await client.runs.wait(None, "echo_config", input={})
    assert isinstance(result, dict)
    return result["seen"]


# -- parts of the API turned off, headers copied into runs and logged ---------------------------
@pytest.fixture(scope="module")
def options_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-http-options")
    http = {
        **{f"disable_{part}": True for part in ("assistants", "store", "mcp", "a2a", "ui")},
        "configurable_headers": {"includes": ["x-*", "user-agent"], "excludes": ["x-secret-*"]},
        "logging_headers": {"includes": ["x-request-*", "authorization"]},
    }
    # Platform keys with no effect here: accepted, with one warning each.
    ignored = {"priority": {"path": "./priority.py:priority"}, "source": {"kind": "uv"}}
    config = write_config(directory, graphs=SERVED_GRAPHS, http=http, **ignored)
    with serving(directory, config, env={"OLG_LOG_LEVEL": "debug"}) as process:
        yield process


@pytest.fixture
async def options_client(options_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(options_server.url, headers=SENT_HEADERS) as lg_client:
        yield lg_client


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/assistants/search"),
        ("GET", f"/assistants/{uuid.uuid4()}"),
        ("GET", "/store/namespaces"),
        ("POST", "/store/items/search"),
        ("POST", "/mcp/"),
        ("POST", f"/a2a/{uuid.uuid4()}"),
        ("GET", "/.well-known/agent-card.json"),
        ("GET", "/ui/"),
        ("GET", "/"),
    ],
)
def test_disabled_parts_are_not_served(options_server: ServerProcess, method: str, path: str):
    answer = httpx.request(method, options_server.url + path, json={})
    assert answer.status_code == 404
    assert "detail" in answer.json()


async def test_what_stays_served_and_what_info_says(
    options_server: ServerProcess, options_client: LangGraphClient
) -> None:
    # Runs still find their assistant by graph id; threads and crons stay.
    thread = await options_client.threads.create()
    result = await options_client.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    assert result["count"] == 2
    assert await options_client.crons.search() == []
    flags = httpx.get(f"{options_server.url}/info").json()["flags"]
    assert {k: flags[k] for k in ("assistants", "store", "mcp", "a2a", "ui")} == dict.fromkeys(
        ("assistants", "store", "mcp", "a2a", "ui"), False
    )
    assert flags["crons"] is True
    assert flags["thread_protocol"] is True
    paths = httpx.get(f"{options_server.url}/openapi.json").json()["paths"]
    assert "/threads" in paths
    assert not [p for p in paths if p.startswith(("/assistants", "/store", "/mcp", "/a2a"))]


async def test_configurable_headers_reach_the_run(options_client: LangGraphClient) -> None:
    configurable = await _configurable(options_client)
    assert configurable["x-user-id"] == "user-7"
    assert configurable["x-request-source"] == "tests"
    assert configurable["user-agent"].startswith("langgraph-sdk-py")
    assert "x-secret-token" not in configurable  # excluded by pattern
    assert "authorization" not in configurable and "cookie" not in configurable
    # LangSmith's tracing headers are always copied, baggage entries parsed.
    assert configurable["langsmith-trace"] == SENT_HEADERS["langsmith-trace"]
    assert configurable["langsmith-project"] == "proj-1"
    assert configurable["langsmith-tags"] == ["a", "b"]
    assert "other" not in configurable and "baggage" not in configurable


def test_logging_headers_choose_what_request_lines_carry(options_server: ServerProcess) -> None:
    headers = {"x-request-id": "req-42", "x-other": "not logged", "authorization": "Bearer t0k"}
    httpx.post(f"{options_server.url}/threads/search", json={}, headers=headers)

    def lines() -> list[str]:
        return [
            line
            for line in options_server.log.read_text().splitlines()
            if "open_langgraph.access" in line and "POST /threads/search 200" in line
        ]

    # The line is written once the response is sent, so it may follow the answer by a moment.
    deadline = time.monotonic() + 10
    while not any("req-42" in line for line in lines()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any('"x-request-id":"req-42"' in line for line in lines()), lines()
    # Not chosen, or a credential (never logged, even when the patterns name it).
    assert not any("x-other" in line or "authorization" in line for line in lines()), lines()
    health = [line for line in options_server.log.read_text().splitlines() if "GET /ok" in line]
    assert health == []


def test_keys_without_effect_are_warned_about_once(options_server: ServerProcess) -> None:
    warnings = [line for line in options_server.log.read_text().splitlines() if " WARNING " in line]
    for key in ("priority", "source"):
        assert len([line for line in warnings if f"`{key}` is ignored" in line]) == 1, warnings


# -- checkpointer.serde, and the thread and meta routes turned off ------------------------------
@pytest.fixture(scope="module")
def serde_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-serde")
    config = write_config(
        directory,
        graphs=SERVED_GRAPHS,
        checkpointer={
            "serde": {
                "allowed_msgpack_modules": [["tests.fixtures.config_graphs", "Plan"]],
                "pickle_fallback": True,
            }
        },
        http={"disable_threads": True, "disable_meta": True, "disable_event_streaming": True},
    )
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def serde_client(serde_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(serde_server.url, headers=SENT_HEADERS) as lg_client:
        yield lg_client


async def _kinds(client: LangGraphClient, *, with_thing: bool) -> dict[str, str]:
    """Store objects on a new thread (created by the run: no /threads here), then read back
    the types the checkpoint revived them as."""
    thread_id = str(uuid.uuid4())
    stored = await client.runs.wait(
        thread_id,
        "keepsake",
        input={"action": "store", "with_thing": with_thing},
        if_not_exists="create",
        raise_error=False,
    )
    assert isinstance(stored, dict) and "__error__" not in stored, stored
    inspected = await client.runs.wait(thread_id, "keepsake", input={"action": "inspect"})
    assert isinstance(inspected, dict)
    return inspected["kinds"]


async def test_serde_revives_allowed_classes_only_and_pickles_the_rest(
    serde_client: LangGraphClient,
) -> None:
    # Plan is allowed; Sketch is not, so it comes back as its fields.
    assert await _kinds(serde_client, with_thing=False) == {
        "plan": "Plan",
        "sketch": "dict",
        "thing": "NoneType",
    }
    # A value msgpack cannot encode is pickled (the whole checkpoint is, as LangGraph does).
    assert (await _kinds(serde_client, with_thing=True))["thing"] == "Thing"


async def test_without_serde_config_langgraphs_defaults_apply(
    options_client: LangGraphClient,
) -> None:
    # Permissive msgpack (both dataclasses revived), no pickle: Thing cannot be stored.
    assert await _kinds(options_client, with_thing=False) == {
        "plan": "Plan",
        "sketch": "Sketch",
        "thing": "NoneType",
    }
    failed = await options_client.runs.wait(
        str(uuid.uuid4()),
        "keepsake",
        input={"action": "store", "with_thing": True},
        if_not_exists="create",
        raise_error=False,
    )
    assert isinstance(failed, dict) and "not msgpack serializable" in str(failed["__error__"])


async def test_only_tracing_headers_reach_runs_by_default(serde_client: LangGraphClient) -> None:
    configurable = await _configurable(serde_client)
    assert configurable["langsmith-trace"] == SENT_HEADERS["langsmith-trace"]
    assert not [key for key in SENT_HEADERS if key.startswith("x-") and key in configurable]
    assert "user-agent" not in configurable


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/threads"),
        ("POST", "/threads/search"),
        ("GET", f"/threads/{uuid.uuid4()}/state"),
        ("POST", f"/threads/{uuid.uuid4()}/commands"),
        ("GET", "/info"),
        ("GET", "/metrics"),
        ("GET", "/docs"),
        ("GET", "/openapi.json"),
        ("GET", "/redoc"),
    ],
)
def test_disable_threads_and_meta(serde_server: ServerProcess, method: str, path: str) -> None:
    answer = httpx.request(method, serde_server.url + path, json={})
    assert answer.status_code == 404
    assert httpx.get(f"{serde_server.url}/ok").json() == {"ok": True}
