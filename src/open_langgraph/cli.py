"""The `olg` command line."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from open_langgraph import __version__, exit_codes
from open_langgraph.config import AppConfig, ConfigError, find_config_file, load_config
from open_langgraph.config_errors import print_config_error
from open_langgraph.extras import needs_extra
from open_langgraph.http_listener import (
    add_listen_arguments,
    cannot_listen,
    http_url,
    listen,
    run_uvicorn,
    stop_on_signals,
)
from open_langgraph.worker_cli import (
    add_api_url_argument,
    add_log_format_argument,
    add_metrics_arguments,
    add_queue_arguments,
    queue_settings,
    worker_argv,
    worker_main,
    worker_processes,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette

DEFAULT_DB = Path(".olg") / "olg.db"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olg", description="Open LangGraph agent server")
    parser.add_argument("--version", action="version", version=f"olg {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the configured graphs over HTTP")
    add_listen_arguments(serve)
    serve.add_argument(
        "--config",
        default=None,
        help="config file (default: $OLG_CONFIG, else ./open_langgraph.json or ./langgraph.json)",
    )
    serve.add_argument(
        "--db",
        default=os.environ.get("OLG_DB", str(DEFAULT_DB)),
        help="SQLite database file (default: ./.olg/olg.db)",
    )
    serve.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URI") or None,
        help="postgresql://... to store everything in PostgreSQL instead of --db "
        "(default: $DATABASE_URI)",
    )
    serve.add_argument(
        "--max-concurrency",
        type=int,
        default=int(os.environ.get("OLG_MAX_CONCURRENCY", "32")),
        help="runs executed at once in this process",
    )
    add_log_format_argument(serve)
    add_queue_arguments(serve)
    serve.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("OLG_WORKERS", "0")),
        help="queue mode: start this many `olg worker` processes to execute runs "
        "(0: this process executes them)",
    )
    serve.add_argument(
        "--shutdown-grace",
        type=float,
        default=float(os.environ.get("OLG_SHUTDOWN_GRACE", "5")),
        help="on SIGTERM, seconds open streams and requests get before they are closed and "
        "the runs still executing here are stopped (default: $OLG_SHUTDOWN_GRACE, else 5)",
    )
    serve.add_argument(
        "--api-only",
        action="store_true",
        help="queue mode: execute no runs here; `olg worker` processes started elsewhere do",
    )
    worker = commands.add_parser(
        "worker",
        help="execute queued runs (queue mode: PostgreSQL + Redis)",
        description="olg worker --database-url postgresql://... --redis-url redis://...",
    )
    worker.add_argument("--config", default=None, help="config file, as for olg serve")
    worker.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URI") or None,
        help="postgresql://... (default: $DATABASE_URI)",
    )
    worker.add_argument(
        "--max-concurrency",
        type=int,
        default=int(os.environ.get("OLG_MAX_CONCURRENCY", "32")),
        help="runs executed at once by this worker",
    )
    worker.add_argument("--log-level", default=os.environ.get("OLG_LOG_LEVEL", "info"))
    add_log_format_argument(worker)
    add_queue_arguments(worker)
    add_metrics_arguments(worker)
    add_api_url_argument(worker)
    webshop = commands.add_parser(
        "webshop", help="the WebShop environment", description="olg webshop serve --help"
    )
    webshop.add_argument("webshop_args", nargs=argparse.REMAINDER)
    evaluate = commands.add_parser(
        "eval", help="evaluate an agent", description="olg eval webshop --help"
    )
    evaluate.add_argument("eval_args", nargs=argparse.REMAINDER)
    models = commands.add_parser(
        "models",
        help="the embedded models over OpenAI's API",
        description="olg models serve [--host H] [--port P] [--config FILE]",
    )
    models.add_argument("models_args", nargs=argparse.REMAINDER)
    replay = commands.add_parser("replay", help="replay a recorded episode without a model")
    replay.add_argument("replay_args", nargs=argparse.REMAINDER)
    run = commands.add_parser(
        "run",
        help="run a served graph, answering its questions here",
        description='olg run GRAPH "input" [--url URL] [--context JSON] [--input-json JSON]',
    )
    run.add_argument("run_args", nargs=argparse.REMAINDER)
    db = commands.add_parser(
        "db",
        help="PostgreSQL schema versions",
        description="olg db upgrade: apply missing migrations; olg db current: print the version",
    )
    db.add_argument("action", choices=["upgrade", "current"])
    db.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URI") or None,
        help="postgresql://... (default: $DATABASE_URI)",
    )
    return parser


def _tune_garbage_collector() -> None:
    """Fewer, later collections: a run allocates many short-lived objects, and collecting
    every 700 allocations spent a measurable share of a request on the cyclic collector.
    Objects alive after start-up (imported graphs and libraries) are frozen out of it."""
    if os.environ.get("OLG_GC_DEFAULTS"):
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def _serve(args: argparse.Namespace) -> int:
    # The file's own mistakes are reported before the seconds of importing LangGraph and the
    # server; its variables are set before those imports, which read some (LangSmith's).
    try:
        config = load_config(find_config_file(args.config))
    except ConfigError as exc:
        print_config_error(exc)
        return exit_codes.CONFIG_ERROR
    for key, value in config.env.items():
        os.environ.setdefault(key, value)
    # Before prometheus-client is first imported (by graphs, the app): with --workers, the
    # children's metrics are added up with ours.
    from open_langgraph.observability import multiprocess

    multiprocess.prepare(spawns_workers=args.workers > 0)
    from open_langgraph.auth.loading import load_auth
    from open_langgraph.encryption.loading import load_encryption
    from open_langgraph.extras import warn_off
    from open_langgraph.runtime.graphs import GraphRegistry
    from open_langgraph.server.loopback import defer_sdk_loopback
    from open_langgraph.server.security import is_loopback_host
    from open_langgraph.storage.backend import (
        database_label,
        is_postgres_url,
        postgres_settings_problem,
    )
    from open_langgraph.store_embeddings import store_settings

    defer_sdk_loopback()  # before the graphs make their clients
    try:
        graphs = GraphRegistry(config)  # puts `dependencies` on sys.path, which auth may need
        # A config asking for auth that cannot be loaded is refused, never served openly.
        auth = load_auth(config)
        # Likewise encryption: data is never stored in plaintext for want of it.
        encryption = load_encryption(config)
        store = store_settings(config.path, config.store, sqlite=not args.database_url)
        custom_app = _custom_app(config)
    except ConfigError as exc:
        print_config_error(exc)
        return exit_codes.CONFIG_ERROR
    if args.max_concurrency < 1:
        print("olg: --max-concurrency must be at least 1", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    if args.database_url and not is_postgres_url(args.database_url):
        print("olg: --database-url must start with postgresql:// or postgres://", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    if args.database_url and (problem := postgres_settings_problem()):
        print(f"olg: {problem}", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    queue = queue_settings(args)
    if isinstance(queue, str):
        print(f"olg: {queue}", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    if args.workers < 0 or ((args.workers or args.api_only) and queue is None):
        print(
            "olg: --workers and --api-only need queue mode (--database-url and --redis-url)",
            file=sys.stderr,
        )
        return exit_codes.CONFIG_ERROR
    if queue is not None and encryption is not None:
        print(
            f"olg: config error: {config.path}: `encryption`: not supported in queue mode "
            "(--redis-url) yet; serve without --redis-url",
            file=sys.stderr,
        )
        return exit_codes.CONFIG_ERROR
    if args.shutdown_grace < 0:
        print("olg: --shutdown-grace must be 0 or more seconds", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    if queue is not None:
        from open_langgraph.preflight import queue_mode_problem

        if problem := queue_mode_problem(args.database_url, queue.redis_url):
            print(f"olg: {problem.message}", file=sys.stderr)
            return problem.exit_code
    # Before anything reads or recovers the database (a bad config is reported first,
    # whatever else runs); held until this process ends. In queue mode many processes
    # share the database by design, and leases, not a lock, keep them apart.
    database_lock, exit_code = (contextlib.nullcontext(), 0) if queue else _lock_database(args)
    if database_lock is None:
        return exit_code
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        if queue is None:
            database_lock.release()
        print(cannot_listen(args.host, args.port, exc), file=sys.stderr)
        return exit_codes.ADDRESS_IN_USE

    from open_langgraph.observability.logs import configure_logging

    configure_logging(args.log_level, args.log_format)
    warn_off([store.index_off])
    from open_langgraph.genui import build_generative_ui

    # Before serving, so `/ui/...` answers from the first request (a WARNING if it cannot).
    generative_ui = build_generative_ui(config)
    for note in config.ignored:
        logging.getLogger("open_langgraph").warning("%s: %s", config.path.name, note)
    if auth is None and not is_loopback_host(args.host):
        logging.getLogger("open_langgraph").warning(
            "serving on %s without authentication: anyone who can reach this address can "
            "read and change every thread and run; set `auth.path` in %s",
            args.host,
            config.path.name,
        )
    from open_langgraph.server.app import ServerSettings, create_app, served_app

    settings = ServerSettings(
        config=config,
        db_path=Path(args.db),
        database_url=args.database_url,
        max_concurrency=args.max_concurrency,
        host=args.host,
        auth=auth,
        queue=queue,
        worker_in_process=not (args.workers or args.api_only),
        store=store,
        encryption=encryption,
        generative_ui=generative_ui,
        custom_app=custom_app,
    )
    from open_langgraph.server.loopback import (
        LOOPBACK_TOKEN_ENV,
        WorkerRequests,
        connect_sdk_loopback,
        loopback_token,
    )

    api = create_app(settings, graphs)
    connect_sdk_loopback(api)  # get_client() with no URL, in graphs and custom routes
    app = served_app(api, settings)
    if queue is not None and (args.workers or os.environ.get(LOOPBACK_TOKEN_ENV)):
        # ... and in the graphs of the workers, whose requests carry the token.
        app = WorkerRequests(app, loopback_token())
    _tune_garbage_collector()
    print(
        f"olg: serving {', '.join(graphs.graph_ids)} on http://{args.host}:{args.port} "
        f"(database {database_label(args.database_url, Path(args.db))})",
        file=sys.stderr,
        flush=True,
    )
    stop_on_signals()
    started = False
    try:
        workers = None
        if args.workers:  # told this server's address, for their graphs' get_client()
            api_url = http_url(sock, config.http.mount_prefix or "", reachable=True)
            workers = worker_processes(worker_argv(args, api_url), args.workers)
        with workers or contextlib.nullcontext():
            started = run_uvicorn(
                app,
                sock,
                host=args.host,
                port=args.port,
                log_level=args.log_level,
                log_format=args.log_format,
                shutdown_grace=args.shutdown_grace,
            )
    except SystemExit as stop:
        # A signal's SystemExit(0) ends a server that ran; uvicorn exits non-zero when the
        # app's start-up failed.
        started = stop.code in (None, 0)
    finally:
        if queue is None:
            database_lock.release()
    if not started:
        print("olg: start-up failed (the error is above); nothing was served", file=sys.stderr)
        return exit_codes.STARTUP_FAILED
    return 0


def _custom_app(config: AppConfig) -> Starlette | None:
    """The config's `http.app`, imported (after `dependencies` are on `sys.path`); None
    without one. Only then is the server's app module imported here."""
    if config.http.app is None:
        return None
    from open_langgraph.server.custom_app import load_custom_app

    return load_custom_app(config)


