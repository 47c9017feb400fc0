"""Turning a protocol run's stored events into v3 thread-protocol events.

A run started through `run.start` / `input.respond` publishes LangGraph's v2 stream parts
(`runtime/protocol_run.py`); a thread's protocol stream reads them back, in any process, and
this module gives each the shape langgraph-api (0.16.7) gives the same event, which is what
the SDKs' projections read (`langchain-protocol`'s types, except that `custom` carries what
the node wrote as it wrote it). What LangGraph does not stream is derived here: `lifecycle`
(a run starting and ending, a subgraph starting and ending), `input.requested` (one per
interrupt) and a finished tool's result as a `tool` message. One translator follows one
connection; it must see each run from its first event, so its derived events are right.
"""

from __future__ import annotations

import time
from typing import Any

from open_langgraph.runtime.broker import split_event_name
from open_langgraph.serde import loads

#: Channels a subscription may name (besides `custom:<name>`).
CHANNELS = frozenset(
    {
        "values",
        "updates",
        "messages",
        "tools",
        "lifecycle",
        "input",
        "checkpoints",
        "tasks",
        "custom",
    }
)
_PASS_THROUGH = frozenset({"values", "tools", "tasks", "checkpoints"})


def _event(method: str, namespace: list[str], data: Any) -> dict[str, Any]:
    return {
        "type": "event",
        "method": method,
        "params": {"namespace": namespace, "timestamp": int(time.time() * 1000), "data": data},
    }


def _scalar_metadata(metadata: Any) -> dict[str, Any]:
    """The protocol's message metadata holds scalars only; LangGraph's holds lists too."""
    if not isinstance(metadata, dict):
        return {}
    return {
        key: value
        for key, value in metadata.items()
        if isinstance(value, str | int | float | bool) or value is None
    }


