"""Turning a protocol run's stored events into v3 thread-protocol events.

A run started through `run.start` / `input.respond` publishes LangGraph's v2 stream parts
(`runtime/protocol_run.py`); a thread's protocol stream reads them back, in any process, and
this module gives each the shape of the `langchain-protocol` event of its channel. What
LangGraph does not stream is derived here: `lifecycle` (a run starting and ending, a subgraph
starting and ending) and `input.requested` (one per interrupt). One translator follows one
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
_ROLES = {"ai": "ai", "human": "human", "system": "system"}


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


def _whole_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The event lifecycle of a message a model returned whole (it did not stream)."""
    message_id = str(message.get("id") or "")
    events: list[dict[str, Any]] = [
        {
            "event": "message-start",
            "role": _ROLES.get(message.get("type", ""), "ai"),
            "id": message_id,
        }
    ]
    index = 0
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = "".join(block.get("text", "") for block in content if isinstance(block, dict))
    if text:
        events += [
            {"event": "content-block-start", "index": 0, "content": {"type": "text", "text": ""}},
            {
                "event": "content-block-delta",
                "index": 0,
                "delta": {"type": "text-delta", "text": text},
            },
            {
                "event": "content-block-finish",
                "index": 0,
                "content": {"type": "text", "text": text},
            },
        ]
        index = 1
    for call in message.get("tool_calls") or []:
        block = {
            "type": "tool_call",
            "id": call.get("id"),
            "name": call.get("name"),
            "args": call.get("args") or {},
        }
        events.append({"event": "content-block-start", "index": index, "content": block})
        events.append({"event": "content-block-finish", "index": index, "content": block})
        index += 1
    events.append({"event": "message-finish"})
    return events


class _RunState:
    """What a translator remembers of one run: derived events depend on earlier ones."""

    __slots__ = ("children", "error", "interrupts", "namespaces")

    def __init__(self) -> None:
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
            return [_event("lifecycle", [], {"event": "started"})]
        if name == "error":
            error = loads(data)
            run.error = (error.get("message") if isinstance(error, dict) else None) or "run failed"
            return []
        mode, namespace = split_event_name(name)
        payload = loads(data)
        events = self._enter(run, namespace)
        if mode in _PASS_THROUGH:
            events.append(_event(mode, namespace, payload))
        elif mode == "updates":
            events += self._updates(run, namespace, payload)
        elif mode == "messages":
            events += self._messages(namespace, payload)
        elif mode == "custom":
            custom: dict[str, Any] = {"payload": payload}
            if isinstance(payload, dict) and isinstance(payload.get("name"), str):
                custom["name"] = payload["name"]
            events.append(_event("custom", namespace, custom))
        if mode == "tasks" and isinstance(payload, dict) and "result" in payload:
            events += self._child_ended(run, payload)
        return events

    def run_ended(self, run_id: str, status: str | None) -> list[dict[str, Any]]:
        """The root `lifecycle` event of a run's end, from its stored status."""
        run = self._runs.pop(run_id, None) or _RunState()
        if status == "success":
            return [_event("lifecycle", [], {"event": "completed"})]
        if status == "interrupted" and run.interrupts:
            return [_event("lifecycle", [], {"event": "interrupted"})]
        error = run.error or ("the run was cancelled" if status == "interrupted" else "run failed")
        return [_event("lifecycle", [], {"event": "failed", "error": error})]

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
            if node != "__interrupt__":
                events.append(_event("updates", namespace, {"node": node, "values": values}))
                continue
            for interrupt in values or []:
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
        # A chunk is LangGraph's v1 `messages` mode, of a run not started by the protocol:
        # its tokens are not protocol events, and that run's `values` carry its messages.
        if not isinstance(message, dict) or message.get("type") == "AIMessageChunk":
            return []
        # A message that was not streamed is replayed as its lifecycle.
        parts = _whole_message(message) if "event" not in message else [dict(message)]
        start = parts[0]
        if start.get("event") == "message-start":
            start.setdefault("id", start.get("message_id") or "")
            start["metadata"] = {**_scalar_metadata(metadata), **(start.get("metadata") or {})}
        return [_event("messages", namespace, part) for part in parts]
