"""A process that configures OpenTelemetry's global providers (as `opentelemetry-instrument`
does) gets no second set of HTTP spans from FastAPI's own telemetry (FastAPI 0.165 and later):
the server's request spans come from `observability/` alone, only when docs/observability.md
says so. Checked in a fresh interpreter, since the global provider can be set only once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="OpenTelemetry comes with the observability extra")

GRAPH = """
from typing import TypedDict
from langgraph.graph import START, StateGraph

class S(TypedDict):
    x: int

builder = StateGraph(S)
builder.add_node("one", lambda s: {"x": 1})
builder.add_edge(START, "one")
graph = builder.compile()
"""

PROBE = """
import asyncio, json
from pathlib import Path
import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from open_langgraph.config import load_config
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.server.app import ServerSettings, create_app

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

async def main():
    config = load_config(Path("langgraph.json"))
    app = create_app(ServerSettings(config=config, db_path=Path("olg.db")), GraphRegistry(config))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            ok = await http.get("/ok")
            created = await http.post("/threads")
            statuses = [ok.status_code, created.status_code]
    with trace.get_tracer("probe").start_as_current_span("probe"):
        pass
    names = [span.name for span in exporter.get_finished_spans()]
    print(json.dumps({"statuses": statuses, "spans": names}))

asyncio.run(main())
"""


def test_fastapi_adds_no_request_spans_under_a_global_tracer_provider(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(GRAPH)
    config = {"dependencies": ["."], "graphs": {"agent": "./agent.py:graph"}}
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["statuses"] == [200, 200]
    # The provider works (the probe's own span is there) and nothing else was recorded.
    assert report["spans"] == ["probe"]
