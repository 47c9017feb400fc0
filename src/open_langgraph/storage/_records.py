"""Our tables' rows as the API records (`Assistant`, `Thread`, `Run`) every backend returns.

Each `Shape` names, once, the columns a query selects for a record and the field each fills;
the backend's `Dialect` decodes JSON and time columns (text in SQLite, jsonb and timestamptz
in PostgreSQL) into the same values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from open_langgraph.storage._sql import Dialect

#: How a column becomes a field: as it is, parsed JSON, or ISO-8601 UTC text.
Kind = Literal["plain", "json", "time"]


@dataclass(frozen=True, slots=True)
class Column:
    """A selected column: the record field it fills, and how its value becomes that field's."""

    field: str
    name: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class Shape:
    """The columns selected for one kind of record, in order."""

    columns: tuple[Column, ...]

    @classmethod
    def of(cls, *specs: str) -> Shape:
        """Columns from `"name"`, `"name:kind"` or `"field=name:kind"` specs."""
        columns = []
        for spec in specs:
            named, _, kind = spec.partition(":")
            field, _, name = named.rpartition("=")
            if kind not in ("", "json", "time"):
                raise ValueError(f"unknown column kind in {spec!r}")
            columns.append(Column(field or name, name, cast(Kind, kind or "plain")))
        return cls(tuple(columns))

    @property
    def select(self) -> str:
        """The column list to SELECT, in the order `record` reads a row."""
        return ", ".join(column.name for column in self.columns)

    def without(self, *fields: str) -> Shape:
        return Shape(tuple(c for c in self.columns if c.field not in fields))

    def record(self, row: Sequence[Any], dialect: Dialect) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for column, value in zip(self.columns, row, strict=True):
            if column.kind == "json":
                value = dialect.load_json(value)
            elif column.kind == "time":
                value = dialect.load_time(value)
            record[column.field] = value
        return record


ASSISTANT = Shape.of(
    "assistant_id",
    "graph_id",
    "config:json",
    "context:json",
    "metadata:json",
    "name",
    "description",
    "version",
    "created_at:time",
    "updated_at:time",
)
#: A row of `assistant_versions`: an assistant as it was, which has no `updated_at`.
ASSISTANT_VERSION = ASSISTANT.without("updated_at")
THREAD = Shape.of(
    "thread_id",
    "created_at:time",
    "updated_at:time",
    "state_updated_at:time",
    "metadata:json",
    "status",
    "config:json",
    "values=state_values:json",
    "interrupts:json",
    "error:json",
)
RUN = Shape.of(
    "run_id",
    "thread_id",
    "assistant_id",
    "created_at:time",
    "updated_at:time",
    "status",
    "metadata:json",
    "kwargs:json",
    "multitask_strategy",
    "output:json",
    "error:json",
)


def new_thread(thread_id: str, metadata: dict[str, Any], now: str) -> dict[str, Any]:
    """The record of a thread just created: idle, with no state yet."""
    return {
        "thread_id": thread_id,
        "created_at": now,
        "updated_at": now,
        "state_updated_at": now,
        "metadata": metadata,
        "status": "idle",
        "config": {},
        "values": None,
        "interrupts": {},
        "error": None,
    }


def patched_assistant(
    current: dict[str, Any], changes: dict[str, Any], version: int, now: str
) -> dict[str, Any]:
    """`current` as `version`, with `changes` applied: metadata merges, the rest replaces."""
    updated = {**current, "version": version, "updated_at": now}
    for key in ("graph_id", "config", "context", "name", "description"):
        if key in changes:
            updated[key] = changes[key]
    if "metadata" in changes:
        updated["metadata"] = {**current["metadata"], **changes["metadata"]}
    return updated
