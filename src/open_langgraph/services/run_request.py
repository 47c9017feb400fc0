"""The body of a run request, shared by the HTTP layer (which parses it) and the run service.

Like LangGraph Platform, bodies accept fields they do not know and ignore them: the Platform's
schema allows additional properties everywhere, and newer `langgraph_sdk` releases send fields
older servers never heard of. Fields we know but cannot honour are listed in docs/server.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from open_langgraph.serde import unstorable
from open_langgraph.services.request_limits import check_after_seconds, check_list_lengths


class Body(BaseModel):
    """Base of every request body: unknown fields are ignored, as on the Platform."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _refuse_unstorable(cls, data: Any) -> Any:
        """A 422 naming the problem, rather than a failed write after part of the work."""
        problem = unstorable(data)
        if problem is not None:
            raise ValueError(problem)
        return data

    @model_validator(mode="before")
    @classmethod
    def _bound_lists(cls, data: Any) -> Any:
        """Lists the body declares (`ids`, `run_ids`, ...) hold at most `max_list_items`."""
        check_list_lengths(cls, data)
        return data


class CheckpointRef(Body):
    """A checkpoint as the SDK sends it; unknown keys are tolerated (it echoes our own)."""

    thread_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    checkpoint_map: dict[str, Any] | None = None


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

    @field_validator("after_seconds")
    @classmethod
    def _bound_delay(cls, seconds: float | None) -> float | None:
        return check_after_seconds(seconds)
