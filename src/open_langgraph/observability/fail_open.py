"""Tracing that fails open: an unreachable collector costs one log line, never a run.

Spans are exported by the SDKs' background threads, so a run never waits on a collector;
what is left is their logging, which would repeat on every batch. `LogOnce` lets the first
export failure of a destination through (with what to check) and drops the repeats.
"""

from __future__ import annotations

import logging

# The loggers the OpenTelemetry exporters and the Langfuse SDK report export failures on.
EXPORT_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.sdk.trace.export",
    "langfuse",
)


class LogOnce(logging.Filter):
    """Passes the first warning or error, then nothing above INFO."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self._what = what
        self._told = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        if self._told:
            return False
        self._told = True
        record.msg = f"{self._what} (tracing fails open; repeats not logged): {record.getMessage()}"
        record.args = None
        return True


def log_export_failures_once(what: str) -> None:
    only_once = LogOnce(what)
    for name in EXPORT_LOGGERS:
        logging.getLogger(name).addFilter(only_once)
