"""A2A's objects (v0.3, as the Platform's schema shows them) and LangGraph's, both ways.

An A2A message becomes a graph input: its text parts one user message in `messages`, its data
parts merged into the input. A run's output becomes an A2A task: the last AI message as the
"Assistant Response" artifact, the conversation as the task's history, an interrupt as an
"Interrupt" artifact with the task waiting for input. A task id is `{contextId}:{runId}`
(thread and run), so `tasks/get` finds the run from the id alone, as on the Platform.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from open_langgraph.errors import OLGError

TaskState = Literal[
    "submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"
]

#: JSON-RPC 2.0's codes and A2A's own (its server-error range).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002
UNSUPPORTED_OPERATION = -32004

_RUN_STATES: dict[str, TaskState] = {
    "pending": "submitted",
    "running": "working",
    "success": "completed",
    "interrupted": "canceled",  # unless its thread waits at an interrupt: see task_state
    "error": "failed",
    "timeout": "failed",
}
_ROLES = {"human": "user", "user": "user", "ai": "agent", "assistant": "agent"}


class A2AError(OLGError):
    """A JSON-RPC error object to answer with (`code`, `detail` as its message)."""

    def __init__(self, code: int, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def task_id(context_id: str, run_id: str) -> str:
    return f"{context_id}:{run_id}"


def split_task_id(value: str, context_id: str | None) -> tuple[str, str]:
    """(thread, run) of a task id; a bare run id takes its thread from `contextId`."""
    if ":" in value:
        thread_id, run_id = value.split(":", 1)
        if context_id is not None and context_id != thread_id:
            raise A2AError(TASK_NOT_FOUND, f"Task not found: {value} in context {context_id!r}")
        return thread_id, run_id
    if not context_id:
        raise A2AError(INVALID_PARAMS, "contextId is required with a bare task id")
    return context_id, value


def task_state(run_status: str, thread_interrupted: bool) -> TaskState:
    """A run that stopped at a graph's interrupt (its thread waits there) waits for the user's
    input; an interrupted run on a thread that does not wait was cancelled."""
    if run_status in ("success", "interrupted") and thread_interrupted:
        return "input-required"
    return _RUN_STATES.get(run_status, "unknown")


def message_input(parts: list[Any], accepts_messages: bool) -> dict[str, Any]:
    """The graph input for a message's parts.

    Raises:
        A2AError: a part is neither text nor data, or text is sent to a graph whose input
            has no `messages`.
    """
    texts: list[str] = []
    data: dict[str, Any] = {}
    for part in parts:
        kind = part.get("kind") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "data" and isinstance(part.get("data"), dict):
            data.update(part["data"])
        else:
            raise A2AError(INVALID_PARAMS, "Only text and data parts are supported")
    if texts and not accepts_messages:
        raise A2AError(
            INVALID_PARAMS, "This assistant's input has no messages field: send data parts"
        )
    graph_input = dict(data)
    if texts:
        graph_input["messages"] = [{"role": "user", "content": "\n".join(texts)}]
    return graph_input


def resume_value(parts: list[Any]) -> Any:
    """What a message answering an interrupt resumes the graph with: a data part's `resume`
    (or its whole data), else the text."""
    for part in parts:
        if isinstance(part, dict) and part.get("kind") == "data":
            data = part.get("data") or {}
            return data.get("resume", data)
    return "\n".join(
        part["text"] for part in parts if isinstance(part, dict) and part.get("kind") == "text"
    )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            block.get("text", "") if isinstance(block, dict) else str(block) for block in content
        )
    return "" if content is None else str(content)


def _a2a_message(message: dict[str, Any], task: str, context_id: str) -> dict[str, Any] | None:
    role = _ROLES.get(str(message.get("type") or message.get("role")))
    if role is None:  # tool and system messages are the agent's own business
        return None
    return {
        "kind": "message",
        "role": role,
        "parts": [{"kind": "text", "text": _text_of(message.get("content"))}],
        "messageId": str(message.get("id") or uuid.uuid4()),
        "taskId": task,
        "contextId": context_id,
    }


def history(output: Any, task: str, context_id: str, length: int | None) -> list[dict[str, Any]]:
    """The conversation in the run's output as A2A messages, the last `length` of them."""
    messages = output.get("messages") if isinstance(output, dict) else None
    found = [
        converted
        for message in messages or ()
        if isinstance(message, dict)
        and (converted := _a2a_message(message, task, context_id)) is not None
    ]
    if length is None:
        return found
    return found[-length:] if length > 0 else []


def reply_parts(output: Any) -> list[dict[str, Any]]:
    """The agent's answer: its last AI message's text, or the whole output as data."""
    messages = output.get("messages") if isinstance(output, dict) else None
    for message in reversed(messages or []):
        if isinstance(message, dict) and _ROLES.get(str(message.get("type"))) == "agent":
            return [{"kind": "text", "text": _text_of(message.get("content"))}]
    return [{"kind": "data", "data": output if isinstance(output, dict) else {"output": output}}]


def response_artifact(output: Any, assistant_id: str) -> dict[str, Any]:
    return {
        "artifactId": str(uuid.uuid4()),
        "name": "Assistant Response",
        "description": f"Response from assistant {assistant_id}",
        "parts": reply_parts(output),
    }


def interrupt_artifact(interrupts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "artifactId": str(uuid.uuid4()),
        "name": "Interrupt",
        "description": "Agent requires input to continue",
        "parts": [
            {"kind": "data", "data": {"id": i.get("id"), "value": i.get("value")}}
            for i in interrupts
        ],
    }


def status_message(text: str, task: str, context_id: str) -> dict[str, Any]:
    return {
        "kind": "message",
        "role": "agent",
        "parts": [{"kind": "text", "text": text}],
        "messageId": str(uuid.uuid4()),
        "taskId": task,
        "contextId": context_id,
    }
