"""`/v1/chat/completions` on the embedded models: one request at a time, in a thread.

Each request becomes a `LocalChatModel` call, so tools are grammar-constrained exactly as for
a graph using `local/...` (a call always parses and validates against its tool's schema), and
`response_format` with a JSON schema decodes under that schema's grammar. The process has one
llama.cpp runner per model and two computations on a small machine stall each other, so
requests wait in an asyncio lock (not in threads of the executor, which other work needs)
and are counted while they wait (`olg_openai_requests_waiting`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage

from open_langgraph.observability import metrics
from open_langgraph.services.openai_messages import (
    chunk_delta,
    completion_body,
    finish_reason,
    to_langchain,
    usage,
)
from open_langgraph.services.openai_models import OpenAIError, resolve_chat_model
from open_langgraph.services.openai_types import ChatCompletionRequest

if TYPE_CHECKING:
    # The embedded models' package pulls LangChain's model machinery (most of a second to
    # import): it is imported by the first request, not when `olg serve` starts.
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable, RunnableConfig

    from open_langgraph.models.local import LocalChatModel

#: Tokens a reply may take when the request does not bound it (OpenAI's default is the
#: context window; a small model rambling that far would hold the queue for minutes).
DEFAULT_MAX_TOKENS = 1024
_METRICS = metrics.enabled()

#: Whether the request's client has disconnected (Starlette's `Request.is_disconnected`).
ClientGoneCheck = Callable[[], Awaitable[bool]]


class ClientGone(Exception):
    """The client left while its request waited for the model; nothing is sent."""


def _observed() -> RunnableConfig:
    from open_langgraph.observability.runs import model_call_callbacks

    return {"callbacks": model_call_callbacks()}


@dataclass(slots=True)
class _Call:
    """A validated request, ready to run: the model, its bound tools and the messages."""

    model: LocalChatModel
    runnable: Runnable[LanguageModelInput, Any]
    messages: list[BaseMessage]
    kwargs: dict[str, Any] = field(default_factory=dict)
    config: RunnableConfig = field(default_factory=_observed)
    """Callbacks observing the call, taken where the request arrived (its trace context)."""

    @property
    def name(self) -> str:
        return self.model.model_name


def _tool_choice(request: ChatCompletionRequest) -> str | dict[str, Any]:
    choice = request.tool_choice
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    return {"type": "function", "function": {"name": choice.function.name}}


def _schema_hint(messages: list[BaseMessage], schema: Mapping[str, Any]) -> list[BaseMessage]:
    """The schema told to the model too: the grammar makes the JSON valid, the hint helps a
    small model fill it with sensible values."""
    hint = f"Reply with a JSON object matching this JSON schema:\n{json.dumps(schema)}"
    if messages and isinstance(messages[0], SystemMessage):
        first = SystemMessage(content=f"{messages[0].text}\n\n{hint}")
        return [first, *messages[1:]]
    return [SystemMessage(content=hint), *messages]


class OpenAIChat:
    """The chat-completions service: validation, the queue, and the model call."""

    def __init__(self, aliases: Mapping[str, str]) -> None:
        self.aliases = dict(aliases)
        self._lock = asyncio.Lock()

    # -- preparing -----------------------------------------------------------------------------

    def prepare(self, request: ChatCompletionRequest) -> _Call:
        """Resolve the model and bind the tools, before anything waits for the model.

        Raises:
            OpenAIError: 404 for an unknown model, 400 for what the model cannot honour.
        """
        from open_langgraph.models.local import (
            LocalChatModel,
            UnsupportedSchemaError,
            schema_grammar,
        )

        spec = resolve_chat_model(request.model, self.aliases)
        stop = [request.stop] if isinstance(request.stop, str) else request.stop
        wanted = request.max_completion_tokens or request.max_tokens or DEFAULT_MAX_TOKENS
        model = LocalChatModel(
            model_name=spec.name,
            max_tokens=wanted,  # the model cuts it to its window
            temperature=request.temperature if request.temperature is not None else 0.0,
            seed=None if request.seed is None else request.seed % 2**32,
            stop=stop or None,
        )
        messages = to_langchain(request.messages)
        choice = _tool_choice(request)
        kwargs: dict[str, Any] = {}
        if request.tools and choice != "none":
            tools = [
                t.function.model_dump(exclude_none=True, exclude={"strict"}) for t in request.tools
            ]
            for tool in tools:
                tool.setdefault("parameters", {"type": "object", "properties": {}})
            try:
                runnable = model.bind_tools(tools, tool_choice=choice)
            except UnsupportedSchemaError as exc:
                raise OpenAIError(400, f"tools: {exc}", param="tools") from exc
            except ValueError as exc:
                raise OpenAIError(400, str(exc), param="tool_choice") from exc
            return _Call(model, runnable, messages)
        if choice not in ("auto", "none"):
            raise OpenAIError(400, f"tool_choice {choice!r} needs tools", param="tool_choice")
        schema = self._response_schema(request)
        if schema is not None:
            try:
                schema_grammar(schema)
            except UnsupportedSchemaError as exc:
                raise OpenAIError(400, f"response_format: {exc}", param="response_format") from exc
            kwargs["response_schema"] = schema
            messages = _schema_hint(messages, schema)
        return _Call(model, model, messages, kwargs)

    @staticmethod
    def _response_schema(request: ChatCompletionRequest) -> dict[str, Any] | None:
        fmt = request.response_format
        if fmt is None or fmt.type == "text":
            return None
        if fmt.type == "json_object":
            return {"type": "object"}
        if fmt.json_schema is None or not fmt.json_schema.schema_:
            raise OpenAIError(
                400, "response_format json_schema needs json_schema.schema", param="response_format"
            )
        return fmt.json_schema.schema_

    # -- the queue -----------------------------------------------------------------------------

    async def _acquire(self, call: _Call, gone: ClientGoneCheck | None) -> None:
        """Wait for the model, then make sure it is loaded (503 with the reason if not).

        `gone` is asked once the model is free: a client that gave up while it waited (its
        timeout, a retry elsewhere) is not answered, so the tokens nobody will read are not
        decoded in front of the requests behind it."""
        started = time.monotonic()
        if _METRICS:
            metrics.OPENAI_WAITING.inc()
        try:
            await self._lock.acquire()
        finally:
            if _METRICS:
                metrics.OPENAI_WAITING.dec()
                metrics.OPENAI_QUEUE_WAIT.observe(time.monotonic() - started)
        try:
            left = gone is not None and await gone()
        except BaseException:
            self._lock.release()
            raise
        if left:
            self._lock.release()
            raise ClientGone
        from open_langgraph.models.errors import ModelError
        from open_langgraph.models.local.catalog import LOCAL_MODELS
        from open_langgraph.models.local.runner import is_loaded

        if is_loaded(LOCAL_MODELS[call.name].filename):
            return  # the usual case: no thread hop on the way to the first token
        try:
            await asyncio.to_thread(call.model.runner)
        except (ModelError, OSError) as exc:
            self._lock.release()
            raise OpenAIError(
                503,
                f"the embedded model local/{call.name} cannot load: {exc}",
                type="server_error",
                code="model_unavailable",
            ) from exc
        except BaseException:
            self._lock.release()
            raise

    # -- answering -----------------------------------------------------------------------------

    async def complete(
        self, request: ChatCompletionRequest, gone: ClientGoneCheck | None = None
    ) -> dict[str, Any]:
        """A whole `chat.completion` body."""
        call = self.prepare(request)
        await self._acquire(call, gone)
        started = time.monotonic()
        work = asyncio.ensure_future(
            asyncio.to_thread(
                call.runnable.invoke, call.messages, config=call.config, **call.kwargs
            )
        )

        def done(_: asyncio.Future[Any]) -> None:
            # When decoding ends, not when the client leaves: the runner cannot be interrupted
            # and the next request must not start (and hold a thread) before it is free.
            self._lock.release()
            _record_seconds(call.name, started)

        work.add_done_callback(done)
        try:
            message = await asyncio.shield(work)
        except Exception as exc:  # a refusal is a 400; anything else propagates unchanged
            raise _model_refusal(exc) from exc
        assert isinstance(message, AIMessage)
        _record_tokens(call.name, message)
        return completion_body(
            message, completion_id=_completion_id(), created=int(time.time()), model=call.name
        )

    async def stream(
        self, request: ChatCompletionRequest, gone: ClientGoneCheck | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The `chat.completion.chunk` objects of a streamed reply, once the model is ready.

        Validation, the queue and the model's load happen before this returns, so their
        errors are HTTP statuses; an error while decoding ends the stream with an `error`.
        """
        call = self.prepare(request)
        await self._acquire(call, gone)
        include_usage = bool(request.stream_options and request.stream_options.include_usage)
        return self._chunks(call, include_usage)

    async def _chunks(self, call: _Call, include_usage: bool) -> AsyncIterator[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        pieces: asyncio.Queue[AIMessageChunk | BaseException | None] = asyncio.Queue()
        started = time.monotonic()

        def work() -> None:
            try:
                for piece in call.runnable.stream(call.messages, config=call.config, **call.kwargs):
                    loop.call_soon_threadsafe(pieces.put_nowait, piece)
                loop.call_soon_threadsafe(pieces.put_nowait, None)
            except BaseException as exc:  # handed to the event loop, sent as the stream's error
                loop.call_soon_threadsafe(pieces.put_nowait, exc)
            finally:
                # Released when decoding ends, even if the client left: the runner cannot be
                # interrupted, and the next request must not start before it is free.
                loop.call_soon_threadsafe(self._lock.release)
                _record_seconds(call.name, started)

        threading.Thread(target=work, name="olg-openai-stream", daemon=True).start()
        head = _chunk_head(call.name)
        extra = {"usage": None} if include_usage else {}
        yield {**head, **extra, "choices": [_choice({"role": "assistant", "content": ""})]}
        last: AIMessageChunk | None = None
        called = False
        while (piece := await pieces.get()) is not None:
            if isinstance(piece, BaseException):
                if _is_refusal(piece):  # as a 400 would say it (the status is sent already)
                    refusal = _model_refusal(piece)
                    fields = {"type": refusal.type, "code": refusal.code, "param": refusal.param}
                    yield {"error": {"message": refusal.message, **fields}}
                else:
                    failed = {"type": "server_error", "code": None}
                    yield {"error": {"message": "the model failed while decoding", **failed}}
                return
            called = called or bool(piece.tool_call_chunks)
            if piece.usage_metadata:
                last = piece
            if (delta := chunk_delta(piece)) is not None:
                yield {**head, **extra, "choices": [_choice(delta)]}
        reason = "tool_calls" if called else finish_reason(last) if last else "stop"
        yield {**head, **extra, "choices": [_choice({}, reason)]}
        if last is not None:
            _record_tokens(call.name, last)
        if include_usage:
            totals = usage(last) if last is not None else usage(AIMessage(content=""))
            yield {**head, "choices": [], "usage": totals}


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def _chunk_head(model: str) -> dict[str, Any]:
    return {
        "id": _completion_id(),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
    }


def _choice(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}


def _is_refusal(exc: BaseException) -> bool:
    from open_langgraph.models.local.messages import TruncatedOutputError
    from open_langgraph.models.local.runner import ContextWindowExceededError

    return isinstance(exc, (TruncatedOutputError, ContextWindowExceededError)) or (
        isinstance(exc, RuntimeError) and str(exc).startswith("llama.cpp rejected")
    )


def _model_refusal(exc: BaseException) -> OpenAIError:
    """A call cut off at `max_tokens`, a conversation longer than the context window, or
    another request llama.cpp refused: the request's fault, a 400 naming what to change."""
    from open_langgraph.models.local.runner import ContextWindowExceededError

    if not _is_refusal(exc):
        raise exc
    if isinstance(exc, ContextWindowExceededError):
        # OpenAI's code for it: LangChain's ChatOpenAI turns it into ContextOverflowError,
        # which agents' summarisation middleware answers by shortening the history.
        return OpenAIError(
            400,
            f"This model's maximum context length is {exc.context_tokens} tokens; {exc}",
            code="context_length_exceeded",
            param="messages",
        )
    return OpenAIError(400, str(exc), code="model_refused")


def _record_seconds(model: str, started: float) -> None:
    if _METRICS:
        metrics.OPENAI_MODEL_SECONDS.labels(model).observe(time.monotonic() - started)


def _record_tokens(model: str, message: AIMessage) -> None:
    if not _METRICS:
        return
    counts = usage(message)
    metrics.OPENAI_TOKENS.labels(model, "prompt").inc(counts["prompt_tokens"])
    metrics.OPENAI_TOKENS.labels(model, "completion").inc(counts["completion_tokens"])
    metrics.OPENAI_TOKENS.labels(model, "cached").inc(
        counts["prompt_tokens_details"]["cached_tokens"]
    )
