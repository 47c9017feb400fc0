"""A LangChain callback counting each chat model call's tokens and seconds by model.

It listens to model starts and ends only (`ignore_chain` and the rest are set), so the
callback manager skips it for every node and tool event, and it runs inline (no thread hop).
Embedded models (`local/...`) report `usage_metadata` like hosted ones.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from open_langgraph.observability import metrics


def model_name(
    serialized: dict[str, Any] | None, metadata: dict[str, Any] | None, **kw: Any
) -> str:
    """The model's name as LangChain reports it (`ls_model_name`), else its class."""
    if metadata and metadata.get("ls_model_name"):
        return str(metadata["ls_model_name"])
    params = kw.get("invocation_params") or {}
    for key in ("model", "model_name"):
        if params.get(key):
            return str(params[key])
    ids = (serialized or {}).get("id") or ["unknown"]
    return str(ids[-1])


def usage_of(response: LLMResult) -> tuple[int, int]:
    """(input, output) tokens of a call, from the message's `usage_metadata`."""
    input_tokens = output_tokens = 0
    for generations in response.generations:
        for generation in generations:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                input_tokens += int(usage.get("input_tokens") or 0)
                output_tokens += int(usage.get("output_tokens") or 0)
    return input_tokens, output_tokens


class ModelCallMetrics(BaseCallbackHandler):
    run_inline = True
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self) -> None:
        self._calls: dict[UUID, tuple[str, float]] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._calls[run_id] = (model_name(serialized, metadata, **kwargs), time.monotonic())

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._calls[run_id] = (model_name(serialized, metadata, **kwargs), time.monotonic())

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        call = self._calls.pop(run_id, None)
        if call is None:
            return
        model, began = call
        metrics.MODEL_DURATION.labels(model).observe(time.monotonic() - began)
        input_tokens, output_tokens = usage_of(response)
        if input_tokens:
            metrics.MODEL_TOKENS.labels(model, "input").inc(input_tokens)
        if output_tokens:
            metrics.MODEL_TOKENS.labels(model, "output").inc(output_tokens)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        call = self._calls.pop(run_id, None)
        if call is not None:
            metrics.MODEL_ERRORS.labels(call[0]).inc()
            metrics.MODEL_DURATION.labels(call[0]).observe(time.monotonic() - call[1])
