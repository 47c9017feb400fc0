"""Queue mode on the command line: `olg worker`, and `olg serve --redis-url [--workers N]`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from open_langgraph import exit_codes
from open_langgraph.runtime.queue_settings import QueueSettings
from open_langgraph.server.loopback import API_URL_ENV, LOOPBACK_TOKEN_ENV

if TYPE_CHECKING:
    from open_langgraph.config import AppConfig
    from open_langgraph.observability.metrics_server import MetricsServer
    from open_langgraph.runtime.graphs import GraphRegistry
    from open_langgraph.storage.base import StoreSettings

EXIT_CONFIG_ERROR = exit_codes.CONFIG_ERROR
#: Set for the workers `olg serve --workers` starts: they stop when that server is gone,
#: however it ended (kill -9 included), rather than run on unsupervised.
PARENT_PID_ENV = "OLG_PARENT_PID"
#: `olg worker --metrics-port`'s variable. Not passed to `olg serve --workers` children:
#: they would all ask for the one port, and the server's /metrics adds them up already.
METRICS_PORT_ENV = "OLG_METRICS_PORT"
logger = logging.getLogger("open_langgraph.worker")


def add_queue_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = QueueSettings(redis_url="")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URI") or None,
        help="redis://... with --database-url: queue mode, runs executed by worker processes "
        "(default: $REDIS_URI)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=float(os.environ.get("OLG_LEASE_SECONDS", defaults.lease_seconds)),
        help="a silent worker's runs resume elsewhere after this (queue mode)",
    )
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=int(os.environ.get("OLG_MAX_ATTEMPTS", defaults.max_attempts)),
        help="attempts of a run whose workers die before it ends error (queue mode)",
    )
    parser.add_argument(
        "--grace-seconds",
        type=float,
        default=float(os.environ.get("OLG_GRACE_SECONDS", defaults.grace_seconds)),
        help="on SIGTERM, time a worker gives its runs before handing them back",
    )


def add_log_format_argument(parser: argparse.ArgumentParser) -> None:
    from open_langgraph.observability.logs import FORMATS

    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        default=os.environ.get("OLG_LOG_FORMAT", "text"),
        help="text (default) or json: one JSON object per line, with run_id / thread_id / "
        "assistant_id on the lines of a run (default: $OLG_LOG_FORMAT)",
    )


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


def _api_url(text: str) -> str:
    """Checked at start-up: a bad address would otherwise surface only when a graph calls
    `get_client()`, as httpx's error inside that run."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an http(s) URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an http(s) URL of the API, e.g. http://api:8123"
        )
    if parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{text!r}: give the API's address without ? or #")
    return text.strip()


def add_api_url_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api-url",
        type=_api_url,
        default=os.environ.get(API_URL_ENV) or None,
        help="the API's address, for get_client() with no URL in this worker's graphs; "
        f"give it the API's ${LOOPBACK_TOKEN_ENV} too (default: ${API_URL_ENV})",
    )


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics-port",
        type=_port,
        default=os.environ.get(METRICS_PORT_ENV) or None,
        help="serve this worker's Prometheus metrics (runs, durations, model tokens and "
        "seconds) on http://HOST:PORT/metrics, for workers the API's /metrics cannot see "
        f"(default: ${METRICS_PORT_ENV}; none)",
    )
    parser.add_argument(
        "--metrics-host",
        default=os.environ.get("OLG_METRICS_HOST") or os.environ.get("OLG_HOST") or "127.0.0.1",
        help="address of --metrics-port (default: $OLG_METRICS_HOST, else $OLG_HOST, else "
        "127.0.0.1)",
    )


