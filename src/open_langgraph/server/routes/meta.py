"""Health and server information."""

from __future__ import annotations

from typing import Any

import langgraph.version
from fastapi import APIRouter, Request

from open_langgraph import __version__
from open_langgraph.server.responses import JSONResponse

#: `/ok`, served even with `http.disable_meta` (a load balancer's check keeps working).
health = APIRouter(tags=["meta"])
#: `/info`, which `http.disable_meta` removes.
router = APIRouter(tags=["meta"])


@health.get("/ok")
async def ok() -> JSONResponse:
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
