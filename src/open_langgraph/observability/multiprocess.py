"""Prometheus metrics shared by several processes (`olg serve --workers N`, `olg worker`).

prometheus-client keeps each process's values in memory-mapped files under
`PROMETHEUS_MULTIPROC_DIR` when that is set *before* it is imported; `/metrics` then sums
the files of every process. A single process keeps its values in memory, which is faster, so
the directory is only made when there will be other processes to add up.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

ENV = "PROMETHEUS_MULTIPROC_DIR"


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def prepare(*, spawns_workers: bool) -> None:
    """Choose the metrics store before prometheus-client is imported.

    A directory the operator set (to add up `olg worker`s started separately on the same
    host) is used as is; with `--workers`, a fresh temporary one is made and inherited by the
    children, and removed when this process ends.
    """
    if enabled() or not spawns_workers:
        return
    directory = tempfile.mkdtemp(prefix="olg-metrics-")
    os.environ[ENV] = directory
    atexit.register(shutil.rmtree, directory, ignore_errors=True)


def mark_this_process_dead() -> None:
    """Drop this process's live gauges (open streams, runs executing) when it ends: a
    stopped worker must not count as still running anything."""
    if not enabled():
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(os.getpid())