def queue_settings(args: argparse.Namespace) -> QueueSettings | str | None:
    """The queue settings the arguments ask for, None without Redis, or what is wrong."""
    if not args.redis_url:
        return None
    if not args.database_url:
        return "--redis-url (queue mode) needs PostgreSQL: give --database-url too"
    if not args.redis_url.startswith(("redis://", "rediss://", "unix://")):
        return "--redis-url must start with redis://, rediss:// or unix://"
    if args.lease_seconds < 1 or args.max_attempts < 1 or args.grace_seconds < 0:
        return "--lease-seconds and --max-attempts must be at least 1, --grace-seconds >= 0"
    return QueueSettings(
        redis_url=args.redis_url,
        lease_seconds=args.lease_seconds,
        max_attempts=args.max_attempts,
        grace_seconds=args.grace_seconds,
    )


@contextlib.contextmanager
def worker_processes(argv: list[str], count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` `olg worker` children for the length of the block, stopped with SIGTERM
    (so they hand their runs back) when it ends."""
    env = {**os.environ, PARENT_PID_ENV: str(os.getpid())}
    env.pop(METRICS_PORT_ENV, None)
    children = [
        subprocess.Popen([sys.executable, "-m", "open_langgraph.cli", "worker", *argv], env=env)
        for _ in range(count)
    ]
    try:
        yield children
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()


def worker_argv(args: argparse.Namespace, api_url: str) -> list[str]:
    """The `olg worker` arguments that give a child this server's settings."""
    argv = [
        "--api-url",
        api_url,
        "--database-url",
        args.database_url,
        "--redis-url",
        args.redis_url,
        "--max-concurrency",
        str(args.max_concurrency),
        "--lease-seconds",
        str(args.lease_seconds),
        "--max-attempts",
        str(args.max_attempts),
        "--grace-seconds",
        str(args.grace_seconds),
        "--log-level",
        args.log_level,
        "--log-format",
        args.log_format,
    ]
    if args.config:
        argv += ["--config", args.config]
    return argv


def worker_main(args: argparse.Namespace) -> int:
    """`olg worker`: execute queued runs until SIGTERM / SIGINT."""
    from open_langgraph.config import ConfigError, find_config_file, load_config
    from open_langgraph.config_errors import print_config_error

    settings = queue_settings(args)
    if not isinstance(settings, QueueSettings):
        problem = settings or "olg worker needs --redis-url and --database-url"
        print(f"olg: {problem}", file=sys.stderr)
        return EXIT_CONFIG_ERROR
    try:  # before the seconds of importing LangGraph, as `olg serve` does
        config = load_config(find_config_file(args.config))
    except ConfigError as exc:
        print_config_error(exc)
        return EXIT_CONFIG_ERROR
    for key, value in config.env.items():
        os.environ.setdefault(key, value)
    from open_langgraph.preflight import queue_mode_problem
    from open_langgraph.runtime.graphs import GraphRegistry
    from open_langgraph.server.loopback import defer_sdk_loopback
    from open_langgraph.storage.backend import postgres_settings_problem
    from open_langgraph.store_embeddings import store_settings

    defer_sdk_loopback()  # before the graphs make their clients
    try:
        graphs = GraphRegistry(config)
        store = store_settings(config.path, config.store, sqlite=False)
        if config.encryption_path is not None:
            raise ConfigError(
                config.path, "encryption", "not supported in queue mode (olg worker) yet"
            )
        metrics_server = _metrics_server(args, config)
    except ConfigError as exc:
        print_config_error(exc)
        return EXIT_CONFIG_ERROR
    except OSError as exc:
        print(
            f"olg: cannot serve metrics on {args.metrics_host}:{args.metrics_port}: "
            f"{exc.strerror or exc}",
            file=sys.stderr,
        )
        return EXIT_CONFIG_ERROR
    if problem := postgres_settings_problem():
        print(f"olg: {problem}", file=sys.stderr)
        return EXIT_CONFIG_ERROR
    if unready := queue_mode_problem(args.database_url, settings.redis_url):
        print(f"olg: {unready.message}", file=sys.stderr)
        return unready.exit_code
    from open_langgraph.extras import warn_off
    from open_langgraph.observability.logs import configure_logging

    configure_logging(args.log_level, args.log_format)
    warn_off([store.index_off])
    _connect_loopback(args.api_url)
    # The event loop `olg serve` runs on (uvloop where installed, as uvicorn picks it): on
    # asyncio's own loop a worker spent a tenth of its CPU in the loop itself.
    from uvicorn.loops.auto import auto_loop_factory

    with asyncio.Runner(loop_factory=auto_loop_factory()) as runner:
        runner.run(
            _work(
                args.database_url,
                settings,
                graphs,
                config,
                args.max_concurrency,
                store,
                metrics_server,
            )
        )
    return 0


def _connect_loopback(api_url: str | None) -> None:
    """`get_client()` with no URL in this worker's graphs: their requests go to the API over
    HTTP, marked in-process by the token the API shares."""
    from open_langgraph.server.loopback import ForwardedToApi, connect_sdk_loopback, no_api_known

    token = os.environ.get(LOOPBACK_TOKEN_ENV)
    connect_sdk_loopback(ForwardedToApi(api_url, token) if api_url else no_api_known)


def _metrics_server(args: argparse.Namespace, config: AppConfig) -> MetricsServer | None:
    """The `--metrics-port` server, its socket bound now (a port in use is an OSError before
    any run is taken), behind the config's auth like the API's `/metrics`."""
    if args.metrics_port is None:
        return None
    from open_langgraph.auth.loading import load_auth
    from open_langgraph.observability.metrics_server import MetricsServer, listen, metrics_app
    from open_langgraph.readiness import Readiness

    auth = load_auth(config)
    sock = listen(args.metrics_host, args.metrics_port)
    readiness = Readiness()
    app = metrics_app(config, args.metrics_host, auth, readiness)
    return MetricsServer(
        app, sock, args.log_level, json_logs=args.log_format == "json", readiness=readiness
    )


async def _work(
    database_url: str,
    settings: QueueSettings,
    graphs: GraphRegistry,
    config: AppConfig,
    concurrency: int,
    store: StoreSettings,
    metrics_server: MetricsServer | None,
) -> None:
    from open_langgraph.observability import multiprocess
    from open_langgraph.observability import runs as observed_runs
    from open_langgraph.redact import install_log_redaction
    from open_langgraph.runtime.queue_mode import open_bus, running_worker
    from open_langgraph.runtime.webhooks import WebhookSender
    from open_langgraph.storage.backend import open_storage
    from open_langgraph.storage.checkpoint_serde import checkpoint_serializer

    install_log_redaction()
    observed_runs.install()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    watcher = asyncio.create_task(_stop_when_orphaned(stop))
    webhooks = WebhookSender(config.webhooks)
    async with (
        open_storage(
            database_url,
            Path(),
            store,
            serde=checkpoint_serializer(config.checkpointer.serde),
        ) as storage,
        open_bus(settings, database_url) as bus,
    ):
        graphs.bind(storage.checkpointer, storage.store)
        if metrics_server is not None:
            from open_langgraph.readiness import Readiness

            metrics_server.readiness.use(Readiness.of(storage, bus))
        async with (
            running_worker(
                storage,
                bus,
                graphs,
                settings,
                concurrency=concurrency,
                webhooks=webhooks,
                run_timeout_seconds=config.limits.run_timeout_seconds,
            ),
            metrics_server or contextlib.nullcontext(),
        ):
            if metrics_server is not None:
                print(
                    f"olg: worker metrics on {metrics_server.url}",
                    file=sys.stderr,
                    flush=True,
                )
            print("olg: worker ready", file=sys.stderr, flush=True)
            await stop.wait()
    watcher.cancel()
    await webhooks.aclose()
    observed_runs.uninstall()
    multiprocess.mark_this_process_dead()


async def _stop_when_orphaned(stop: asyncio.Event) -> None:
    parent = os.environ.get(PARENT_PID_ENV)
    if not parent:
        return
    while os.getppid() == int(parent):
        await asyncio.sleep(1.0)
    logger.warning("the olg serve that started this worker is gone: stopping")
    stop.set()
