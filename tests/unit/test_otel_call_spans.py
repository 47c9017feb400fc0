"""The OpenTelemetry spans of a run's model and tool calls (`otel_calls.CallSpans`), on the
real SDK with an in-memory exporter: what nests under what, what a failed or unfinished call
records. The tree of a served run is checked end to end in tests/e2e/test_tracing.py."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import uuid4

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from open_langgraph.observability.otel_calls import CallSpans

USAGE = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}


@pytest.fixture
def exported() -> Iterator[tuple[InMemorySpanExporter, TracerProvider]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter, provider
    provider.shutdown()


def _model(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(
        messages=iter(AIMessage(content=reply, usage_metadata=USAGE) for reply in replies)
    )


def _by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in spans}


def test_a_model_called_inside_a_tool_nests_under_it(
    exported: tuple[InMemorySpanExporter, TracerProvider],
) -> None:
    exporter, provider = exported
    tracer = provider.get_tracer("test")
    inner = _model("inner answer")

    @tool
    def ask(question: str) -> str:
        """Ask another model."""
        return str(inner.invoke(question).content)

    with tracer.start_as_current_span("run g") as run:
        spans = CallSpans(tracer, run)
        ask.invoke({"question": "why?"}, config={"callbacks": [spans]})
    found = _by_name(exporter.get_finished_spans())
    tool_span, model_span, run_span = (
        found["execute_tool ask"],
        found["chat GenericFakeChatModel"],
        found["run g"],
    )
    assert tool_span.parent is not None and tool_span.parent.span_id == run_span.context.span_id
    assert model_span.parent is not None
    assert model_span.parent.span_id == tool_span.context.span_id
    assert model_span.kind == SpanKind.CLIENT
    assert model_span.attributes is not None
    assert model_span.attributes["gen_ai.usage.input_tokens"] == 5
    assert model_span.attributes["gen_ai.usage.output_tokens"] == 3
    assert model_span.attributes["gen_ai.operation.name"] == "chat"


def test_a_failing_tool_ends_its_span_as_an_error(
    exported: tuple[InMemorySpanExporter, TracerProvider],
) -> None:
    exporter, provider = exported
    tracer = provider.get_tracer("test")

    @tool
    def explode(secret: str) -> str:
        """Always fails."""
        raise ValueError(f"leaked {secret}")

    with tracer.start_as_current_span("run g") as run, pytest.raises(ValueError):
        explode.invoke({"secret": "hunter2"}, config={"callbacks": [CallSpans(tracer, run)]})
    span = _by_name(exporter.get_finished_spans())["execute_tool explode"]
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes is not None and span.attributes["error.type"] == "ValueError"
    # The error's message (which may quote user data) is not exported.
    assert "hunter2" not in str(span.status.description) + str(dict(span.attributes))


def test_calls_still_open_when_the_run_ends_are_ended_as_unfinished(
    exported: tuple[InMemorySpanExporter, TracerProvider],
) -> None:
    exporter, provider = exported
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("run g") as run:
        spans = CallSpans(tracer, run)
        # A model call whose end never comes (the run was stopped mid-call).
        spans.on_chat_model_start({"id": ["FakeModel"]}, [[]], run_id=uuid4())
        assert [s.name for s in exporter.get_finished_spans()] == []
        spans.close()
    span = _by_name(exporter.get_finished_spans())["chat FakeModel"]
    assert span.status.status_code == StatusCode.ERROR
    assert span.status.description == "unfinished when the run ended"
