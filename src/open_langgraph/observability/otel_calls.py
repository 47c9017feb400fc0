"""OpenTelemetry spans for a run's model calls and tool calls, under the run's span: the same
tree Langfuse shows (run -> model call -> tool -> model call), for any OTLP collector.

Names and attributes follow OpenTelemetry's GenAI semantic conventions where they define one:
a model call is a CLIENT span `chat {model}` with `gen_ai.operation.name`,
`gen_ai.request.model`, `gen_ai.provider.name`, `gen_ai.usage.input_tokens` /
`output_tokens`, `gen_ai.response.id` / `finish_reasons`; a tool call is an INTERNAL span
`execute_tool {name}` with `gen_ai.tool.name` and `gen_ai.tool.call.id`. Prompts, replies
and tool arguments are not recorded (they may hold user data; Langfuse is the place for
content). Imported only when OpenTelemetry is configured; the handler listens to model and
tool events only, so node events skip it.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from open_langgraph.observability.model_calls import model_name, usage_of

#: invocation parameter -> GenAI request attribute, recorded when the model was given one.
_REQUEST_PARAMS = {
    "temperature": "gen_ai.request.temperature",
    "max_tokens": "gen_ai.request.max_tokens",
    "top_p": "gen_ai.request.top_p",
}


class CallSpans(BaseCallbackHandler):
    """Opens a span when a chat model or tool starts and ends it when the call does. Its
    parent is the span of the model or tool call LangChain nests it in, else the run's."""

    run_inline = True
    ignore_chain = True
    ignore_agent = False  # LangChain routes tool events by this flag too
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self, tracer: trace.Tracer, run_span: trace.Span) -> None:
        self._tracer = tracer
        self._run_context = trace.set_span_in_context(run_span)
        self._spans: dict[UUID, trace.Span] = {}

    def _start(
        self,
        name: str,
        kind: SpanKind,
        attributes: dict[str, Any],
        run_id: UUID,
        parent_run_id: UUID | None,
    ) -> None:
        parent = self._spans.get(parent_run_id) if parent_run_id is not None else None
        context = trace.set_span_in_context(parent) if parent is not None else self._run_context
        self._spans[run_id] = self._tracer.start_span(
            name, context=context, kind=kind, attributes=attributes
        )

    def _model_started(
        self,
        serialized: dict[str, Any] | None,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        operation: str,
        kwargs: dict[str, Any],
    ) -> None:
        model = model_name(serialized, metadata, **kwargs)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.request.model": model,
        }
        if metadata and metadata.get("ls_provider"):
            attributes["gen_ai.provider.name"] = str(metadata["ls_provider"])
        params = kwargs.get("invocation_params") or {}
        for param, attribute in _REQUEST_PARAMS.items():
            if isinstance(params.get(param), int | float):
                attributes[attribute] = params[param]
        self._start(f"{operation} {model}", SpanKind.CLIENT, attributes, run_id, parent_run_id)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._model_started(serialized, run_id, parent_run_id, metadata, "chat", kwargs)

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._model_started(serialized, run_id, parent_run_id, metadata, "text_completion", kwargs)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.pop(run_id, None)
        if span is None:
            return
        input_tokens, output_tokens = usage_of(response)
        span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", output_tokens)
        reasons: list[str] = []
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                if message is not None and getattr(message, "id", None):
                    span.set_attribute("gen_ai.response.id", str(message.id))
                info = {
                    **(generation.generation_info or {}),
                    **(getattr(message, "response_metadata", None) or {}),
                }
                reason = info.get("finish_reason") or info.get("stop_reason")
                if reason:
                    reasons.append(str(reason))
        if reasons:
            span.set_attribute("gen_ai.response.finish_reasons", reasons)
        span.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._failed(run_id, error)

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        name = str(kwargs.get("name") or (serialized or {}).get("name") or "tool")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
        }
        if kwargs.get("tool_call_id"):
            attributes["gen_ai.tool.call.id"] = str(kwargs["tool_call_id"])
        self._start(f"execute_tool {name}", SpanKind.INTERNAL, attributes, run_id, parent_run_id)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.pop(run_id, None)
        if span is not None:
            span.end()

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._failed(run_id, error)

    def close(self) -> None:
        """End the calls still open when the run ends (a run stopped mid-call, whose
        callbacks never came): their spans are exported, marked unfinished."""
        while self._spans:
            _, span = self._spans.popitem()
            span.set_status(Status(StatusCode.ERROR, "unfinished when the run ended"))
            span.end()

    def _failed(self, run_id: UUID, error: BaseException) -> None:
        span = self._spans.pop(run_id, None)
        if span is None:
            return
        span.set_attribute("error.type", type(error).__qualname__)
        span.set_status(Status(StatusCode.ERROR, type(error).__name__))
        span.end()
