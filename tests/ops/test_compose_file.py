"""compose.yaml, read as Docker Compose reads it (this machine has no Docker daemon): every
service's command is one `olg` accepts, every environment variable one it reads, and
`docker compose up open-langgraph` names a service that serves on its own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from open_langgraph.cli import _parser

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
#: Variables the images' processes read that are not `olg` settings (Compose's own, the
#: database image's).
NOT_OLG = {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}


def olg_sources() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "src" / "open_langgraph").rglob("*.py"))


OLG_SERVICES = [n for n, s in SERVICES.items() if s.get("command", [""])[0] == "olg"]


def test_the_olg_services_are_the_ones_docs_name():
    assert set(OLG_SERVICES) == {"open-langgraph", "migrate", "api", "worker"}


@pytest.mark.parametrize("name", OLG_SERVICES)
def test_each_olg_command_is_one_the_cli_accepts(name: str):
    command = SERVICES[name]["command"]
    args = _parser().parse_args(command[1:])  # exits (fails the test) on an unknown flag
    assert args.command in {"serve", "worker", "db"}


def test_every_environment_variable_is_one_olg_reads():
    sources = olg_sources()
    for name, service in SERVICES.items():
        for variable in service.get("environment", {}):
            if variable in NOT_OLG:
                continue
            assert re.search(rf"[\"']{variable}[\"']", sources), f"{name}: {variable} is unused"


def test_open_langgraph_serves_alone_when_named():
    single = SERVICES["open-langgraph"]
    # Only when named: `docker compose up -d` starts the queue-mode services instead.
    assert single["profiles"]
    assert single["command"] == ["olg", "serve"]
    # Nothing to wait for: no PostgreSQL, no Redis.
    assert "depends_on" not in single
    assert not {"DATABASE_URI", "REDIS_URI"} & set(single.get("environment", {}))
    assert any(port.endswith(":8123") for port in single["ports"])
    # The SQLite file and the model live in a volume, where the image's OLG_DB points.
    volume = next(v for v in single["volumes"] if v.split(":")[1] == "/var/lib/olg")
    assert volume.split(":")[0] in COMPOSE["volumes"]
    assert "OLG_DB=/var/lib/olg/olg.db" in (ROOT / "Dockerfile").read_text()


def test_docs_quote_what_olg_db_current_prints():
    from open_langgraph.storage.postgres import migrations

    latest = migrations.LATEST
    quoted = re.findall(
        r"`(\d+) \(latest (\d+), up to date\)`", (ROOT / "docs" / "server.md").read_text()
    )
    assert quoted and all(q == (str(latest), str(latest)) for q in quoted), quoted