def _text_of(content: Any) -> str:
    """A tool result's content as text (a string, or text blocks joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str | dict)
        )
    return "" if content is None else str(content)


def _tool_message(namespace: list[str], data: Any) -> list[dict[str, Any]]:
    """A finished tool's result, mirrored onto `messages` as a `tool` message.

    langgraph-api does this (for the JS SDK's message feeds) under the namespace
    `[..., "tools:<tool_call_id>"]`, so a root-scoped `thread.messages` does not see it; only
    a result that is a message (a dict, as a ToolNode's `ToolMessage` is) is mirrored.
    """
    if not isinstance(data, dict) or data.get("event") != "tool-finished":
        return []
    output = data.get("output")
    if not isinstance(output, dict):
        return []
    call_id = data.get("tool_call_id") or output.get("tool_call_id")
    call_id = call_id if isinstance(call_id, str) else None
    message_id = output.get("id") or (f"tool-{call_id}" if call_id else None)
    if not isinstance(message_id, str):
        return []
    start: dict[str, Any] = {"event": "message-start", "role": "tool", "id": message_id}
    if call_id:
        start["tool_call_id"] = call_id
    text = _text_of(output.get("content"))
    block = {"type": "text", "text": text}
    where = [*namespace, f"tools:{call_id}"] if call_id else namespace
    parts = [
        start,
        {"event": "content-block-start", "index": 0, "content": {"type": "text", "text": ""}},
        {"event": "content-block-delta", "index": 0, "content": block},
        {"event": "content-block-finish", "index": 0, "content": block},
        {"event": "message-finish", "metadata": {}},
    ]
    return [_event("messages", where, part) for part in parts]


class _RunState:
    """What a translator remembers of one run: derived events depend on earlier ones."""

    __slots__ = ("children", "error", "graph_name", "interrupts", "namespaces")

    def __init__(self) -> None:
        self.graph_name: str | None = None
        self.namespaces: set[tuple[str, ...]] = set()
        # task id of a subgraph's namespace segment -> the namespace, to end it with its task
        self.children: dict[str, list[str]] = {}
        self.interrupts: set[str] = set()
        self.error: str | None = None


class ProtocolTranslator:
    """Stored run events in, protocol events (without `seq`/`event_id`) out."""

    def __init__(self) -> None:
        self._runs: dict[str, _RunState] = {}

    def _run(self, run_id: str) -> _RunState:
        state = self._runs.get(run_id)
        if state is None:
            state = self._runs[run_id] = _RunState()
        return state

    def translate(self, run_id: str, name: str, data: bytes) -> list[dict[str, Any]]:
        """The protocol events of one stored run event."""
        run = self._run(run_id)
        if name == "metadata":
            return self.run_started(run_id, None)
        if name == "error":
            error = loads(data)
            run.error = (error.get("message") if isinstance(error, dict) else None) or "run failed"
            return []
        mode, namespace = split_event_name(name)
        payload = loads(data)
        events = self._enter(run, namespace)
        if mode == "values" and isinstance(payload, dict) and "__interrupt__" in payload:
            # A run of the classic routes records its interrupts in its values (LangGraph's
            # v1 format); the protocol has them on `input` only.
            events += self._interrupts(run, namespace, payload["__interrupt__"])
            payload = {k: v for k, v in payload.items() if k != "__interrupt__"}
            if payload:
                events.append(_event(mode, namespace, payload))
        elif mode in _PASS_THROUGH:
            events.append(_event(mode, namespace, payload))
            if mode == "tools":
                events += _tool_message(namespace, payload)
        elif mode == "updates":
            events += self._updates(run, namespace, payload)
        elif mode == "messages":
            events += self._messages(namespace, payload)
        elif mode == "custom":
            # What the node wrote, as it wrote it (as langgraph-api sends it): the SDK's
            # `thread.extensions[name]` yields the dicts whose `name` is `name`, whole.
            events.append(_event("custom", namespace, payload))
        if mode == "tasks" and isinstance(payload, dict) and "result" in payload:
            events += self._child_ended(run, payload)
        return events

    def run_started(self, run_id: str, graph_name: str | None) -> list[dict[str, Any]]:
        """The root `lifecycle` event of a run's start (its `metadata` event): `running`,
        as langgraph-api sends it; the JS SDK's `useStream` takes it for a run's start."""
        self._run(run_id).graph_name = graph_name
        return [_event("lifecycle", [], self._lifecycle("running", graph_name))]

    def run_ended(self, run_id: str, status: str | None) -> list[dict[str, Any]]:
        """The root `lifecycle` event of a run's end, from its stored status."""
        run = self._runs.pop(run_id, None) or _RunState()
        if status in ("success", "interrupted") and run.interrupts:
            # Stopped at an interrupt (stored `success`, as on the Platform) or cancelled
            # while one was pending.
            data = self._lifecycle("interrupted", run.graph_name)
        elif status == "success":
            data = self._lifecycle("completed", run.graph_name)
        else:
            error = run.error or (
                "the run was cancelled" if status == "interrupted" else "run failed"
            )
            data = {**self._lifecycle("failed", run.graph_name), "error": error}
        return [_event("lifecycle", [], data)]

    @staticmethod
    def _lifecycle(phase: str, graph_name: str | None) -> dict[str, Any]:
        return {"event": phase, "graph_name": graph_name} if graph_name else {"event": phase}

    @staticmethod
    def _enter(run: _RunState, namespace: list[str]) -> list[dict[str, Any]]:
        """`lifecycle: started` for each subgraph namespace seen the first time."""
        events = []
        for depth in range(1, len(namespace) + 1):
            path = tuple(namespace[:depth])
            if path in run.namespaces:
                continue
            run.namespaces.add(path)
            graph_name, _, task_id = path[-1].partition(":")
            if task_id:
                run.children[task_id] = list(path)
            events.append(
                _event("lifecycle", list(path), {"event": "started", "graph_name": graph_name})
            )
        return events

    @staticmethod
    def _child_ended(run: _RunState, result: dict[str, Any]) -> list[dict[str, Any]]:
        """A task's result ends the subgraph it ran, if it ran one."""
        path = run.children.pop(str(result.get("id")), None)
        if path is None:
            return []
        if result.get("interrupts"):
            return [_event("lifecycle", path, {"event": "interrupted"})]
        if result.get("error"):
            return [_event("lifecycle", path, {"event": "failed", "error": str(result["error"])})]
        return [_event("lifecycle", path, {"event": "completed"})]

    @staticmethod
    def _updates(run: _RunState, namespace: list[str], payload: Any) -> list[dict[str, Any]]:
        if not isinstance(payload, dict):
            return []
        events = []
        for node, values in payload.items():
            if node == "__interrupt__":
                events += ProtocolTranslator._interrupts(run, namespace, values)
            else:
                events.append(_event("updates", namespace, {"node": node, "values": values}))
        return events

    @staticmethod
    def _interrupts(run: _RunState, namespace: list[str], interrupts: Any) -> list[dict[str, Any]]:
        """One `input.requested` per interrupt not requested yet."""
        events = []
        for interrupt in interrupts if isinstance(interrupts, list) else []:
            if not isinstance(interrupt, dict):
                continue
            interrupt_id = str(interrupt.get("id"))
            if interrupt_id in run.interrupts:
                continue
            run.interrupts.add(interrupt_id)
            value = interrupt.get("value")
            # `payload` is the protocol's name; the SDK (0.4.14) reads `value`.
            data = {"interrupt_id": interrupt_id, "payload": value, "value": value}
            events.append(_event("input.requested", namespace, data))
        return events

    @staticmethod
    def _messages(namespace: list[str], payload: Any) -> list[dict[str, Any]]:
        if not isinstance(payload, list) or len(payload) != 2:
            return []
        message, metadata = payload
        # Only a chat model's content-block events are protocol messages (as langgraph-api
        # forwards them). A whole message (a node's output, a model that did not stream)
        # and a v1 chunk (a run not started by the protocol) are not: they are in `values`
        # and `updates`, and one here would be a message stream without its tokens.
        if not isinstance(message, dict) or not isinstance(message.get("event"), str):
            return []
        part = dict(message)
        if part["event"] == "message-start":
            part.setdefault("id", part.get("message_id") or "")
            part["metadata"] = {**_scalar_metadata(metadata), **(part.get("metadata") or {})}
        return [_event("messages", namespace, part)]
