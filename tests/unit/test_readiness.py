"""`GET /ok?check_db=1` (open_langgraph/readiness.py): 200 when the database (and Redis in
queue mode) answer, 503 naming what did not, within the check's timeout; the same on a
worker's metrics port, open without credentials while `/metrics` stays behind auth. In
process: a real SQLite storage, a RedisBus on a port nobody serves, stand-in checks for
the rest."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from open_langgraph import readiness as readiness_module
from open_langgraph.auth.loading import load_auth
from open_langgraph.config import load_config
from open_langgraph.observability.metrics_server import metrics_app
from open_langgraph.readiness import Check, Readiness
from open_langgraph.runtime.bus_redis import RedisBus
from open_langgraph.server.routes import meta
from open_langgraph.storage.sqlite import SqliteStorage
from tests.fixtures.server import free_port, write_config


async def _answers() -> None:
    return None


async def _refuses() -> None:
    raise OSError("connection refused")


async def _hangs() -> None:
    await asyncio.sleep(60)


def _client(app: object, host: str = "localhost") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url=f"http://{host}")


def _api(readiness: Readiness) -> FastAPI:
    app = FastAPI()
    app.include_router(meta.health)
    app.state.readiness = readiness
    return app


async def test_ready_when_every_dependency_answers() -> None:
    ready = Readiness(
        [Check("database", "PostgreSQL", _answers), Check("redis", "Redis", _answers)]
    )
    async with _client(_api(ready)) as http:
        alive = await http.get("/ok")
        checked = await http.get("/ok", params={"check_db": 1})
    assert alive.status_code == 200 and alive.json() == {"ok": True}
    assert checked.status_code == 200
    assert checked.json() == {"ok": True, "services": {"database": "healthy", "redis": "healthy"}}


async def test_not_ready_names_what_did_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readiness_module, "CHECK_TIMEOUT_SECONDS", 0.2)
    ready = Readiness([Check("database", "PostgreSQL", _hangs), Check("redis", "Redis", _refuses)])
    async with _client(_api(ready)) as http:
        started = asyncio.get_running_loop().time()
        answer = await http.get("/ok", params={"check_db": 1})
        took = asyncio.get_running_loop().time() - started
        alive = await http.get("/ok")
    assert answer.status_code == 503
    body = answer.json()
    assert body["ok"] is False
    assert body["services"] == {"database": "unhealthy", "redis": "unhealthy"}
    assert "PostgreSQL did not answer within 0.2 s" in body["detail"]
    assert "Redis is unreachable (OSError)" in body["detail"]
    # The checks run at once: one timeout, not one per dependency.
    assert took < 1.0
    # The driver's message is for the log, not for an unauthenticated caller.
    assert "connection refused" not in body["detail"]
    # Liveness does not ask the dependencies.
    assert alive.status_code == 200


async def test_check_db_takes_only_0_or_1() -> None:
    async with _client(_api(Readiness([Check("database", "SQLite", _answers)]))) as http:
        assert (await http.get("/ok", params={"check_db": 2})).status_code == 422
        assert (await http.get("/ok", params={"check_db": "yes"})).status_code == 422
        assert (await http.get("/ok", params={"check_db": 0})).json() == {"ok": True}


async def test_an_outage_is_logged_once_and_its_end_once(caplog: pytest.LogCaptureFixture) -> None:
    up = True

    async def flaky() -> None:
        if not up:
            raise ConnectionError("reset by peer")

    ready = Readiness([Check("redis", "Redis", flaky)])
    caplog.set_level(logging.INFO, logger="open_langgraph.readiness")
    up = False
    for _ in range(3):
        assert await ready.problems() == {"redis": "Redis is unreachable (ConnectionError)"}
    up = True
    assert await ready.problems() == {}
    assert await ready.problems() == {}
    lines = [r.getMessage() for r in caplog.records if r.name == "open_langgraph.readiness"]
    assert len(lines) == 2, lines
    assert "reset by peer" in lines[0] and "answers again" in lines[1]


async def test_sqlite_storage_answers_without_redis(tmp_path: Path) -> None:
    async with SqliteStorage.from_path(tmp_path / "olg.db") as storage:
        response = await Readiness.of(storage, None).response()
    assert response.status_code == 200
    assert response.body == b'{"ok":true,"services":{"database":"healthy"}}'


async def test_a_redis_nobody_serves_is_reported() -> None:
    bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0", "olg:test:")
    try:
        problems = await Readiness([Check("redis", "Redis", bus.ping)]).problems()
    finally:
        await bus.close()
    assert problems == {"redis": "Redis is unreachable (ConnectionError)"}


async def test_a_workers_port_answers_probes_without_credentials(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, auth={"path": "tests.fixtures.auth_api_key:auth"}))
    ready = Readiness()
    app = metrics_app(config, "0.0.0.0", load_auth(config), ready)
    async with _client(app) as http:
        alive = await http.get("/ok")
        starting = await http.get("/ok", params={"check_db": 1})
        ready.use(Readiness([Check("database", "PostgreSQL", _answers)]))
        checked = await http.get("/ok", params={"check_db": 1})
        bad = await http.get("/ok", params={"check_db": 5})
        anonymous = await http.get("/metrics")
        scraped = await http.get("/metrics", headers={"x-api-key": "key-a"})
        elsewhere = await http.get("/threads", headers={"x-api-key": "key-a"})
    assert alive.status_code == 200 and alive.json() == {"ok": True}
    assert starting.status_code == 503 and "still starting" in starting.json()["detail"]
    assert checked.status_code == 200 and checked.json()["services"] == {"database": "healthy"}
    assert bad.status_code == 422
    # Only the probes are open: the metrics keep the config's auth.
    assert anonymous.status_code == 401
    assert scraped.status_code == 200
    assert elsewhere.status_code == 404 and "GET /ok" in elsewhere.json()["detail"]
