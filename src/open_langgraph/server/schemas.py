"""Request bodies of the API, with the field names and value sets of `langgraph_sdk`.

Unknown fields are refused (422 naming the field) rather than silently ignored, so a client
relying on a feature we lack finds out at once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SortOrder = Literal["asc", "desc"]
ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
RunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
IfExists = Literal["raise", "do_nothing"]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- assistants ---------------------------------------------------------------------------
class AssistantCreate(Body):
    graph_id: str
    assistant_id: str | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    if_exists: IfExists = "raise"
    name: str | None = None
    description: str | None = None


class AssistantPatch(Body):
    graph_id: str | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    name: str | None = None
    description: str | None = None


class AssistantSearch(Body):
    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)
    sort_by: str | None = None
    sort_order: SortOrder | None = None
    select: list[str] | None = None


class AssistantCount(Body):
    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None


class AssistantVersionsSearch(Body):
    metadata: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)


class AssistantSetLatest(Body):
    version: int = Field(ge=1)


# -- threads ------------------------------------------------------------------------------
class CheckpointRef(BaseModel):
    """A checkpoint as the SDK sends it; unknown keys are tolerated (it echoes our own)."""

    thread_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    checkpoint_map: dict[str, Any] | None = None


class ThreadCreate(Body):
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None
    if_exists: IfExists = "raise"
    supersteps: list[dict[str, Any]] | None = None
    ttl: dict[str, Any] | int | None = None


class ThreadPatch(Body):
    metadata: dict[str, Any] | None = None
    ttl: dict[str, Any] | int | None = None


class ThreadSearch(Body):
    ids: list[str] | None = None
    metadata: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    status: ThreadStatus | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)
    sort_by: str | None = None
    sort_order: SortOrder | None = None
    select: list[str] | None = None
    extract: dict[str, str] | None = None


class ThreadCount(Body):
    metadata: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    status: ThreadStatus | None = None


class ThreadPrune(Body):
    thread_ids: list[str]
    strategy: Literal["delete", "keep_latest"] = "delete"


class ThreadStateUpdate(Body):
    values: Any = None
    as_node: str | None = None
    checkpoint_id: str | None = None
    checkpoint: CheckpointRef | None = None


class ThreadStateAtCheckpoint(Body):
    checkpoint: CheckpointRef
    subgraphs: bool = False
    select: list[str] | None = None


class ThreadHistory(Body):
    limit: int = Field(10, ge=1, le=1000)
    before: str | CheckpointRef | None = None
    metadata: dict[str, Any] | None = None
    checkpoint: CheckpointRef | None = None
    select: list[str] | None = None


# -- runs ---------------------------------------------------------------------------------
class SendRef(Body):
    node: str
    input: Any = None


class RunCommand(Body):
    update: dict[str, Any] | list[tuple[str, Any]] | None = None
    resume: Any = None
    goto: SendRef | str | list[SendRef | str] | None = None


class RunCreate(Body):
    """Every field `langgraph_sdk` sends when creating, waiting on or streaming a run."""

    assistant_id: str
    input: Any = None
    command: RunCommand | None = None
    checkpoint: CheckpointRef | None = None
    checkpoint_id: str | None = None
    checkpoint_during: bool | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    interrupt_before: Literal["*"] | list[str] | None = None
    interrupt_after: Literal["*"] | list[str] | None = None
    multitask_strategy: Literal["reject", "interrupt", "rollback", "enqueue"] | None = None
    if_not_exists: Literal["create", "reject"] | None = None
    after_seconds: float | None = Field(None, ge=0)
    stream_mode: str | list[str] | None = None
    stream_subgraphs: bool | None = None
    stream_resumable: bool | None = None
    on_disconnect: Literal["cancel", "continue"] | None = None
    on_completion: Literal["delete", "keep"] | None = None
    webhook: str | None = None
    durability: Literal["sync", "async", "exit"] | None = None
    feedback_keys: list[str] | None = None
    strict_resume: bool | None = None
    langsmith_tracer: dict[str, Any] | None = None


class RunCancelMany(Body):
    thread_id: str | None = None
    run_ids: list[str] | None = None
    status: Literal["pending", "running", "all"] | None = None
