"""Langfuse tracing (`LANGFUSE_LOGGING=true`): the official SDK's LangChain callback handler on
every run, under one observation per run whose trace id is the run id.

The trace carries the run, thread (as the Langfuse session), assistant and graph ids and the
run's user; model calls become generations with their token usage, tools become tool spans.
The SDK exports over OTLP/HTTP from a background thread to `LANGFUSE_HOST` (or
`LANGFUSE_BASE_URL`), on a tracer provider of its own, so it neither sees nor disturbs the
server's OpenTelemetry spans (`otel.py`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from open_langgraph.extras import install_command
from open_langgraph.observability.fail_open import log_export_failures_once
from open_langgraph.observability.run_context import RunIdentity

logger = logging.getLogger(__name__)

_TRUE = {"1", "true", "yes", "on"}


def requested() -> bool:
    return os.environ.get("LANGFUSE_LOGGING", "").strip().lower() in _TRUE


class LangfuseTracing:
    """The process's Langfuse client; `run()` traces one run."""

    def __init__(self) -> None:
        from langfuse import Langfuse
        from opentelemetry.sdk.trace import TracerProvider

        host = os.environ.get("LANGFUSE_BASE_URL") or os.environ.get("LANGFUSE_HOST")
        self._client = Langfuse(base_url=host, tracer_provider=TracerProvider())
        log_export_failures_once(
            "/api/public/otel", f"Langfuse at {host or 'the default host'} is not reachable"
        )

    @contextlib.contextmanager
    def run(self, identity: RunIdentity) -> Iterator[list[Any]]:
        """The callbacks to run the graph with, inside the run's trace."""
        from langfuse import propagate_attributes
        from langfuse.langchain import CallbackHandler

        ids = identity.attributes()
        with (
            self._client.start_as_current_observation(
                trace_context={"trace_id": identity.run_id.replace("-", "")},
                name=identity.graph_id or "run",
                as_type="agent",
                metadata=ids,
            ),
            propagate_attributes(
                session_id=identity.thread_id,
                user_id=identity.user_id,
                trace_name=identity.graph_id or None,
                metadata=ids,
            ),
        ):
            yield [CallbackHandler()]

    def call_handler(self) -> Any:
        """A callback handler for a model call outside any run (`/v1`): its own trace."""
        from langfuse.langchain import CallbackHandler

        return CallbackHandler()

    def shutdown(self) -> None:
        """Send what is buffered (bounded by the SDK's timeout) and stop its threads."""
        try:
            self._client.shutdown()
        except Exception as exc:  # tracing never stops a shutdown
            logger.warning("Langfuse shutdown failed: %s", type(exc).__name__)


def open_langfuse() -> LangfuseTracing | None:
    """The client when `LANGFUSE_LOGGING` asks for one; None (with one log line) when the
    SDK is missing or refuses its settings, so the server serves untraced."""
    if not requested():
        return None
    try:
        return LangfuseTracing()
    except ImportError:
        logger.warning(
            "LANGFUSE_LOGGING is on but the langfuse SDK is not installed: %s; runs are not traced",
            install_command("observability"),
        )
    except Exception as exc:
        logger.warning("Langfuse tracing is off: %s: %s", type(exc).__name__, exc)
    return None
