"""Health and server information."""

from __future__ import annotations

from typing import Annotated, Any

import langgraph.version
from fastapi import Query, Request

from open_langgraph import __version__
from open_langgraph.readiness import Readiness
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter

#: `/ok`, served even with `http.disable_meta` (a load balancer's check keeps working).
health = IndexedRouter(tags=["meta"])
#: `/info`, which `http.disable_meta` removes.
router = IndexedRouter(tags=["meta"])


@health.get(
    "/ok",
    responses={
        503: {
            "description": "With `check_db=1`: the database or Redis did not answer",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
async def ok(
    request: Request,
    check_db: Annotated[
        int,
        Query(
            ge=0,
            le=1,
            description="1: answer 200 only if the database (and Redis in queue mode) "
            "answer too, as a readiness probe; 0 (default): the process is alive",
        ),
    ] = 0,
) -> JSONResponse:
    """Liveness, or with `check_db=1` readiness (open_langgraph/readiness.py); open without
    credentials, like LangGraph Platform's."""
    if check_db:
        readiness: Readiness = request.app.state.readiness
        return await readiness.response()
    return JSONResponse({"ok": True})


@router.get("/info")
async def info(request: Request) -> JSONResponse:
    """Clients (LangGraph Studio among them) hide what `flags` says a server lacks, so each
    flag is what this server really serves (`create_app` sets them)."""
    flags: dict[str, Any] = request.app.state.info_flags
    return JSONResponse(
        {
            "version": __version__,
            "server": "open-langgraph",
            "langgraph_py_version": langgraph.version.__version__,
            "flags": flags,
            "host": {"kind": "self-hosted"},
        }
    )