def _lock_database(args: argparse.Namespace) -> tuple[Any, int]:
    """The serving lock of the chosen database, or None and the exit code to stop with."""
    if not args.database_url:
        from open_langgraph.storage.sqlite.process_lock import DatabaseInUse, DatabaseLock

        try:
            return DatabaseLock.acquire(args.db), 0
        except DatabaseInUse as exc:
            print(f"olg: {exc}", file=sys.stderr)
            return None, exit_codes.DATABASE_IN_USE
    try:
        import psycopg

        from open_langgraph.storage.postgres import process_lock
    except ImportError:
        print(f"olg: {needs_extra('PostgreSQL', 'postgres')}", file=sys.stderr)
        return None, exit_codes.CONFIG_ERROR
    try:
        return process_lock.DatabaseLock.acquire(args.database_url), 0
    except process_lock.DatabaseInUse as exc:
        print(f"olg: {exc}", file=sys.stderr)
        return None, exit_codes.DATABASE_IN_USE
    except psycopg.Error as exc:
        print(_cannot_open(args.database_url, exc), file=sys.stderr)
        return None, exit_codes.UNREACHABLE


def _cannot_open(database_url: str, exc: Exception) -> str:
    """One line naming the database (without its password) and the server's last word."""
    from open_langgraph.storage.backend import database_label

    lines = str(exc).strip().splitlines()
    reason = lines[0].strip() if lines else type(exc).__name__
    return f"olg: cannot open {database_label(database_url, Path())}: {reason}"


