"""Tracing that fails open: an unreachable collector costs one log line, never a run.

Spans are exported by the SDKs' background threads, so a run never waits on a collector;
what is left is their logging, which would repeat on every batch and retry. One filter on
the exporters' loggers lets the first failure of each destination through, saying what is
unreachable, and drops the repeats.
"""

from __future__ import annotations

import logging
import threading

# The loggers the OpenTelemetry exporters and the Langfuse SDK report export failures on.
EXPORT_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.sdk.trace.export",
    "opentelemetry.sdk._shared_internal",
    "langfuse",
)
_ANY = ""


class ExportFailures(logging.Filter):
    """Passes the first warning or error per destination, then nothing above INFO for it.

    A destination is told apart by a marker its failures mention (its URL path), so that
    Langfuse and an OpenTelemetry collector down at once are both reported."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._destinations: dict[str, str] = {}
        self._told: set[str] = set()

    def add(self, marker: str, what: str) -> None:
        with self._lock:
            self._destinations[marker] = what

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        message = record.getMessage()
        with self._lock:
            marker = next((m for m in self._destinations if m and m in message), _ANY)
            if marker in self._told:
                return False
            self._told.add(marker)
            what = self._destinations.get(marker, "exporting traces failed")
        record.msg = f"{what} (tracing fails open; repeats not logged): {message}"
        record.args = None
        return True


_filter = ExportFailures()
_installed = False


def log_export_failures_once(marker: str, what: str) -> None:
    """Report the first export failure mentioning `marker` as `what`, and no repeat."""
    global _installed
    _filter.add(marker, what)
    if not _installed:
        _installed = True
        for name in EXPORT_LOGGERS:
            logging.getLogger(name).addFilter(_filter)
