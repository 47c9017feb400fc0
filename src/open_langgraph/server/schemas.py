"""Request bodies of the API, with the field names and value sets of `langgraph_sdk`.

The bodies a service needs itself (a run's) live in `services.run_request`, below this layer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from open_langgraph.serde import INT64_MAX
from open_langgraph.services.request_limits import check_batch_size
from open_langgraph.services.run_request import Body, CheckpointRef, RunCommand, RunCreate

__all__ = ["CheckpointRef", "RunCreate"]

SortOrder = Literal["asc", "desc"]
ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
RunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
IfExists = Literal["raise", "do_nothing"]


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
    offset: int = Field(0, ge=0, le=INT64_MAX)
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
    offset: int = Field(0, ge=0, le=INT64_MAX)


class AssistantSetLatest(Body):
    version: int = Field(ge=1, le=INT64_MAX)


# -- threads ------------------------------------------------------------------------------
class ThreadTTL(Body):
    """`ttl` of a thread: minutes from now, and what sweeping it does."""

    strategy: Literal["delete", "keep_latest"] | None = None
    ttl: float | None = None


class SuperstepUpdate(Body):
    values: Any = None
    command: RunCommand | None = None
    as_node: str


class Superstep(Body):
    updates: list[SuperstepUpdate]


class ThreadCreate(Body):
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None
    if_exists: IfExists = "raise"
    supersteps: list[Superstep] | None = None
    ttl: ThreadTTL | float | None = None


class ThreadPatch(Body):
    metadata: dict[str, Any] | None = None
    ttl: ThreadTTL | float | None = None


class ThreadSearch(Body):
    ids: list[str] | None = None
    metadata: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    status: ThreadStatus | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=INT64_MAX)
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
#: `POST /runs/batch`: at most `limits.max_batch_size` runs, counted before any is parsed.
RunBatch = Annotated[list[RunCreate], BeforeValidator(check_batch_size)]


class RunCancelMany(Body):
    thread_id: str | None = None
    run_ids: list[str] | None = None
    status: Literal["pending", "running", "all"] | None = None