def _db(args: argparse.Namespace) -> int:
    """`olg db upgrade|current`: the PostgreSQL schema version, without starting a server."""
    import asyncio

    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from langgraph.store.postgres.aio import AsyncPostgresStore

        from open_langgraph.storage.postgres import connection_kwargs, migrations
    except ImportError:
        print(f"olg: {needs_extra('olg db', 'postgres')}", file=sys.stderr)
        return exit_codes.CONFIG_ERROR
    from open_langgraph.storage.backend import is_postgres_url, postgres_settings_problem

    if not args.database_url or not is_postgres_url(args.database_url):
        print(
            "olg: olg db needs --database-url or DATABASE_URI (postgresql://...)", file=sys.stderr
        )
        return exit_codes.CONFIG_ERROR
    if problem := postgres_settings_problem():
        print(f"olg: {problem}", file=sys.stderr)
        return exit_codes.CONFIG_ERROR

    async def run() -> str:
        async with await psycopg.AsyncConnection.connect(
            args.database_url, **connection_kwargs(args.database_url)
        ) as conn:
            if args.action == "upgrade":

                async def langgraph_tables() -> None:
                    # LangGraph's checkpoint and store tables too, with their own migrations
                    # (a store index's vector table waits for a server that has its config).
                    await AsyncPostgresSaver(conn).setup()
                    await AsyncPostgresStore(conn).setup()

                applied = await migrations.upgrade(conn, then=langgraph_tables)
                done = ", ".join(map(str, applied)) if applied else "nothing to apply"
                return f"applied: {done}; at version {await migrations.current(conn)}"
            version = await migrations.current(conn)
            state = "up to date" if version == migrations.LATEST else "run olg db upgrade"
            shown = "none" if version is None else version
            return f"{shown} (latest {migrations.LATEST}, {state})"

    try:
        print(asyncio.run(run()))
    except psycopg.Error as exc:
        print(_cannot_open(args.database_url, exc), file=sys.stderr)
        return exit_codes.UNREACHABLE
    return 0


