"""Log lines a machine can read (`--log-format json`), with the run's ids on every line
logged while a run executes.

The ids come from a context variable set for the run's task (and so for every task and
callback it starts), not from each call site. Secrets stay out either way: the server's
handlers carry `redact.RedactingFilter`, which rewrites the message before any formatter
sees it, and the JSON lines hold only the message, the logger, the level, the time, the
traceback (redacted too), the run's ids and, on request lines, the request's `http` fields.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import logging
from collections.abc import Iterator

import orjson

from open_langgraph.observability.run_context import RunIdentity

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_RUN_FIELDS = ("run_id", "thread_id", "assistant_id")

_current_run: contextvars.ContextVar[RunIdentity | None] = contextvars.ContextVar(
    "olg_current_run", default=None
)


@contextlib.contextmanager
def logging_run(identity: RunIdentity) -> Iterator[None]:
    """Lines logged inside the block (and in tasks started from it) carry the run's ids."""
    token = _current_run.set(identity)
    try:
        yield
    finally:
        _current_run.reset(token)


class RunFields(logging.Filter):
    """Puts the current run's ids on the record (`record.run_id`, ...), or nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        identity = _current_run.get()
        if identity is not None and not hasattr(record, "run_id"):
            record.run_id = identity.run_id
            record.thread_id = identity.thread_id
            record.assistant_id = identity.assistant_id
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in _RUN_FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        # A request line's method, path, status, ms and chosen headers (access_log.py).
        http = getattr(record, "http", None)
        if isinstance(http, dict):
            line["http"] = http
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return orjson.dumps(line, default=str).decode()


class TextWithRun(logging.Formatter):
    """The plain format, with `[run <id>]` after the logger when a run is executing."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        run_id = getattr(record, "run_id", None)
        if run_id is None:
            return text
        head, sep, rest = text.partition(": ")
        return f"{head} [run {run_id}]{sep}{rest}" if sep else text


def configure_logging(level: str, log_format: str) -> None:
    """The root handler: `text` (the default) or `json`, with the run's ids either way."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextWithRun(TEXT_FORMAT))
    handler.addFilter(RunFields())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
