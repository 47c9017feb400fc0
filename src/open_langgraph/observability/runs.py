"""Observing runs where they execute (the API process, or a queue worker): metrics for each
start and end, the run's ids on its log lines, its spans when tracing is configured.

The tracers are per process, like the SDKs behind them: `install()` opens what the
environment asks for when the server or worker starts, `uninstall()` flushes it at exit, and
every run manager of the process uses them through `observe()`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from open_langgraph.observability import metrics
from open_langgraph.observability.logs import logging_run
from open_langgraph.observability.model_calls import ModelCallMetrics
from open_langgraph.observability.run_context import RunIdentity
from open_langgraph.observability.run_trace import RunTrace

logger = logging.getLogger(__name__)


class _Tracers:
    def __init__(self) -> None:
        self.langfuse: Any = None
        self.otel: Any = None


_tracers = _Tracers()
_METRICS = metrics.enabled()


def install() -> None:
    """Open Langfuse and OpenTelemetry if the environment asks (each imported only then)."""
    from open_langgraph.observability.langfuse import open_langfuse
    from open_langgraph.observability.otel import open_otel

    if _tracers.langfuse is None:
        _tracers.langfuse = open_langfuse()
    if _tracers.otel is None:
        _tracers.otel = open_otel()


def otel_tracing() -> Any:
    """The OpenTelemetry tracing of this process, or None (for the request spans)."""
    return _tracers.otel


def uninstall() -> None:
    """Flush and stop the tracers (at shutdown)."""
    langfuse, otel = _tracers.langfuse, _tracers.otel
    _tracers.langfuse = _tracers.otel = None
    if langfuse is not None:
        langfuse.shutdown()
    if otel is not None:
        otel.shutdown()


def model_call_callbacks() -> list[Any]:
    """Observers of a model call made outside any run (the `/v1` endpoint), as a run's model
    calls are observed: token and time metrics, a span under the current request's span when
    OpenTelemetry is on, a Langfuse generation (in a trace of its own) when Langfuse is.
    Taken in the request's context: the call itself may run on another thread."""
    callbacks: list[Any] = [ModelCallMetrics()] if _METRICS else []
    if _tracers.otel is not None:
        from opentelemetry import trace

        callbacks.append(_tracers.otel.call_spans(trace.get_current_span()))
    if _tracers.langfuse is not None:
        callbacks.append(_tracers.langfuse.call_handler())
    return callbacks


class RunObservation:
    """One executing run: `started()` once it holds a slot, `callbacks` for its graph,
    `ended()` with its final status."""

    def __init__(self, identity: RunIdentity, created_at: Any) -> None:
        self.identity = identity
        self._created_at = created_at
        self._began: float | None = None
        self._span: Any = None
        self._call_spans: Any = None
        self.trace = RunTrace()
        self.callbacks: list[Any] = [self.trace]
        if _METRICS:
            self.callbacks.append(ModelCallMetrics())

    def started(self) -> None:
        self._began = time.monotonic()
        metrics.RUNS_EXECUTING.inc()
        created = _as_datetime(self._created_at)
        if created is not None:
            waited = (datetime.now(UTC) - created).total_seconds()
            metrics.QUEUE_WAIT.labels(self.identity.graph_id).observe(max(waited, 0.0))

    def with_callbacks(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The run's kwargs with the observers' callbacks in its config."""
        config = kwargs["config"]
        callbacks = [*(config.get("callbacks") or []), *self.callbacks]
        return {**kwargs, "config": {**config, "callbacks": callbacks}}

    def let_go(self) -> None:
        """The run left this process unfinished (handed back, lease lost): not an end."""
        if self._began is not None:
            metrics.RUNS_EXECUTING.dec()
            self._began = None

    def ended(self, status: str, error: dict[str, Any] | None) -> None:
        graph_id = self.identity.graph_id
        metrics.RUNS.labels(graph_id, status).inc()
        if self._began is not None:
            metrics.RUNS_EXECUTING.dec()
            metrics.RUN_DURATION.labels(graph_id, status).observe(time.monotonic() - self._began)
            self._began = None
        if self._span is not None:
            from open_langgraph.observability.otel import end_run_span

            end_run_span(self._span, status, error)


def _as_datetime(value: Any) -> datetime | None:
    """A stored timestamp (ISO-8601 string, or a datetime from PostgreSQL) in UTC."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@contextlib.contextmanager
def observe(run: dict[str, Any]) -> Iterator[RunObservation]:
    """Everything observing `run` while it executes, settling included."""
    identity = RunIdentity.of(run)
    observation = RunObservation(identity, run.get("created_at"))
    with contextlib.ExitStack() as stack:
        stack.enter_context(logging_run(identity))
        if _tracers.otel is not None:
            observation._span = _enter(stack, _tracers.otel.run(identity), "OpenTelemetry")
            if observation._span is not None:
                observation._call_spans = _tracers.otel.call_spans(observation._span)
                observation.callbacks.append(observation._call_spans)
        if _tracers.langfuse is not None:
            observation.callbacks += (
                _enter(stack, _tracers.langfuse.run(identity), "Langfuse") or []
            )
        try:
            yield observation
        finally:
            if observation._call_spans is not None:
                observation._call_spans.close()  # before the run's span ends


def ended_unstarted(run: dict[str, Any], status: str) -> None:
    """Count a run that ended without executing (cancelled while queued)."""
    RunObservation(RunIdentity.of(run), None).ended(status, None)


_failed_to_trace: set[str] = set()


def _enter(stack: contextlib.ExitStack, context: Any, what: str) -> Any:
    """Enter a tracer's context, or trace nothing of this run if it fails (logged once)."""
    try:
        return stack.enter_context(context)
    except Exception as exc:
        if what not in _failed_to_trace:
            _failed_to_trace.add(what)
            logger.warning("%s: a run could not be traced: %s: %s", what, type(exc).__name__, exc)
        return None
