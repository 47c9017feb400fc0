"""The persistence interface of crons, beside `Storage`: what the cron service and the
scheduler need, whichever backend holds the rows.

A cron record is shaped like the Platform's `Cron` object, plus the private `user` field
(the JSON of the user who created it, whom its runs act as); `public_cron` drops it. Times
are ISO-8601 UTC text; `next_run_date` and `end_time` are written fixed-width
(`timestamp()`), so that SQLite compares them as text in time order.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from open_langgraph.storage.base import AuthFilter, SortOrder

#: The fields of the Platform's `Cron`, which a search may `select`.
CronField = Literal[
    "cron_id",
    "assistant_id",
    "thread_id",
    "on_run_completed",
    "end_time",
    "schedule",
    "timezone",
    "created_at",
    "updated_at",
    "user_id",
    "payload",
    "next_run_date",
    "metadata",
    "enabled",
]
CRON_FIELDS: tuple[CronField, ...] = get_args(CronField)
#: The columns an update may set (`metadata` merges into the stored one).
CRON_UPDATABLE = frozenset(
    {"schedule", "timezone", "end_time", "enabled", "on_run_completed", "payload", "metadata"}
    | {"next_run_date"}
)


def timestamp(moment: datetime) -> str:
    """A time as fixed-width UTC text: comparing two such texts compares the times."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def public_cron(cron: Mapping[str, Any]) -> dict[str, Any]:
    """The API's `Cron` object: the stored record without the private `user`."""
    return {field: cron[field] for field in CRON_FIELDS}


class CronStorage(abc.ABC):
    """Crons: created, read, changed and deleted by users; claimed by the scheduler."""

    @abc.abstractmethod
    async def create_cron(self, cron: Mapping[str, Any]) -> dict[str, Any]:
        """Insert a cron record (every field of `CRON_FIELDS` and `user`); returns it as
        stored."""

    @abc.abstractmethod
    async def get_cron(
        self, cron_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def update_cron(
        self,
        cron_id: str,
        changes: Mapping[str, Any],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any] | None:
        """Set the `changes` (keys of `CRON_UPDATABLE`; `metadata` is merged as a JSON merge
        patch) on the cron inside `auth_filter`; None if there is none."""

    @abc.abstractmethod
    async def delete_cron(self, cron_id: str, auth_filter: AuthFilter | None = None) -> bool: ...

    @abc.abstractmethod
    async def search_crons(
        self,
        *,
        assistant_id: str | None,
        thread_id: str | None,
        enabled: bool | None,
        metadata: dict[str, Any] | None,
        limit: int,
        offset: int,
        sort_by: str,
        sort_order: SortOrder,
        auth_filter: AuthFilter | None = None,
    ) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def count_crons(
        self,
        *,
        assistant_id: str | None,
        thread_id: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> int: ...

    @abc.abstractmethod
    async def due_crons(self, now: str, limit: int) -> list[dict[str, Any]]:
        """Enabled crons whose `next_run_date` is at or before `now` (and not after their
        `end_time`), earliest first. Reading them claims nothing: see `advance_cron`."""

    @abc.abstractmethod
    async def advance_cron(self, cron_id: str, due: str, next_run_date: str) -> bool:
        """Claim the firing of the cron due at `due`: move its `next_run_date` from `due` to
        `next_run_date` if it is still `due` and the cron still enabled. True for exactly
        one caller per due time, however many processes race for it."""


__all__ = [
    "CRON_FIELDS",
    "CRON_UPDATABLE",
    "CronStorage",
    "public_cron",
    "timestamp",
]
