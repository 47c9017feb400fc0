"""The `olg` command line."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from open_langgraph import __version__
from open_langgraph.config import ConfigError, find_config_file, load_config

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8123
DEFAULT_DB = Path(".olg") / "olg.db"
EXIT_CONFIG_ERROR = 2
EXIT_DATABASE_IN_USE = 4  # 3 is uvicorn's own start-up failure


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olg", description="Open LangGraph agent server")
    parser.add_argument("--version", action="version", version=f"olg {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the configured graphs over HTTP")
    serve.add_argument("--host", default=os.environ.get("OLG_HOST", DEFAULT_HOST))
    serve.add_argument("--port", type=int, default=int(os.environ.get("OLG_PORT", DEFAULT_PORT)))
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
        "--max-concurrency",
        type=int,
        default=int(os.environ.get("OLG_MAX_CONCURRENCY", "32")),
        help="runs executed at once in this process",
    )
    serve.add_argument("--log-level", default=os.environ.get("OLG_LOG_LEVEL", "info"))
    webshop = commands.add_parser(
        "webshop", help="the WebShop environment", description="olg webshop serve --help"
    )
    webshop.add_argument("webshop_args", nargs=argparse.REMAINDER)
    evaluate = commands.add_parser(
        "eval", help="evaluate an agent", description="olg eval webshop --help"
    )
    evaluate.add_argument("eval_args", nargs=argparse.REMAINDER)
    replay = commands.add_parser("replay", help="replay a recorded episode without a model")
    replay.add_argument("replay_args", nargs=argparse.REMAINDER)
    run = commands.add_parser(
        "run",
        help="run a served graph, answering its questions here",
        description='olg run GRAPH "input" [--url URL] [--context JSON] [--input-json JSON]',
    )
    run.add_argument("run_args", nargs=argparse.REMAINDER)
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
    import uvicorn

    from open_langgraph.auth.loading import load_auth
    from open_langgraph.runtime.graphs import GraphRegistry
    from open_langgraph.server.app import ServerSettings, create_app
    from open_langgraph.server.security import is_loopback_host
    from open_langgraph.storage.sqlite.process_lock import DatabaseInUse, DatabaseLock

    try:
        config = load_config(find_config_file(args.config))
        for key, value in config.env.items():
            os.environ.setdefault(key, value)
        graphs = GraphRegistry(config)  # puts `dependencies` on sys.path, which auth may need
        # A config asking for auth that cannot be loaded is refused, never served openly.
        auth = load_auth(config)
    except ConfigError as exc:
        print(f"olg: config error: {exc}", file=sys.stderr)
        return EXIT_CONFIG_ERROR
    if args.max_concurrency < 1:
        print("olg: --max-concurrency must be at least 1", file=sys.stderr)
        return EXIT_CONFIG_ERROR
    try:
        # Before anything reads or recovers the database (a bad config is reported first,
        # whatever else runs); held until this process ends.
        database_lock = DatabaseLock.acquire(args.db)
    except DatabaseInUse as exc:
        print(f"olg: {exc}", file=sys.stderr)
        return EXIT_DATABASE_IN_USE

    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if auth is None and not is_loopback_host(args.host):
        logging.getLogger("open_langgraph").warning(
            "serving on %s without authentication: anyone who can reach this address can "
            "read and change every thread and run; set `auth.path` in %s",
            args.host,
            config.path.name,
        )
    settings = ServerSettings(
        config=config,
        db_path=Path(args.db),
        max_concurrency=args.max_concurrency,
        host=args.host,
        auth=auth,
    )
    app = create_app(settings, graphs)
    _tune_garbage_collector()
    print(
        f"olg: serving {', '.join(graphs.graph_ids)} on http://{args.host}:{args.port} "
        f"(database {args.db})",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning" if args.log_level.lower() == "info" else args.log_level.lower(),
        access_log=False,
        loop="auto",
        http="auto",
        # Open SSE streams would otherwise hold a shutdown until their runs end; after this
        # grace period the lifespan stops the runs (stored as errors, queued ones kept).
        timeout_graceful_shutdown=5,
    )
    database_lock.release()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "webshop":
        from open_langgraph.envs.webshop.site import main as webshop_main

        return webshop_main(args.webshop_args)
    if args.command == "eval":
        from open_langgraph.evals.cli import eval_main

        return eval_main(args.eval_args)
    if args.command == "replay":
        from open_langgraph.evals.cli import replay_main

        return replay_main(args.replay_args)
    if args.command == "run":
        from open_langgraph.run_cli import run_main

        return run_main(args.run_args)
    return 1  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
