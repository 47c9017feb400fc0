"""What a run did inside, kept with the run: its nodes, model calls and tool calls as spans
(when, how long, the model's tokens, the prompt and the reply), for the web UI's trace view.

A LangChain callback on the run's config records them where the run executes, with no hosted
tracer. Spans hang off the task that made them: LangGraph gives every task a checkpoint
namespace of its own (`langgraph_checkpoint_ns`, "node:task-id", nested with "|" in a
subgraph), and each node, model call and tool call inside the task carries it in its
metadata. Only a node's first chain (the task's own runnable) opens a node span, so the
chains inside a node cost a dictionary lookup each.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from open_langgraph.observability.call_records import call_request, message_to_dict, token_usage
from open_langgraph.observability.model_calls import model_name
from open_langgraph.serde import dumps

MAX_SPANS = 2_000
"""Spans kept per run; an agent looping for hours keeps its first ones and a count of the
rest (`dropped`)."""

MAX_TEXT = 16_000
"""Characters kept of one message, tool input or tool result; the rest is cut, and says so."""

MAX_PROMPT_MESSAGES = 12
"""Messages kept of a model call's prompt, besides its first (the system prompt): the latest
ones. A long thread's every call would otherwise store the whole conversation again."""

_STOPPED_BY = {"GraphInterrupt", "NodeInterrupt", "ParentCommand", "GraphBubbleUp"}
"""Exceptions that end a node without failing it: an interrupt, a command to the parent."""


def _cut(value: Any) -> Any:
    """`value` with long strings cut to `MAX_TEXT` characters (a marker says how many were)."""
    if isinstance(value, str):
        if len(value) <= MAX_TEXT:
            return value
        return f"{value[:MAX_TEXT]}… [{len(value) - MAX_TEXT} more characters]"
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def _kept_prompt(prompt: dict[str, Any]) -> dict[str, Any]:
    """The prompt with its middle messages left out past `MAX_PROMPT_MESSAGES`, saying so."""
    messages = prompt["messages"]
    if len(messages) <= MAX_PROMPT_MESSAGES + 1:
        return prompt
    left_out = len(messages) - MAX_PROMPT_MESSAGES - 1
    marker = {"type": "omitted", "content": f"{left_out} earlier messages not kept"}
    return {**prompt, "messages": [messages[0], marker, *messages[-MAX_PROMPT_MESSAGES:]]}


def _task_ns(metadata: dict[str, Any] | None) -> str | None:
    return (metadata or {}).get("langgraph_checkpoint_ns")


def _parent_ns(ns: str) -> str | None:
    """The task a subgraph's task runs in ("a:1|b:2" runs in "a:1")."""
    head, sep, _ = ns.rpartition("|")
    return head if sep else None


