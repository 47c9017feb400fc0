"""A worker's own `GET /metrics` (`olg worker --metrics-port`): its runs, durations, model
tokens and model seconds, for a Prometheus to scrape when workers run apart from the API
(their own containers or hosts), where the API's `/metrics` cannot see them.

It shows what this process recorded (or, with `PROMETHEUS_MULTIPROC_DIR`, every process
sharing that directory), without `olg_runs_in_flight`: the API counts that in the database,
and two sources would be added up twice. The port honours the config's `auth.path` and the
same `Host` / `Origin` checks as the API, and answers nothing but `/metrics` and, for a
container's probes, `/ok` (open, as the API's: the worker's event loop answers) and
`/ok?check_db=1` (its PostgreSQL and Redis answer too: readiness.py). It runs on the
worker's event loop; a scrape costs the worker one exposition, a run nothing more than
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp

from open_langgraph.http_listener import http_url
from open_langgraph.observability import metrics
from open_langgraph.readiness import Readiness
from open_langgraph.server.responses import JSONResponse

if TYPE_CHECKING:
    from langgraph_sdk import Auth

    from open_langgraph.config import AppConfig

FORMATS = ("prometheus", "json")


async def _metrics(request: Request) -> Response:
    if not metrics.enabled():
        return JSONResponse(
            {"detail": "metrics are turned off on this worker (OLG_METRICS=off)"}, status_code=404
        )
    format = request.query_params.get("format", "prometheus")
    if format not in FORMATS:
        return JSONResponse(
            {"detail": f"format must be one of {', '.join(FORMATS)}, not {format!r}"},
            status_code=422,
        )
    if format == "json":
        return JSONResponse(metrics.as_json(None))
    body, content_type = metrics.exposition(None)
    return Response(body, media_type=content_type)


async def _ok(request: Request) -> Response:
    check_db = request.query_params.get("check_db", "0")
    if check_db not in ("0", "1"):
        return JSONResponse({"detail": "check_db must be 0 or 1"}, status_code=422)
    if check_db == "1":
        readiness: Readiness = request.app.state.readiness
        return await readiness.response()
    return JSONResponse({"ok": True})


_ONLY = "a worker serves only GET /metrics and GET /ok"


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse({"detail": _ONLY}, status_code=404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"detail": _ONLY}, status_code=405)


def metrics_app(
    config: AppConfig, host: str, auth: Auth | None, readiness: Readiness | None = None
) -> ASGIApp:
    """The ASGI app of the port: `/metrics` behind the API's auth and request guard, and
    `/ok` behind the guard only. `readiness` gets its checks once the worker's storage and
    bus are open (`Readiness.use`); until then `/ok?check_db=1` answers 503."""
    from open_langgraph.server.security import (
        DEFAULT_CORS,
        HostPolicy,
        OriginPolicy,
        RequestGuard,
    )

    starlette = Starlette(
        routes=[Route("/metrics", _metrics, methods=["GET"]), Route("/ok", _ok, methods=["GET"])],
        exception_handlers={404: _not_found, 405: _not_allowed},
    )
    starlette.state.readiness = readiness if readiness is not None else Readiness()
    app: ASGIApp = starlette
    if auth is not None:
        from open_langgraph.server.auth import AuthMiddleware

        app = AuthMiddleware(app, auth)
    return RequestGuard(
        app,
        hosts=HostPolicy(host, config.hosts.allowed_hosts),
        origins=OriginPolicy.from_cors(config.cors or DEFAULT_CORS),
    )


def listen(host: str, port: int) -> socket.socket:
    """The port's socket, bound before the worker starts, so a port in use is reported as a
    start-up error (OSError) rather than after the worker took runs."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=False)


class _NoSignals(uvicorn.Server):
    """uvicorn without its signal handlers: the worker's own SIGTERM / SIGINT handling
    (hand runs back, then stop) stays in charge, and stops this server last."""

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()


class MetricsServer:
    """uvicorn serving the app on a socket, as a task of the worker's event loop."""

    def __init__(
        self,
        app: ASGIApp,
        sock: socket.socket,
        log_level: str,
        json_logs: bool,
        readiness: Readiness | None = None,
    ) -> None:
        #: The checks of `/ok?check_db=1`, filled in by the worker (`Readiness.use`).
        self.readiness = readiness if readiness is not None else Readiness()
        level = "warning" if log_level.lower() == "info" else log_level.lower()
        options: dict[str, Any] = {"log_config": None} if json_logs else {}
        self._server = _NoSignals(
            uvicorn.Config(app, lifespan="off", access_log=False, log_level=level, **options)
        )
        self._socket = sock
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return http_url(self._socket, "/metrics")

    async def __aenter__(self) -> MetricsServer:
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]))
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task
        self._socket.close()
