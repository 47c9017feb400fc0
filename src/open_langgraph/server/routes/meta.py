"""Health and server information."""

from __future__ import annotations

import langgraph.version
from fastapi import APIRouter

from open_langgraph import __version__
from open_langgraph.server.responses import JSONResponse

router = APIRouter(tags=["meta"])


@router.get("/ok")
async def ok() -> JSONResponse:
    return JSONResponse({"ok": True})


@router.get("/info")
async def info() -> JSONResponse:
    return JSONResponse(
        {
            "version": __version__,
            "server": "open-langgraph",
            "langgraph_py_version": langgraph.version.__version__,
            "flags": {"assistants": True, "crons": False, "langsmith": False},
            "host": {"kind": "self-hosted"},
        }
    )
