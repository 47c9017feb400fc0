"""Threads and their TTLs, in the SQL every backend runs (`_sql.Dialect` for the rest).

A thread's checkpoints belong to the LangGraph saver: deleting and copying them go through its
public API (`adelete_thread`; `_thread_checkpoints.copy_checkpoints`), pruning through the
backend's `_prune_checkpoints`, since only some savers have a public `aprune`.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver

from open_langgraph.errors import Conflict
from open_langgraph.storage._records import THREAD, new_thread
from open_langgraph.storage._sql import (
    Dialect,
    SqlBackend,
    Statements,
    auth_clause,
    conditions,
)
from open_langgraph.storage._thread_checkpoints import copy_checkpoints
from open_langgraph.storage.base import (
    UNSET,
    AuthFilter,
    SortOrder,
    ThreadStatus,
    ThreadUpdate,
    TTLStrategy,
    utc_now,
)


def thread_update_statement(
    dialect: Dialect, key: str, update: ThreadUpdate, *, thread: str = "?"
) -> tuple[str, list[Any]]:
    """The UPDATE (and its parameters) that applies `update` to the thread whose id is
    `thread`, an expression of the one parameter `key`: the thread id itself by default, or
    e.g. a subquery finding a run's thread, so one statement finds and updates it."""
    params: list[Any] = []
    sets = thread_update_sets(dialect, update, params)
    params.append(key)
    return f"UPDATE threads SET {', '.join(sets)} WHERE thread_id = {thread}", params


def thread_update_sets(dialect: Dialect, update: ThreadUpdate, params: list[Any]) -> list[str]:
    """The assignments of `update` (appending their parameters to `params`), for statements
    that apply it as part of a larger one (the queue's end of a run)."""
    now = utc_now()
    sets = ["updated_at = ?"]
    params.append(now)
    if update.status is not None:
        sets.append("status = ?")
        params.append(update.status)
    if update.values is not UNSET:
        sets.append("state_values = ?")
        params.append(dialect.json(update.values))
    if update.interrupts is not None:
        sets.append("interrupts = ?")
        params.append(dialect.json(update.interrupts))
    if update.error is not UNSET:
        sets.append("error = ?")
        params.append(dialect.json(update.error))
    if update.metadata:
        sets.append(f"metadata = {dialect.merge_patch('metadata', update.metadata, params)}")
    if update.state_updated:
        sets.append("state_updated_at = ?")
        params.append(now)
    return sets


async def delete_thread_rows(tx: Statements, thread_id: str) -> int:
    """Delete the thread with its runs, their events and traces, its TTL and its crons; 1 if
    it existed, else 0."""
    for table in ("run_events", "run_traces"):
        await tx.run(
            f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)",
            (thread_id,),
        )
    await tx.run("DELETE FROM runs WHERE thread_id = ?", (thread_id,))
    await tx.run("DELETE FROM thread_ttls WHERE thread_id = ?", (thread_id,))
    await tx.run("DELETE FROM crons WHERE thread_id = ?", (thread_id,))
    return await tx.run("DELETE FROM threads WHERE thread_id = ?", (thread_id,))


