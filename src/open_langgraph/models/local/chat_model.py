"""`LocalChatModel`: an embedded GGUF model behind LangChain's `BaseChatModel` interface.

Tool calls are decoded under a grammar built from the bound tools, so every call parses and
validates against its tool's schema. `with_structured_output` comes for free: LangChain's
default implementation binds the schema as a forced tool and parses the call.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ToolCall,
    ToolCallChunk,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from open_langgraph.models.errors import ModelNameError
from open_langgraph.models.local.budget import call_token_budget
from open_langgraph.models.local.catalog import LOCAL_MODELS, LocalModelSpec
from open_langgraph.models.local.files import ensure_model_file
from open_langgraph.models.local.grammar import (
    ANSWER_PREFIX,
    FINAL_ANSWER,
    ToolChoiceMode,
    answer_grammar,
    schema_grammar,
    tool_call_grammar,
)
from open_langgraph.models.local.messages import (
    ANSWER_SPEC,
    AnswerStream,
    TruncatedOutputError,
    answer_text,
    is_call_start,
    parse_call,
    to_chat_messages,
    tools_prompt,
)
from open_langgraph.models.local.repetition import repeats_itself
from open_langgraph.models.local.runner import (
    Completion,
    ContextWindowExceededError,
    LlamaRunner,
    StopTest,
    get_runner,
    is_loaded,
)
from open_langgraph.models.progress import report_stage

ToolLike = Mapping[str, Any] | type | Callable[..., Any] | BaseTool
ReplyKind = Literal["text", "auto", "call"]
"""What a reply may be: free text (no tools), an answer or a call ("auto"), or only a call."""


class LocalChatModel(BaseChatModel):
    """A chat model running in-process on llama.cpp from a GGUF file shipped on PyPI.

    Example:
        ```python
        model = LocalChatModel(model_name="smollm2-135m").bind_tools([search], tool_choice="any")
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    answer_choice: ClassVar[str] = FINAL_ANSWER
    """The `tool_choice` that makes a reply an answer while the tools stay described
    (`graphs.toolkit.middleware.repeat_guard` looks for it)."""

    model_name: str = "qwen2.5-coder-1.5b"
    """A name from the local catalogue (`qwen2.5-coder-1.5b`, `smollm2-135m`)."""
    max_tokens: int = 512
    """Upper bound on generated tokens; size it for the longest tool-call arguments."""
    temperature: float = 0.0
    """0 decodes greedily, which keeps agent decisions reproducible."""
    seed: int | None = None
    stop: list[str] | None = Field(default=None)

    _spec: LocalModelSpec = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        if self.model_name not in LOCAL_MODELS:
            known = ", ".join(f"local/{n}" for n in LOCAL_MODELS)
            raise ModelNameError(f"unknown local model {self.model_name!r}; known: {known}")
        self._spec = LOCAL_MODELS[self.model_name]

    @property
    def _llm_type(self) -> str:
        return "open-langgraph-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "temperature": self.temperature}

    def runner(self) -> LlamaRunner:
        """The process-wide llama.cpp runner, assembling and loading the model on first use
        (announced on the run's stream: the first call waits seconds for it)."""
        if is_loaded(self._spec.filename):
            return get_runner(ensure_model_file(self._spec))
        name = f"local/{self.model_name}"
        report_stage("model_load", f"loading {name}")
        started = time.monotonic()
        runner = get_runner(ensure_model_file(self._spec))
        report_stage("model_loaded", f"{name} loaded in {time.monotonic() - started:.1f} s")
        return runner

    # -- tools ---------------------------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: str | bool | Mapping[str, Any] | None = None,
        decode_tools: Sequence[ToolLike] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools; replies are then constrained to a valid call (or text with "auto").

        Args:
            tools: LangChain tools, Pydantic models, TypedDicts, functions or OpenAI specs.
            tool_choice: `"auto"`/`None` (an answer or a call), `"any"`/`"required"`/`True` (a
                call to any tool), a tool name or `{"type": "function", "function": {"name":
                ...}}` (a call to that tool), `"final_answer"` (an answer, with the tools still
                described, so the prompt cache of an "auto" conversation holds), or `"none"`
                (text only).
            decode_tools: narrower versions of some of `tools` (same names) for the grammar
                only: the prompt still describes `tools`, so its cached prefix holds while the
                allowed values change call by call (the web agent's refs of the current page).
                A tool missing from `decode_tools` cannot be called.

        Raises:
            UnsupportedSchemaError: a schema uses a keyword the grammar cannot enforce.
            ValueError: `tool_choice` names a tool that is not bound.
        """
        specs = [convert_to_openai_tool(t)["function"] for t in tools]
        names = [s["name"] for s in specs]
        if isinstance(tool_choice, Mapping):
            tool_choice = tool_choice.get("function", {}).get("name") or tool_choice.get("name")
        if tool_choice in (None, "auto"):
            choice = "auto"
        elif tool_choice in ("any", "required", True):
            choice = "any"
        elif tool_choice == "none" or tool_choice is False:
            choice = "none"
        elif tool_choice == FINAL_ANSWER:
            choice = FINAL_ANSWER
        elif isinstance(tool_choice, str) and tool_choice in names:
            choice = tool_choice
        else:
            raise ValueError(f"tool_choice {tool_choice!r} is not one of the bound tools {names}")
        if decode_tools is not None:
            decode = [convert_to_openai_tool(t)["function"] for t in decode_tools]
            unknown = sorted({d["name"] for d in decode} - set(names))
            if unknown:
                raise ValueError(f"decode_tools names tools that are not bound: {unknown}")
            if not decode:
                raise ValueError("decode_tools must keep at least one tool callable")
            kwargs["decode_tools"] = decode
        # Build once now so an unsupported schema fails at bind time, not mid-run.
        _grammar_for(kwargs.get("decode_tools", specs), choice)
        return super().bind(tools=specs, tool_choice=choice, **kwargs)

    # -- generation ----------------------------------------------------------------------------

    def _request(
        self,
        messages: Sequence[BaseMessage],
        stop: list[str] | None,
        kwargs: Mapping[str, Any],
        window: int,
    ) -> tuple[dict[str, Any], ReplyKind]:
        """The llama.cpp request for a model loaded with a `window`-token context, and what
        kind of reply the grammar admits."""
        specs: list[dict[str, Any]] = list(kwargs.get("tools") or [])
        choice: str = kwargs.get("tool_choice") or "auto"
        if choice == "none":
            specs = []
        request: dict[str, Any] = {
            # A reply cannot outgrow the window (and llama.cpp's fields are 32-bit).
            "max_tokens": min(kwargs.get("max_tokens", self.max_tokens), window),
            "temperature": kwargs.get("temperature", self.temperature),
        }
        if self.seed is not None:
            request["seed"] = self.seed
        stops = stop or self.stop
        if stops:
            request["stop"] = list(stops)
        if not specs:
            request["messages"] = to_chat_messages(messages)
            schema: Mapping[str, Any] | None = kwargs.get("response_schema")
            if schema is not None:  # the OpenAI endpoint's `response_format` (json_schema)
                request["grammar"] = schema_grammar(schema)
            return request, "text"
        answering = choice in ("auto", FINAL_ANSWER)
        allowed = (
            specs if answering or choice == "any" else [s for s in specs if s["name"] == choice]
        )
        mode: ToolChoiceMode = "auto" if answering else "any"
        request["messages"] = to_chat_messages(messages, tools_prompt(allowed, mode))
        decode: list[dict[str, Any]] | None = kwargs.get("decode_tools")
        request["grammar"] = _grammar_for(specs if decode is None else decode, choice)
        if decode is not None:  # the budget follows what the grammar lets through
            allowed = [s for s in decode if any(a["name"] == s["name"] for a in allowed)]
        budget = call_token_budget(allowed)
        if budget is not None and mode == "auto":
            # The answer is unbounded, so the bound covers the calls only.
            budget = max(budget, call_token_budget([ANSWER_SPEC]) or 0)
        if budget is not None:  # never cut a call off mid-JSON when its length is bounded
            request["max_tokens"] = max(request["max_tokens"], min(budget, window // 2))
        return request, "auto" if mode == "auto" else "call"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        cancelled: threading.Event | None = kwargs.pop("cancelled", None)
        runner = self.runner()
        request, kind = self._request(messages, stop, kwargs, runner.n_ctx)
        completion = runner.complete(request, stop_when=_stop_for(kind, cancelled))
        message = self._to_message(completion, kind, request["max_tokens"])
        info = {"finish_reason": completion.finish_reason, "timings": dict(completion.timings)}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """`_generate` in a thread that stops decoding when the awaiting task is cancelled (a
        cancelled run): LangChain's default thread would decode on to `max_tokens`, holding
        the model from the next run."""
        cancelled = threading.Event()
        try:
            return await asyncio.to_thread(
                self._generate, messages, stop, None, cancelled=cancelled, **kwargs
            )
        finally:
            cancelled.set()  # stops a decode still running; no-op once it has ended

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """`_stream` chunk by chunk from a thread, stopping the decode when the consumer is
        cancelled or stops reading (see `_agenerate`)."""
        cancelled = threading.Event()
        chunks = self._stream(messages, stop, None, cancelled=cancelled, **kwargs)
        try:
            while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
                if run_manager and chunk.message.content:
                    await run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
                yield chunk
        finally:
            cancelled.set()

    def _to_message(self, completion: Completion, kind: ReplyKind, max_tokens: int) -> AIMessage:
        metadata = {
            "model_name": self.model_name,
            "finish_reason": completion.finish_reason,
            "timings": dict(completion.timings),
        }
        usage = _usage(completion)
        answer = answer_text(completion.text) if kind == "auto" else None
        if answer is not None:
            return AIMessage(content=answer, response_metadata=metadata, usage_metadata=usage)
        if kind != "text" and is_call_start(completion.text):
            call = self._call_in(completion.text, completion, max_tokens)
            return AIMessage(
                content="", tool_calls=[call], response_metadata=metadata, usage_metadata=usage
            )
        return AIMessage(content=completion.text, response_metadata=metadata, usage_metadata=usage)

    def _call_in(self, text: str, completion: Completion, max_tokens: int) -> ToolCall:
        """The tool call a constrained reply spells; one cut off before `max_tokens` ran out
        was stopped by the full context window, which trimming the history fixes."""
        try:
            return parse_call(text, completion.finish_reason, max_tokens)
        except TruncatedOutputError:
            if completion.completion_tokens >= max_tokens:
                raise
            window = self.runner().n_ctx
            raise ContextWindowExceededError(
                f"{window} tokens, with the tool call {completion.completion_tokens} "
                f"tokens in; the prompt took {completion.prompt_tokens}",
                prompt_tokens=completion.prompt_tokens,
                context_tokens=window,
            ) from None

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Yield text tokens as decoded; a tool call is yielded whole once it is complete.

        Call arguments are buffered because a half-written call is of no use to a graph and
        LangChain merges `tool_call_chunks` anyway; text answers stream token by token.
        """
        cancelled: threading.Event | None = kwargs.pop("cancelled", None)
        runner = self.runner()
        request, kind = self._request(messages, stop, kwargs, runner.n_ctx)
        pieces: queue.Queue[str | _Done] = queue.Queue()

        def work() -> None:
            try:
                completion = runner.complete(
                    request, on_chunk=pieces.put, stop_when=_stop_for(kind, cancelled)
                )
                pieces.put(_Done(completion, None))
            except BaseException as exc:  # handed to the consuming thread, re-raised there
                pieces.put(_Done(None, exc))

        threading.Thread(target=work, name="olg-local-model", daemon=True).start()
        buffered: list[str] = []
        # An "auto" reply is an answer or a call; its first characters tell which.
        answer = AnswerStream() if kind == "auto" else None
        while True:
            item = pieces.get()
            if isinstance(item, _Done):
                break
            if kind == "call" or (answer is not None and answer.is_answer is False):
                buffered.append(item)
                continue
            text = item
            if answer is not None:
                buffered.append(item)
                text = answer.feed(item)
                if answer.is_answer is not True:
                    continue
                buffered.clear()
            if not text:
                continue
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
            if run_manager:
                run_manager.on_llm_new_token(item, chunk=chunk)
            yield chunk
        if item.error is not None:
            raise item.error
        assert item.completion is not None
        completion = item.completion
        call_chunks: list[ToolCallChunk] = []
        if buffered:
            call = self._call_in("".join(buffered), completion, request["max_tokens"])
            args = json.dumps(call["args"], ensure_ascii=False)
            call_chunks.append(ToolCallChunk(name=call["name"], args=args, id=call["id"], index=0))
        final = AIMessageChunk(
            content="",
            tool_call_chunks=call_chunks,
            usage_metadata=_usage(completion),
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": completion.finish_reason,
                "timings": dict(completion.timings),
            },
            chunk_position="last",
        )
        yield ChatGenerationChunk(message=final)


class _Done:
    """End-of-stream marker carrying the completion or the error from the worker thread."""

    __slots__ = ("completion", "error")

    def __init__(self, completion: Completion | None, error: BaseException | None) -> None:
        self.completion = completion
        self.error = error


def _usage(completion: Completion) -> UsageMetadata:
    """Token counts; `input_token_details.cache_read` is the prompt prefix llama.cpp re-used
    from its cache (`timings.cache_n`) instead of reading it again."""
    usage = UsageMetadata(
        input_tokens=completion.prompt_tokens,
        output_tokens=completion.completion_tokens,
        total_tokens=completion.prompt_tokens + completion.completion_tokens,
    )
    cached = completion.timings.get("cache_n")
    if cached is not None:
        usage["input_token_details"] = {"cache_read": int(cached)}
    return usage


def _grammar_for(specs: Sequence[Mapping[str, Any]], choice: str) -> str | None:
    if choice == "none" or not specs:
        return None
    if choice == FINAL_ANSWER:
        return answer_grammar()
    if choice in ("auto", "any"):
        return tool_call_grammar(specs, "auto" if choice == "auto" else "any")
    return tool_call_grammar([s for s in specs if s["name"] == choice], "any")


def _stop_for(kind: ReplyKind, cancelled: threading.Event | None = None) -> StopTest:
    """Why to end a decode early: its run was cancelled, or an answer or text repeats itself
    word for word. A tool call is never cut for repeating: its arguments may repeat (code)."""

    def reason(text: str) -> str | None:
        if cancelled is not None and cancelled.is_set():
            return "cancelled"
        if kind == "call" or (is_call_start(text) and not text.startswith(ANSWER_PREFIX)):
            return None
        return "repetition" if repeats_itself(text) else None

    return reason
