"""`olg models serve`: the OpenAI-compatible endpoint alone, without graphs or a database.

For clients that only want the embedded models (a notebook, another framework, an editor
plugin): `/v1/chat/completions`, `/v1/models`, `/v1/embeddings`, `/ok` and `/metrics`. A config
file is optional; when one is found its `models.aliases`, `auth.path`, `env` and
`http.allowed_hosts`/`http.cors` apply as they do for `olg serve`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from open_langgraph import exit_codes
from open_langgraph.config import AppConfig, ConfigError, find_config_file, load_config
from open_langgraph.config_errors import print_config_error
from open_langgraph.http_listener import (
    add_listen_arguments,
    cannot_listen,
    listen,
    run_uvicorn,
    stop_on_signals,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="olg models", description="the embedded models over OpenAI's API"
    )
    actions = parser.add_subparsers(dest="action", required=True)
    serve = actions.add_parser("serve", help="serve /v1 on the embedded models")
    add_listen_arguments(serve)
    serve.add_argument(
        "--config",
        default=None,
        help="config file for models.aliases and auth (default: $OLG_CONFIG, else "
        "./open_langgraph.json or ./langgraph.json when present; none is needed)",
    )
    return parser


def _config(explicit: str | None) -> AppConfig | None:
    """The config when one is named or present; None serves with no aliases and no auth."""
    try:
        path = find_config_file(explicit)
    except ConfigError:
        if explicit or os.environ.get("OLG_CONFIG"):
            raise
        return None
    return load_config(path)


def build_app(config: AppConfig | None, host: str) -> Any:
    """The FastAPI app serving `/v1` (and `/ok`, `/metrics`) with the config's aliases."""
    from fastapi import FastAPI
    from starlette.responses import Response

    from open_langgraph import __version__
    from open_langgraph.auth.loading import load_auth
    from open_langgraph.observability import metrics
    from open_langgraph.server.auth import AuthMiddleware
    from open_langgraph.server.responses import JSONResponse
    from open_langgraph.server.routes import openai
    from open_langgraph.server.security import (
        DEFAULT_CORS,
        HostPolicy,
        OriginPolicy,
        RequestGuard,
    )

    app = FastAPI(title="Open LangGraph models", version=__version__)

    @app.get("/ok")
    async def ok() -> JSONResponse:
        return JSONResponse({"ok": True})

    @app.get("/metrics")
    async def scrape() -> Response:
        body, content_type = metrics.exposition(None)
        return Response(body, media_type=content_type)

    openai.install(app, config.models.aliases if config else {})
    auth = load_auth(config) if config else None
    if auth is not None:
        app.add_middleware(AuthMiddleware, auth=auth)
    cors = (config.cors if config else None) or DEFAULT_CORS
    allowed = config.hosts.allowed_hosts if config else None
    app.add_middleware(
        RequestGuard, hosts=HostPolicy(host, allowed), origins=OriginPolicy.from_cors(cors)
    )
    return app


def models_main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        config = _config(args.config)
        if config is not None:
            for key, value in config.env.items():
                os.environ.setdefault(key, value)
        app = build_app(config, args.host)
    except ConfigError as exc:
        print_config_error(exc)
        return exit_codes.CONFIG_ERROR
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        print(cannot_listen(args.host, args.port, exc), file=sys.stderr)
        return exit_codes.ADDRESS_IN_USE
    from open_langgraph.observability.logs import configure_logging

    configure_logging(args.log_level, "text")
    print(f"olg: serving the embedded models on http://{args.host}:{args.port}/v1", flush=True)
    stop_on_signals()
    try:
        started = run_uvicorn(app, sock, host=args.host, port=args.port, log_level=args.log_level)
    except SystemExit as stop:
        started = stop.code in (None, 0)
    if not started:
        print("olg: start-up failed (the error is above); nothing was served", file=sys.stderr)
        return exit_codes.STARTUP_FAILED
    return 0
