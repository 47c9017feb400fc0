"""Browsers can call the server from LangGraph Studio by default; `http.cors` names who may
instead (Agent Chat UI's origin, for one). More in test_security_defaults.py."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

PREFLIGHT = {
    "Origin": "https://smith.langchain.com",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type",
}


def test_studio_by_default(server: ServerProcess):
    preflight = httpx.options(f"{server.url}/threads/search", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://smith.langchain.com"
    response = httpx.post(
        f"{server.url}/assistants/search",
        json={"limit": 1},
        headers={"Origin": "https://smith.langchain.com"},
    )
    assert response.headers["access-control-allow-origin"] == "https://smith.langchain.com"
    assert "x-pagination-next" in response.headers["access-control-expose-headers"].lower()


def test_studio_on_a_public_site_may_reach_a_server_on_this_machine(server: ServerProcess):
    # Chrome's Private Network Access: the preflight of a public page calling a loopback
    # server asks for, and must get, Access-Control-Allow-Private-Network.
    headers = {**PREFLIGHT, "Access-Control-Request-Private-Network": "true"}
    preflight = httpx.options(f"{server.url}/threads/search", headers=headers)
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-private-network"] == "true"
    # Only asked for it does the server say so, and only to an origin it allows.
    assert (
        "access-control-allow-private-network"
        not in httpx.options(f"{server.url}/threads/search", headers=PREFLIGHT).headers
    )
    refused = httpx.options(
        f"{server.url}/threads/search", headers={**headers, "Origin": "https://evil.example"}
    )
    assert refused.status_code == 403
    assert "access-control-allow-private-network" not in refused.headers


def test_configured_origins_only(tmp_path: Path):
    config = write_config(tmp_path, http={"cors": {"allow_origins": ["http://localhost:3000"]}})
    with serving(tmp_path, config) as server:
        allowed = httpx.options(
            f"{server.url}/threads", headers={**PREFLIGHT, "Origin": "http://localhost:3000"}
        )
        assert allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
        refused = httpx.options(f"{server.url}/threads", headers=PREFLIGHT)
        assert refused.status_code == 403
        assert "access-control-allow-origin" not in refused.headers
