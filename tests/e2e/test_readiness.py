"""`GET /ok?check_db=1` on the live test server, on whichever backend `OLG_TEST_BACKEND`
selects: ready, with the database checked, and Redis only in queue mode (SQLite answers
ready without any Redis). The 503 paths are in tests/unit/test_readiness.py."""

from __future__ import annotations

import httpx
import pytest

from tests.fixtures.backend import POSTGRES_REDIS, selected
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e


async def test_the_server_is_ready_when_its_dependencies_answer(server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        ready = await http.get("/ok", params={"check_db": 1})
        alive = await http.get("/ok")
        wrong = await http.get("/ok", params={"check_db": 3})
    assert ready.status_code == 200, ready.text
    expected = {"database": "healthy"}
    if selected() == POSTGRES_REDIS:
        expected["redis"] = "healthy"
    assert ready.json() == {"ok": True, "services": expected}
    assert alive.json() == {"ok": True}
    assert wrong.status_code == 422