class ThreadQueries(SqlBackend):
    checkpointer: BaseCheckpointSaver

    @abc.abstractmethod
    async def _prune_checkpoints(self, thread_ids: list[str], strategy: TTLStrategy) -> None:
        """Delete the threads' checkpoints, or keep only the latest of each namespace."""

    async def _visible(
        self, thread_ids: Sequence[str], auth_filter: AuthFilter | None
    ) -> list[str]:
        """Those of `thread_ids` that exist and lie inside `auth_filter`, in the given order."""
        if not thread_ids:
            return []
        params: list[Any] = []
        listed = self.dialect.any_of("thread_id", list(dict.fromkeys(thread_ids)), params)
        allowed = auth_clause(self.dialect, auth_filter, params)
        rows = await self.sql.all(f"SELECT thread_id FROM threads WHERE {listed}{allowed}", params)
        found = {row[0] for row in rows}
        return [t for t in dict.fromkeys(thread_ids) if t in found]

    async def create_thread(
        self,
        *,
        thread_id: str,
        metadata: dict[str, Any],
        if_exists: Literal["raise", "do_nothing"],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any]:
        now = utc_now()
        inserted = await self.sql.run(
            "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, "
            "status, config, state_values, interrupts, error) "
            "VALUES (?, ?, ?, ?, ?, 'idle', '{}', NULL, '{}', NULL) "
            "ON CONFLICT (thread_id) DO NOTHING",
            (thread_id, now, now, now, self.dialect.json(metadata)),
        )
        if inserted:
            return new_thread(thread_id, metadata, now)
        existing = None if if_exists == "raise" else await self.get_thread(thread_id, auth_filter)
        if existing is None:
            # Another user's thread is a conflict like any existing id, never handed out.
            raise Conflict(f"Thread with ID {thread_id} already exists")
        return existing

    async def get_thread(
        self, thread_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        params: list[Any] = [thread_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        return await self._record(
            THREAD, f"SELECT {THREAD.select} FROM threads WHERE thread_id = ?{allowed}", params
        )

    async def patch_thread(
        self, thread_id: str, metadata: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        params: list[Any] = []
        merged = self.dialect.merge_patch("metadata", metadata, params)
        params += [utc_now(), thread_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        changed = await self.sql.run(
            f"UPDATE threads SET metadata = {merged}, updated_at = ? WHERE thread_id = ?{allowed}",
            params,
        )
        return await self.get_thread(thread_id) if changed else None

    async def delete_thread(self, thread_id: str, auth_filter: AuthFilter | None = None) -> bool:
        if not await self._visible([thread_id], auth_filter):
            return False
        # Checkpoints first: should the second step fail, the thread is still there (empty)
        # for a retry, rather than gone with its old state waiting under a reusable id.
        await self.checkpointer.adelete_thread(thread_id)
        async with self.atomic() as tx:
            return await delete_thread_rows(tx, thread_id) > 0

    def _thread_filters(
        self,
        ids: Sequence[str] | None,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None,
    ) -> tuple[str, list[Any]]:
        d = self.dialect
        clauses, params = conditions(d, auth_filter)
        if ids is not None:
            clauses.append(d.any_of("thread_id", ids, params))
        if metadata:
            clauses.append(d.contains("metadata", metadata, params))
        if values:
            clauses.append(d.contains("state_values", values, params))
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        return " AND ".join(clauses), params

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
    ) -> list[dict[str, Any]]:
        where, params = self._thread_filters(ids, metadata, values, status, auth_filter)
        return await self._page(
            THREAD,
            "threads",
            where,
            params,
            sort_by=sort_by,
            sort_order=sort_order,
            limit=limit,
            offset=offset,
        )

    async def count_threads(
        self,
        *,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        where, params = self._thread_filters(None, metadata, values, status, auth_filter)
        return await self._count("threads", where, params)

    async def update_thread(self, thread_id: str, update: ThreadUpdate) -> None:
        await self.sql.run(*thread_update_statement(self.dialect, thread_id, update))

    async def copy_thread(
        self,
        thread_id: str,
        new_thread_id: str,
        auth_filter: AuthFilter | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        now = utc_now()
        at = self.dialect.time_param
        params: list[Any] = [new_thread_id, now, now, now, self.dialect.json(metadata), thread_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        copied = await self.sql.run(
            "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, "
            "metadata, status, config, state_values, interrupts, error) "
            f"SELECT ?, {at}, {at}, {at}, COALESCE(?, metadata), "
            "CASE status WHEN 'busy' THEN 'idle' ELSE status END, "
            "config, state_values, interrupts, error FROM threads "
            f"WHERE thread_id = ?{allowed}",
            params,
        )
        if not copied:
            return None
        try:
            await copy_checkpoints(self.checkpointer, thread_id, new_thread_id)
        except BaseException:
            # No half copy: without its checkpoints the new thread must not exist either.
            await self.checkpointer.adelete_thread(new_thread_id)
            async with self.atomic() as tx:
                await delete_thread_rows(tx, new_thread_id)
            raise
        return await self.get_thread(new_thread_id)

    async def prune_threads(
        self,
        thread_ids: Sequence[str],
        strategy: TTLStrategy,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        visible = await self._visible(thread_ids, auth_filter)
        if not visible:
            return 0
        await self._prune_checkpoints(visible, strategy)
        if strategy == "keep_latest":
            return len(visible)
        pruned = 0
        async with self.atomic() as tx:
            for thread_id in visible:
                pruned += await delete_thread_rows(tx, thread_id)
        return pruned

    async def set_thread_ttl(
        self, thread_id: str, strategy: TTLStrategy, minutes: float, expires_at: str
    ) -> None:
        await self.sql.run(
            "INSERT INTO thread_ttls (thread_id, strategy, ttl_minutes, expires_at) "
            f"SELECT thread_id, ?, ?, {self.dialect.time_param} FROM threads WHERE thread_id = ? "
            "ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, "
            "ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at",
            (strategy, minutes, expires_at, thread_id),
        )

    async def get_thread_ttl(self, thread_id: str) -> dict[str, Any] | None:
        row = await self.sql.one(
            "SELECT strategy, ttl_minutes, expires_at FROM thread_ttls WHERE thread_id = ?",
            (thread_id,),
        )
        if row is None:
            return None
        strategy, minutes, expires_at = row
        # As services.thread_ttl writes it: fixed-width, so the texts compare as times.
        expires_at = self.dialect.load_time(expires_at, timespec="microseconds")
        return {"strategy": strategy, "ttl_minutes": minutes, "expires_at": expires_at}

    async def due_thread_ttls(self, now: str, limit: int) -> list[tuple[str, TTLStrategy]]:
        rows = await self.sql.all(
            "SELECT thread_id, strategy FROM thread_ttls "
            f"WHERE expires_at <= {self.dialect.time_param} ORDER BY expires_at LIMIT ?",
            (now, limit),
        )
        return [(row[0], row[1]) for row in rows]
