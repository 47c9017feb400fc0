"""Work a first request would otherwise pay for, done while the server starts.

FastAPI (0.12x and later) resolves each included router's routes (their dependencies,
parameter models, body limits) on the first request that walks past them, and the first
file response reads the system's MIME table and imports anyio's asyncio backend for its
worker thread: measured here, the first `GET /ui/` after
start-up took 75 ms against 2.6 ms for the next, which put a cold browser's first paint of
the web UI over its budget. Resolving them before the server listens moves that cost into
start-up, once. On a FastAPI without lazy routers there is nothing to resolve.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable

import anyio.to_thread


def resolve_routes(routes: Iterable[object]) -> int:
    """Resolve every lazily built router under `routes`; returns how many there were.

    FastAPI's included routers expose `effective_candidates()` and
    `effective_low_priority_routes()`, each cached after its first call: calling them here is
    what the first matching request would do.
    """
    resolved = 0
    for route in routes:
        candidates = getattr(route, "effective_candidates", None)
        if not callable(candidates):
            continue
        resolved += 1 + resolve_routes(candidates())
        low_priority = getattr(route, "effective_low_priority_routes", None)
        if callable(low_priority):
            low_priority()
    return resolved


async def warm_up(routes: Iterable[object], *, serves_files: bool) -> int:
    """Resolve the app's routes and, when it serves files (the web UI), what a file response
    needs: the MIME table and a worker thread for reading."""
    if serves_files:
        if not mimetypes.inited:
            mimetypes.init()
        await anyio.to_thread.run_sync(lambda: None)
    return resolve_routes(routes)
