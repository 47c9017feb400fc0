"""OpenTelemetry (`OTEL_EXPORTER_OTLP_ENDPOINT` set): a span per HTTP request and per run,
with the run's model and tool calls under it (`otel_calls.py`), exported over OTLP/HTTP by
the official SDK from a background thread.

The exporter reads the standard `OTEL_*` variables itself (endpoint, headers, timeout);
`OTEL_SERVICE_NAME` defaults to `open-langgraph`. A run started by a request is a child of
that request's span in one process; in queue mode the worker's run span starts a trace of
its own. Both carry the run's ids (`langgraph.run_id`, ...).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.extras import install_command
from open_langgraph.observability.exchange import run_measured
from open_langgraph.observability.fail_open import log_export_failures_once
from open_langgraph.observability.http import route_of
from open_langgraph.observability.run_context import RunIdentity

logger = logging.getLogger(__name__)
#: Our exporter's failures are the ones that do not name Langfuse's path (`fail_open.py`).
_ANY_OTHER = ""


def requested() -> bool:
    return (
        bool(
            os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
            or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        )
        and os.environ.get("OTEL_SDK_DISABLED", "").lower() != "true"
    )


class OtelTracing:
    def __init__(self) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from open_langgraph import __version__

        service = os.environ.get("OTEL_SERVICE_NAME") or "open-langgraph"
        resource = Resource.create({"service.name": service, "service.version": __version__})
        self._provider = TracerProvider(resource=resource)
        self._provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        self.tracer = self._provider.get_tracer("open_langgraph", __version__)
        endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        log_export_failures_once(_ANY_OTHER, f"the OTLP endpoint {endpoint} is not reachable")

    @contextlib.contextmanager
    def run(self, identity: RunIdentity) -> Iterator[Any]:
        """The run's span, current while the graph executes; the caller sets its status."""
        attributes = {f"langgraph.{key}": value for key, value in identity.attributes().items()}
        with self.tracer.start_as_current_span(
            f"run {identity.graph_id}",
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            yield span

    def call_spans(self, run_span: Any) -> Any:
        """The run's callback handler making its model and tool calls child spans."""
        from open_langgraph.observability.otel_calls import CallSpans

        return CallSpans(self.tracer, run_span)

    def shutdown(self) -> None:
        try:
            self._provider.shutdown()
        except Exception as exc:
            logger.warning("OpenTelemetry shutdown failed: %s", type(exc).__name__)


def end_run_span(span: Any, status: str, error: dict[str, Any] | None) -> None:
    """Record how the run ended on its span."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("langgraph.run_status", status)
    if status in ("error", "timeout"):
        message = (error or {}).get("error") or status
        span.set_status(Status(StatusCode.ERROR, str(message)))


class RequestSpans:
    """ASGI middleware: one server span per HTTP request, named `METHOD route template`."""

    def __init__(self, app: ASGIApp, tracing: OtelTracing) -> None:
        self.app = app
        self.tracer = tracing.tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from opentelemetry.trace import SpanKind, Status, StatusCode

        method = scope["method"]

        with self.tracer.start_as_current_span(
            f"{method} {scope['path']}", kind=SpanKind.SERVER
        ) as span:

            def finished(status_code: int, seconds: float) -> None:
                route = route_of(scope)
                span.update_name(f"{method} {route}")
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status_code)
                span.set_attribute("olg.duration_ms", seconds * 1000)
                if status_code >= 500:
                    span.set_status(Status(StatusCode.ERROR))

            await run_measured(self.app, scope, receive, send, finished)


def open_otel() -> OtelTracing | None:
    if not requested():
        return None
    try:
        return OtelTracing()
    except ImportError:
        logger.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is not installed: "
            "%s; no spans are exported",
            install_command("observability"),
        )
    except Exception as exc:
        logger.warning("OpenTelemetry is off: %s: %s", type(exc).__name__, exc)
    return None
