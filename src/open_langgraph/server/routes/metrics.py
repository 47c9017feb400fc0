"""`GET /metrics`: the Prometheus exposition (or `?format=json`), as the Platform serves it.

With auth configured it is authenticated like every other route (it names graphs and
models and shows traffic): a Prometheus scrape job sends the credentials in its
`authorization` or custom headers. See docs/observability.md.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query, Request
from starlette.responses import Response

from open_langgraph.errors import NotFound
from open_langgraph.observability import metrics
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter

router = IndexedRouter(tags=["System"])


@router.get(
    "/metrics",
    summary="System Metrics",
    responses={
        200: {
            "description": "Success",
            "content": {
                "text/plain": {"schema": {"type": "string", "title": "Prometheus Metrics"}},
                "application/json": {"schema": {"type": "object", "title": "JSON Metrics"}},
            },
        }
    },
)
async def system_metrics(
    request: Request,
    format: Annotated[
        Literal["prometheus", "json"],
        Query(title="Output Format", description="prometheus (default) or json"),
    ] = "prometheus",
) -> Response:
    """Every metric of docs/observability.md; runs in flight are counted in the database at
    scrape time, so API and worker processes agree on them."""
    if not metrics.enabled():
        raise NotFound("metrics are turned off on this server (OLG_METRICS=off)")
    storage = request.app.state.storage
    in_flight = await storage.count_runs_in_flight()
    if format == "json":
        return JSONResponse(metrics.as_json(in_flight))
    body, content_type = metrics.exposition(in_flight)
    return Response(body, media_type=content_type)