def _extra_command(args: argparse.Namespace) -> int:
    """`olg webshop`, `olg eval`, `olg replay`: commands whose packages come as extras."""
    if args.command == "webshop":
        from open_langgraph.envs.webshop.site import main as webshop_main

        return webshop_main(args.webshop_args)
    if args.command == "eval":
        from open_langgraph.evals.cli import eval_main

        return eval_main(args.eval_args)
    if args.command == "replay":
        from open_langgraph.evals.cli import replay_main

        return replay_main(args.replay_args)
    return 1  # pragma: no cover - only called for the commands above


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "db":
        return _db(args)
    if args.command == "worker":
        return worker_main(args)
    if args.command in ("webshop", "eval", "replay"):
        from open_langgraph.extras import extra_for, install_hint

        try:
            return _extra_command(args)
        except ModuleNotFoundError as exc:
            if (extra := extra_for(exc.name)) is None:
                raise
            print(
                f"olg: olg {args.command} needs the {extra} extra (no module named "
                f"{exc.name!r}); {install_hint(extra)}",
                file=sys.stderr,
            )
            return exit_codes.CONFIG_ERROR
    if args.command == "models":
        from open_langgraph.models_cli import models_main

        return models_main(args.models_args)
    if args.command == "run":
        from open_langgraph.run_cli import run_main

        return run_main(args.run_args)
    return 1  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
