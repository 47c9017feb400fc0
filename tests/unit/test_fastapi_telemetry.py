"""A process that configures OpenTelemetry's global providers (as `opentelemetry-instrument`
does) gets no second set of HTTP spans from FastAPI's own telemetry (FastAPI 0.165 and later):
the server's request spans come from `observability/` alone, only when docs/observability.md
says so. Checked in a fresh interpreter, since the global provider can be set only once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fixtures.one_graph_project import run_probe, write_project

pytest.importorskip("opentelemetry.sdk", reason="OpenTelemetry comes with the observability extra")

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
    write_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    report = run_probe(tmp_path, PROBE, env)
    assert report["statuses"] == [200, 200]
    # The provider works (the probe's own span is there) and nothing else was recorded.
    assert report["spans"] == ["probe"]
