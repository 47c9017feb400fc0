"""The persistence interface every backend implements, so routers and the runtime never see SQL.

Records are plain dicts shaped like the LangGraph Platform API objects (`Assistant`, `Thread`,
`Run`), so the server can return them without another conversion step.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

import orjson
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore, IndexConfig, TTLConfig

from open_langgraph.extras import FeatureOff

ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
RunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
#: The statuses a run ends in; the others mean it is still in flight.
FINISHED_RUN_STATUSES = frozenset({"success", "error", "interrupted", "timeout"})
SortOrder = Literal["asc", "desc"]
#: What sweeping a thread does: remove it, or keep it with only its latest checkpoint.
TTLStrategy = Literal["delete", "keep_latest"]
#: An authorization filter over a resource's metadata (`storage/filters.py`): methods taking
#: one act only on the resources inside it, and treat the others as missing.
AuthFilter = dict[str, Any]

ASSISTANT_SORT_FIELDS = frozenset({"assistant_id", "graph_id", "name", "created_at", "updated_at"})
THREAD_SORT_FIELDS = frozenset(
    {"thread_id", "status", "created_at", "updated_at", "state_updated_at"}
)


def utc_now() -> str:
    """Timestamps are ISO-8601 strings in UTC, as LangGraph Platform returns them.

    orjson writes the same text as `datetime.isoformat()` (microseconds only when non-zero,
    `+00:00`) at half the cost; a run takes about ten timestamps."""
    return orjson.dumps(datetime.now(UTC))[1:-1].decode()


class _Unset:
    """Marks a field an update leaves as it is (None is a value)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass(slots=True)
class ThreadUpdate:
    """What a run or a state edit changes on a thread row; UNSET fields stay as they are."""

    status: ThreadStatus | None = None
    values: Any = UNSET
    interrupts: dict[str, Any] | None = None
    error: Any = UNSET
    metadata: dict[str, Any] | None = None
    state_updated: bool = False


@dataclass(frozen=True, slots=True)
class StoredBytes:
    """How many stored rows of one kind a thread has, and the bytes they take."""

    count: int = 0
    bytes: int = 0


@dataclass(frozen=True, slots=True)
class CheckpointBytes:
    """What a thread's checkpoints take in the checkpointer's own tables, as stored.

    `channel_values` is empty on a backend whose saver keeps channel values inside the
    checkpoint row (SQLite): their bytes are then counted in `checkpoints`."""

    checkpoints: StoredBytes
    channel_values: StoredBytes
    #: Per channel: (versions stored, bytes).
    by_channel: dict[str, StoredBytes]
    pending_writes: StoredBytes


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a run's stream, with its per-run monotonically increasing id."""

    seq: int
    event: str
    data: bytes

    @property
    def event_id(self) -> str:
        """The SSE `id:` a client sends back as `Last-Event-ID` to resume after this event."""
        return str(self.seq)


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """What a backend opens LangGraph's long-term memory store with (`store` of the config):
    its semantic index (embedder resolved) and TTL, both LangGraph's own config types."""

    index: IndexConfig | None = None
    ttl: TTLConfig | None = None
    index_off: FeatureOff | None = None
    """Why the configured index is not used (its package is missing): the store opens
    without it and searches by `query` are refused with this reason."""


