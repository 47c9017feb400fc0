"""The bodies of the cron routes, shared by the HTTP layer (which parses them) and the cron
service. Field names and value sets are the Platform's (`CronCreate`, `ThreadCronCreate`,
`CronPatch`, `CronSearch`, `CronCountRequest` in its openapi.json) and those the newest
`langgraph_sdk` sends; unknown fields are ignored, as on the Platform.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from open_langgraph.serde import INT64_MAX
from open_langgraph.services.run_request import Body
from open_langgraph.storage.cron_base import CronField

StreamModes = str | list[str] | None
Breakpoints = Literal["*"] | list[str] | None
OnRunCompleted = Literal["delete", "keep"]
CronSortBy = Literal[
    "cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"
]

#: The fields of a cron body that make up the run each firing creates (its `payload`).
RUN_FIELDS = (
    "assistant_id",
    "input",
    "metadata",
    "config",
    "context",
    "webhook",
    "interrupt_before",
    "interrupt_after",
    "multitask_strategy",
    "stream_mode",
    "stream_subgraphs",
    "stream_resumable",
    "durability",
    "checkpoint_during",
)


class _CronRun(Body):
    """What a firing's run is made of."""

    input: Any = None
    metadata: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    webhook: str | None = Field(None, min_length=1, max_length=65536)
    interrupt_before: Breakpoints = None
    interrupt_after: Breakpoints = None
    stream_mode: StreamModes = None
    stream_subgraphs: bool | None = None
    stream_resumable: bool | None = None
    durability: Literal["sync", "async", "exit"] | None = None
    checkpoint_during: bool | None = None

    def run_payload(self) -> dict[str, Any]:
        """The run fields the request set, as the cron's stored `payload`."""
        return self.model_dump(include=set(RUN_FIELDS), exclude_none=True)


class CronCreate(_CronRun):
    """`POST /runs/crons` and `POST /threads/{thread_id}/runs/crons`."""

    assistant_id: str
    schedule: str
    timezone: str | None = None
    end_time: datetime | None = None
    enabled: bool | None = None
    #: Stateless crons only: whether each firing's new thread is deleted after its run.
    on_run_completed: OnRunCompleted | None = None
    #: Thread crons only: what a firing does when the thread still has a run in flight.
    multitask_strategy: Literal["reject", "interrupt", "rollback", "enqueue"] | None = None


class CronPatch(_CronRun):
    """`PATCH /runs/crons/{cron_id}`: only the fields sent change. An explicit
    `"end_time": null` clears the end time; leaving it out keeps it."""

    schedule: str | None = None
    timezone: str | None = None
    end_time: datetime | None = None
    enabled: bool | None = None
    on_run_completed: OnRunCompleted | None = None


class CronSearch(Body):
    assistant_id: str | None = None
    thread_id: str | None = None
    enabled: bool | None = None
    metadata: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=INT64_MAX)
    sort_by: CronSortBy = "created_at"
    sort_order: Literal["asc", "desc"] = "desc"
    select: list[CronField] | None = None


class CronCount(Body):
    assistant_id: str | None = None
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None
