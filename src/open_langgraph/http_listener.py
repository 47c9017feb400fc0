"""Where an `olg` HTTP server listens and how uvicorn runs it: shared by `olg serve` and
`olg models serve` so both take the same options and fail the same way.

The socket is bound before the app is built, so a port in use is one line and its own exit code
rather than a log line from a server that then exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8123


def add_listen_arguments(parser: argparse.ArgumentParser) -> None:
    """`--host`, `--port` and `--log-level`, each defaulting to its `OLG_*` variable."""
    parser.add_argument("--host", default=os.environ.get("OLG_HOST", DEFAULT_HOST))
    parser.add_argument("--port", type=int, default=int(os.environ.get("OLG_PORT", DEFAULT_PORT)))
    parser.add_argument("--log-level", default=os.environ.get("OLG_LOG_LEVEL", "info"))


def listen(host: str, port: int) -> socket.socket:
    """The bound socket uvicorn will serve on (inheritable, for worker processes)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def http_url(sock: socket.socket, path: str = "", *, reachable: bool = False) -> str:
    """`http://` the address `sock` is bound to, an IPv6 one in brackets. `reachable`: as
    another process on this machine reaches it, a wildcard bind on the loopback address."""
    host, port = sock.getsockname()[:2]
    if reachable:
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"


def cannot_listen(host: str, port: int, exc: OSError) -> str:
    """The one line for a socket that could not be bound, naming the fix."""
    return (
        f"olg: cannot listen on {host}:{port}: {exc.strerror or exc}; another server may be "
        "using it: stop it or choose another --port"
    )


def run_uvicorn(
    app: Any,
    sock: socket.socket,
    *,
    host: str,
    port: int,
    log_level: str,
    log_format: str = "text",
    shutdown_grace: float | None = None,
) -> bool:
    """Serves until stopped; whether the app started (its lifespan ran)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        # uvicorn's INFO lines repeat ours; its warnings and errors still show.
        log_level="warning" if log_level.lower() == "info" else log_level.lower(),
        # JSON logs: uvicorn's loggers go through our root handler instead of its own.
        **({"log_config": None} if log_format == "json" else {}),
        access_log=False,
        loop="auto",
        http="auto",
        # Open SSE streams would otherwise hold a shutdown until their runs end; after this
        # grace period the lifespan stops the runs (stored as errors, queued ones kept).
        timeout_graceful_shutdown=shutdown_grace,
    )
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return bool(server.started)


def stop_on_signals() -> None:
    """SIGTERM and SIGINT end the process by SystemExit(0), so `finally` blocks (worker
    children, database locks) run on the way out. While uvicorn serves, its own handlers take
    the signal for a graceful shutdown, then raise it again here once done."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _exit_on_signal)


def _exit_on_signal(signum: int, frame: Any) -> None:
    raise SystemExit(0)