class RunTrace(BaseCallbackHandler):
    """Spans of one run, in the order they started. Thread-safe: a sync model or tool runs
    on a worker thread and calls back from there."""

    run_inline = True
    # Not `ignore_agent`: LangChain files tool calls under it.
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._began = time.monotonic()
        self.started_at = datetime.now(UTC).isoformat()
        self._spans: list[dict[str, Any]] = []
        self._open: dict[UUID, dict[str, Any]] = {}
        self._task_spans: dict[str, str] = {}
        self.dropped = 0
        self.version = 0
        """Counts changes, so a queue worker stores a long run's trace only when it moved."""
        self.closed = False
        """Set when the run's end is being stored: no live copy may be written after it."""

    # -- spans -----------------------------------------------------------------------------
    def _ms(self) -> float:
        return round((time.monotonic() - self._began) * 1000, 1)

    def _begin(
        self, run_id: UUID, kind: str, name: str, metadata: dict[str, Any] | None, **fields: Any
    ) -> dict[str, Any] | None:
        metadata = metadata or {}
        ns = _task_ns(metadata)
        parent = self._task_spans.get(ns) if ns and kind != "node" else None
        if kind == "node" and ns:
            outer = _parent_ns(ns)
            parent = self._task_spans.get(outer) if outer else None
        span = {
            "id": str(run_id),
            "parent": parent,
            "kind": kind,
            "name": name,
            "node": metadata.get("langgraph_node"),
            "step": metadata.get("langgraph_step"),
            "start_ms": self._ms(),
            "end_ms": None,
            "status": "running",
            **fields,
        }
        with self._lock:
            if len(self._spans) >= MAX_SPANS:
                self.dropped += 1
                return None
            self._spans.append(span)
            self._open[run_id] = span
            self.version += 1
        return span

    def _end(self, run_id: UUID, status: str = "success", **fields: Any) -> dict[str, Any] | None:
        with self._lock:
            span = self._open.pop(run_id, None)
            self.version += 1
        if span is not None:
            span["end_ms"] = self._ms()
            span["status"] = status
            span.update(fields)
        return span

    def _failed(self, run_id: UUID, error: BaseException) -> None:
        name = type(error).__name__
        if name in _STOPPED_BY:
            self._end(run_id, "interrupted" if "Interrupt" in name else "success")
        else:
            self._end(run_id, "error", error={"error": name, "message": str(error)[:MAX_TEXT]})

    # -- nodes -----------------------------------------------------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        ns = _task_ns(metadata)
        if ns is None or ns in self._task_spans:
            return
        name = kwargs.get("name") or (metadata or {}).get("langgraph_node")
        if name != (metadata or {}).get("langgraph_node") or str(name).startswith("__"):
            return
        span = self._begin(run_id, "node", str(name), metadata, ns=ns)
        if span is not None:
            self._task_spans[ns] = span["id"]

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self._open:
            self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self._open:
            self._failed(run_id, error)

    # -- model calls -----------------------------------------------------------------------
    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        params = kwargs.get("invocation_params") or {}
        prompt = _kept_prompt(call_request(messages[0] if messages else [], params))
        self._begin_model(run_id, serialized, metadata, prompt, kwargs)

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        prompt = {"messages": [{"type": "text", "content": p} for p in prompts]}
        self._begin_model(run_id, serialized, metadata, prompt, kwargs)

    def _begin_model(
        self,
        run_id: UUID,
        serialized: dict[str, Any] | None,
        metadata: dict[str, Any] | None,
        prompt: dict[str, Any],
        kwargs: dict[str, Any],
    ) -> None:
        name = model_name(serialized, metadata, **kwargs)
        self._begin(run_id, "model", name, metadata, first_token_ms=None, prompt=_cut(prompt))

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._open.get(run_id)
        if span is not None and span.get("first_token_ms") is None:
            span["first_token_ms"] = self._ms()

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        generation = response.generations[0][0] if response.generations else None
        message = getattr(generation, "message", None)
        if message is not None:
            reply: Any = _cut(message_to_dict(message))
        else:
            reply = {"type": "text", "content": _cut(getattr(generation, "text", ""))}
        self._end(run_id, reply=reply, tokens=token_usage(message))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._failed(run_id, error)

    # -- tool calls ------------------------------------------------------------------------
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        args = inputs if isinstance(inputs, dict) else input_str
        self._begin(run_id, "tool", str(name), metadata, args=_cut(_jsonable(args)))

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        content = getattr(output, "content", output)
        status = "error" if getattr(output, "status", None) == "error" else "success"
        self._end(run_id, status, result=_cut(_jsonable(content)))

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._failed(run_id, error)

    # -- the record ------------------------------------------------------------------------
    def age(self) -> float:
        """Seconds since the run began executing."""
        return time.monotonic() - self._began

    def snapshot(self, *, complete: bool) -> dict[str, Any]:
        """The trace as the API returns it; spans still open have `end_ms` null."""
        with self._lock:
            spans = [dict(span) for span in self._spans]
        return {
            "started_at": self.started_at,
            "duration_ms": self._ms(),
            "complete": complete,
            "dropped": self.dropped,
            "spans": spans,
        }

    def stored(self) -> bytes | None:
        """What the run's end stores: nothing for a run with no span (a graph of plain
        functions run with no model keeps its steps in its checkpoints)."""
        if not self._spans:
            return None
        return dumps(self.snapshot(complete=True))


def _jsonable(value: Any) -> Any:
    """Tool inputs and results as JSON: what is not JSON already is shown as its text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)
