"""Turning LangGraph `StateSnapshot`s into the Platform's `ThreadState` JSON."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Interrupt, StateSnapshot

from open_langgraph.serde import to_jsonable
from open_langgraph.storage.base import ThreadUpdate


def checkpoint_of(config: RunnableConfig | None) -> dict[str, Any] | None:
    if not config:
        return None
    configurable = config.get("configurable", {})
    checkpoint = {
        "thread_id": configurable.get("thread_id"),
        "checkpoint_ns": configurable.get("checkpoint_ns", ""),
    }
    if "checkpoint_id" in configurable:  # a subgraph task's config names only its namespace
        checkpoint["checkpoint_id"] = configurable["checkpoint_id"]
    if configurable.get("checkpoint_map"):
        checkpoint["checkpoint_map"] = configurable["checkpoint_map"]
    return checkpoint


def interrupt_json(interrupt: Interrupt) -> dict[str, Any]:
    """An interrupt as the Platform shows it; `response_schema` (the JSON Schema of the answer
    the graph expects, e.g. the HITL middleware's per-call decisions) only when it has one."""
    shown = {"value": to_jsonable(interrupt.value), "id": interrupt.id}
    schema = getattr(interrupt, "response_schema", None)  # langgraph >= 1.2's Interrupt
    if schema is not None:
        shown["response_schema"] = to_jsonable(schema)
    return shown


def _error_text(error: Any) -> str | None:
    """The exception's repr, as langgraph-api shows it. Read back from a checkpoint's pending
    writes the error is that text already, and must not be quoted a second time."""
    if not error:
        return None
    return error if isinstance(error, str) else repr(error)


def snapshot_json(snapshot: StateSnapshot) -> dict[str, Any]:
    """The `ThreadState` body for one snapshot; subgraph states nest under their task."""
    tasks = []
    for task in snapshot.tasks:
        state = task.state
        tasks.append(
            {
                "id": task.id,
                "name": task.name,
                "path": list(task.path),
                "error": _error_text(task.error),
                "interrupts": [interrupt_json(i) for i in task.interrupts],
                "checkpoint": checkpoint_of(state) if isinstance(state, dict) else None,
                "state": snapshot_json(state) if isinstance(state, StateSnapshot) else None,
                "result": to_jsonable(task.result) if task.result is not None else None,
            }
        )
    checkpoint = checkpoint_of(snapshot.config)
    parent = checkpoint_of(snapshot.parent_config)
    return {
        "values": to_jsonable(snapshot.values),
        "next": list(snapshot.next),
        "tasks": tasks,
        "metadata": to_jsonable(snapshot.metadata),
        "created_at": snapshot.created_at,
        "checkpoint": checkpoint,
        "parent_checkpoint": parent,
        "interrupts": [interrupt_json(i) for i in snapshot.interrupts],
        "checkpoint_id": checkpoint.get("checkpoint_id") if checkpoint else None,
        "parent_checkpoint_id": parent.get("checkpoint_id") if parent else None,
    }


def empty_state() -> dict[str, Any]:
    """What a thread with no checkpoint yet reports as its state."""
    return {
        "values": {},
        "next": [],
        "tasks": [],
        "metadata": None,
        "created_at": None,
        "checkpoint": None,
        "parent_checkpoint": None,
        "interrupts": [],
        "checkpoint_id": None,
        "parent_checkpoint_id": None,
    }


def thread_update_from(snapshot: StateSnapshot, *, busy: bool = False) -> ThreadUpdate:
    """What a thread row shows after its state changed: values, interrupts and a status that
    is `interrupted` while tasks wait to run (`busy` when another run is about to start)."""
    has_state = snapshot.created_at is not None
    waiting = has_state and bool(snapshot.next)
    return ThreadUpdate(
        status="busy" if busy else ("interrupted" if waiting else "idle"),
        values=to_jsonable(snapshot.values) if has_state else None,
        interrupts=thread_interrupts(snapshot),
        error=None,
        state_updated=True,
    )


def thread_interrupts(snapshot: StateSnapshot) -> dict[str, list[dict[str, Any]]]:
    """The thread record's `interrupts`: pending interrupts keyed by task id."""
    return {
        task.id: [interrupt_json(i) for i in task.interrupts]
        for task in snapshot.tasks
        if task.interrupts
    }
