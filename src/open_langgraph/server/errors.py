"""Mapping errors to JSON `{"detail": ...}` responses; nothing a client sends produces a 500."""

from __future__ import annotations

import logging
import sqlite3

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from open_langgraph.errors import OLGError
from open_langgraph.server.responses import JSONResponse

logger = logging.getLogger(__name__)


def _describe_validation(exc: RequestValidationError) -> str:
    problems = []
    for error in exc.errors():
        location = [str(part) for part in error.get("loc", ()) if part != "body"]
        if error.get("type") == "json_invalid":
            problems.append("request body is not valid JSON")
            continue
        where = ".".join(location) or "body"
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(dict.fromkeys(problems)) or "invalid request"


def install_error_handlers(app: FastAPI, *, postgres: bool) -> None:
    """`postgres`: the server stores in PostgreSQL, so psycopg's errors are mapped too (only
    then is psycopg imported: a tenth of a second of a SQLite server's start-up)."""

    @app.exception_handler(OLGError)
    async def _domain_error(request: Request, exc: OLGError) -> JSONResponse:
        if exc.status_code == 500:  # the server's fault (its config, an auth handler's bug)
            logger.error("%s %s: %s", request.method, request.url.path, exc.detail)
        headers = getattr(exc, "headers", None)  # an auth handler's HTTPException may set some
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _describe_validation(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )

    async def _storage_unavailable(request: Request, exc: Exception) -> JSONResponse:
        # A locked database (another writer past the busy wait), a full disk, a PostgreSQL
        # server gone or a pool exhausted: the request was fine and nothing was written; the
        # client may try again.
        logger.warning("storage failed on %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(
            {"detail": f"storage unavailable, nothing was changed: {exc}"},
            status_code=503,
            headers={"Retry-After": "1"},
        )

    async def _unstorable(_: Request, exc: Exception) -> JSONResponse:
        # PostgreSQL's JSONB refuses what SQLite stores (a \u0000 in a string): bad input.
        return JSONResponse({"detail": f"value cannot be stored: {exc}"}, status_code=422)

    app.add_exception_handler(sqlite3.OperationalError, _storage_unavailable)
    try:  # the store's connection, where this Python's sqlite3 cannot load sqlite-vec
        import pysqlite3.dbapi2 as pysqlite3  # type: ignore[import-not-found,import-untyped]
    except ImportError:
        pass
    else:
        app.add_exception_handler(pysqlite3.OperationalError, _storage_unavailable)
    if postgres:
        import psycopg

        app.add_exception_handler(psycopg.OperationalError, _storage_unavailable)
        app.add_exception_handler(psycopg.errors.UntranslatableCharacter, _unstorable)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "Internal server error"}, status_code=500)