class Storage(abc.ABC):
    """Assistants, threads, runs, run events, plus the LangGraph checkpointer they share, and
    the LangGraph store (`BaseStore`) graphs and the `/store` routes keep memories in."""

    checkpointer: BaseCheckpointSaver
    store: BaseStore
    #: What messages call the database (`GET /ok?check_db=1` names it when it fails).
    engine_name: ClassVar[str] = "the database"

    # -- lifecycle -------------------------------------------------------------------------
    @abc.abstractmethod
    async def setup(self) -> None:
        """Create or migrate the schema; idempotent."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    async def ping(self) -> None:
        """Raise when the database does not answer now (readiness.py); the SQL backends ask
        for `SELECT 1`."""
        await self.count_runs_in_flight()

    # -- assistants ------------------------------------------------------------------------
    @abc.abstractmethod
    async def create_assistant(
        self,
        *,
        assistant_id: str,
        graph_id: str,
        config: dict[str, Any],
        context: dict[str, Any],
        metadata: dict[str, Any],
        name: str,
        description: str | None,
        if_exists: Literal["raise", "do_nothing"],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any]:
        """Insert version 1 of an assistant; raises `Conflict` if it exists and if_exists=raise,
        or if it exists outside `auth_filter` (never handing out another user's assistant)."""

    @abc.abstractmethod
    async def get_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def patch_assistant(
        self, assistant_id: str, changes: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        """Write a new version with `changes` applied (metadata merges) and make it latest."""

    @abc.abstractmethod
    async def delete_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> bool: ...

    @abc.abstractmethod
    async def search_assistants(
        self,
        *,
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        limit: int,
        offset: int,
        sort_by: str,
        sort_order: SortOrder,
        auth_filter: AuthFilter | None = None,
    ) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def count_assistants(
        self,
        *,
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> int: ...

    @abc.abstractmethod
    async def list_assistant_versions(
        self, assistant_id: str, *, metadata: dict[str, Any] | None, limit: int, offset: int
    ) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def set_latest_assistant_version(
        self, assistant_id: str, version: int
    ) -> dict[str, Any] | None:
        """Point the assistant at an existing version; None if assistant or version is missing."""

    # -- threads ---------------------------------------------------------------------------
    @abc.abstractmethod
    async def create_thread(
        self,
        *,
        thread_id: str,
        metadata: dict[str, Any],
        if_exists: Literal["raise", "do_nothing"],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any]:
        """Insert a thread; an existing one is returned (`do_nothing`) only when it lies
        inside `auth_filter`, else `Conflict`."""

    @abc.abstractmethod
    async def get_thread(
        self, thread_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def patch_thread(
        self, thread_id: str, metadata: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def delete_thread(self, thread_id: str, auth_filter: AuthFilter | None = None) -> bool:
        """Delete the thread with its runs, their events and its checkpoints."""

    @abc.abstractmethod
    async def search_threads(
        self,
        *,
        ids: Sequence[str] | None,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        limit: int,
        offset: int,
        sort_by: str,
        sort_order: SortOrder,
        auth_filter: AuthFilter | None = None,
    ) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def count_threads(
        self,
        *,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None = None,
    ) -> int: ...

    @abc.abstractmethod
    async def update_thread(self, thread_id: str, update: ThreadUpdate) -> None: ...

    @abc.abstractmethod
    async def copy_thread(
        self,
        thread_id: str,
        new_thread_id: str,
        auth_filter: AuthFilter | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """Copy the thread row and all its checkpoints under a new id; `metadata`, when
        given, replaces the copy's metadata."""

    @abc.abstractmethod
    async def prune_threads(
        self,
        thread_ids: Sequence[str],
        strategy: TTLStrategy,
        auth_filter: AuthFilter | None = None,
    ) -> int: ...

    @abc.abstractmethod
    async def set_thread_ttl(
        self, thread_id: str, strategy: TTLStrategy, minutes: float, expires_at: str
    ) -> None:
        """Sweep the thread (`delete` it or prune it to `keep_latest`) at `expires_at`."""

    @abc.abstractmethod
    async def get_thread_ttl(self, thread_id: str) -> dict[str, Any] | None:
        """`{"strategy", "ttl_minutes", "expires_at"}` of the thread, if it has a TTL."""

    @abc.abstractmethod
    async def due_thread_ttls(self, now: str, limit: int) -> list[tuple[str, TTLStrategy]]:
        """Threads whose TTL expired at or before `now`, oldest first."""

    # -- runs ------------------------------------------------------------------------------
    @abc.abstractmethod
    async def create_run(self, run: dict[str, Any], thread_update: ThreadUpdate) -> None:
        """Insert a run and mark its thread (busy, graph metadata) in one transaction."""

    @abc.abstractmethod
    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The API record plus the private `output` and `error` fields."""

    @abc.abstractmethod
    async def list_runs(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def delete_runs(self, run_ids: Sequence[str]) -> None:
        """Delete runs with their events and traces (checkpoints stay; rollback removes
        those)."""

    @abc.abstractmethod
    async def finish_run(
        self,
        run_id: str,
        *,
        status: RunStatus,
        output: Any,
        error: dict[str, Any] | None,
        events: Sequence[StoredEvent],
        thread_update: ThreadUpdate | None,
        trace: bytes | None = None,
    ) -> None:
        """Record a run's outcome, its unstored events, its trace (`observability.run_trace`)
        and its thread's new state at once."""

    @abc.abstractmethod
    async def set_run_status(self, run_id: str, status: RunStatus) -> None: ...

    @abc.abstractmethod
    async def get_run_events(self, run_id: str, after_seq: int = -1) -> list[StoredEvent]: ...

    @abc.abstractmethod
    async def get_run_trace(self, run_id: str) -> bytes | None:
        """The trace stored with the run's end (JSON), if it has one."""

    @abc.abstractmethod
    async def delete_run_events_before(self, cutoff: str, max_runs: int) -> int:
        """Delete the stored events and traces of up to `max_runs` runs that ended before
        `cutoff` (an ISO-8601 UTC time), oldest first; returns how many runs lost them. The
        runs themselves, with their status and output, stay."""

    @abc.abstractmethod
    async def runs_in_flight(self) -> list[dict[str, Any]]:
        """Runs left `pending` or `running`, oldest first: what a restart must settle."""

    async def count_runs_in_flight(self) -> dict[str, int]:
        """How many runs are `pending` (the queue depth) and `running`, by status: what
        `/metrics` shows. The SQL backends count in the database; this reads them all."""
        counts: dict[str, int] = {}
        for run in await self.runs_in_flight():
            counts[run["status"]] = counts.get(run["status"], 0) + 1
        return counts

    @abc.abstractmethod
    async def release_idle_threads(self) -> int:
        """Set threads marked `busy` without a pending or running run back to `idle`.

        A restart's repair for a thread whose run ended while storage was failing."""

    # -- checkpoints beyond the saver's own API ---------------------------------------------
    @abc.abstractmethod
    async def delete_checkpoints_of_runs(self, thread_id: str, run_ids: Sequence[str]) -> None:
        """Remove the checkpoints (and their writes) that `run_ids` created: rollback."""

    @abc.abstractmethod
    async def checkpoint_bytes(self, thread_id: str) -> CheckpointBytes:
        """The rows and bytes the thread's checkpoints (every namespace) occupy, as stored;
        zeros for a thread without checkpoints."""
