"""Serving imports no extra's package: `olg serve` on a config of the user's graphs (a store
index and auth included) loads, opens its lifespan and answers, and no module an extra brings
(`open_langgraph.extras.MODULE_EXTRAS`) was imported, even though the dev install has them all.
Checked in a fresh interpreter, since this one has imported them for other tests.
tests/e2e/test_lean_install.py checks the same from the other side: a virtualenv without them."""

from __future__ import annotations

from pathlib import Path

from open_langgraph.extras import MODULE_EXTRAS
from tests.fixtures.one_graph_project import run_probe, write_project

EMBED = """
def embed(texts):
    return [[1.0, 0.0] for _ in texts]
"""

PROBE = """
import asyncio, json, sys
from pathlib import Path
from open_langgraph.cli import _parser
from open_langgraph.config import load_config
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.server.app import ServerSettings, create_app
from open_langgraph.store_embeddings import store_settings
import httpx

async def main():
    config = load_config(Path("langgraph.json"))
    graphs = GraphRegistry(config)
    store = store_settings(config.path, config.store, sqlite=True)
    app = create_app(ServerSettings(config=config, db_path=Path("olg.db"), store=store), graphs)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            ok = (await http.get("/ok")).status_code
            listed = await http.post(
                "/mcp/",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"accept": "application/json"},
            )
    print(json.dumps({"ok": ok, "mcp": listed.status_code, "modules": sorted(sys.modules)}))

asyncio.run(main())
"""


def test_serving_imports_no_optional_package(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        extra_source=EMBED,
        store={"index": {"embed": "./agent.py:embed", "dims": 2}},
    )
    report = run_probe(tmp_path, PROBE)
    assert report["ok"] == 200 and report["mcp"] == 200
    imported = {name.split(".")[0] for name in report["modules"]}
    # Imported only inside `try: ... except ImportError` when installed, to be used if there:
    # pysqlite3 (its errors' handler, server/errors.py), numpy (by sqlite-vec). psycopg is not
    # among them: a SQLite server maps its errors only when it stores in PostgreSQL.
    guarded = {"pysqlite3", "numpy"}
    optional = set(MODULE_EXTRAS) - guarded
    assert not imported & optional, sorted(imported & optional)
