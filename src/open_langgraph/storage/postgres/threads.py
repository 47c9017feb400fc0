"""Threads and their TTLs in PostgreSQL; their checkpoints go through `_checkpoints`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from open_langgraph.errors import Conflict
from open_langgraph.storage.base import (
    UNSET,
    AuthFilter,
    SortOrder,
    ThreadStatus,
    ThreadUpdate,
    TTLStrategy,
    utc_now,
)
from open_langgraph.storage.postgres._checkpoints import copy_checkpoints
from open_langgraph.storage.postgres._db import (
    THREAD_COLUMNS,
    Conn,
    PostgresBase,
    auth_clause,
    auth_condition,
    iso,
    jsonb,
    order_clause,
    thread_record,
)


async def apply_thread_update(conn: Conn, thread_id: str, update: ThreadUpdate) -> None:
    """Run the UPDATE for `update` inside the caller's transaction."""
    now = utc_now()
    sets, params = ["updated_at = %s"], [now]
    if update.status is not None:
        sets.append("status = %s")
        params.append(update.status)
    if update.values is not UNSET:
        sets.append("state_values = %s")
        params.append(jsonb(update.values))
    if update.interrupts is not None:
        sets.append("interrupts = %s")
        params.append(jsonb(update.interrupts))
    if update.error is not UNSET:
        sets.append("error = %s")
        params.append(jsonb(update.error))
    if update.metadata:
        sets.append("metadata = olg_merge_patch(metadata, %s)")
        params.append(jsonb(update.metadata))
    if update.state_updated:
        sets.append("state_updated_at = %s")
        params.append(now)
    await conn.execute(
        f"UPDATE threads SET {', '.join(sets)} WHERE thread_id = %s",
        (*params, thread_id),  # type: ignore[arg-type]
    )


async def _delete_thread_rows(conn: Conn, thread_id: str) -> int:
    await conn.execute(
        "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = %s)",
        (thread_id,),
    )
    await conn.execute("DELETE FROM runs WHERE thread_id = %s", (thread_id,))
    # thread_ttls rows go with the thread (ON DELETE CASCADE).
    cur = await conn.execute("DELETE FROM threads WHERE thread_id = %s", (thread_id,))
    return cur.rowcount


class ThreadsMixin(PostgresBase):
    checkpointer: AsyncPostgresSaver

    async def _visible(
        self, thread_ids: Sequence[str], auth_filter: AuthFilter | None
    ) -> list[str]:
        """Those of `thread_ids` that exist and lie inside `auth_filter`, in the given order."""
        if not thread_ids:
            return []
        params: list[Any] = [list(thread_ids)]
        allowed = auth_clause(auth_filter, params)
        rows = await self.fetchall(
            f"SELECT thread_id FROM threads WHERE thread_id = ANY(%s){allowed}", params
        )
        found = {row["thread_id"] for row in rows}
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
        inserted = await self.write(
            "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, "
            "status, config, state_values, interrupts, error) "
            "VALUES (%s, %s, %s, %s, %s, 'idle', '{}', NULL, '{}', NULL) "
            "ON CONFLICT (thread_id) DO NOTHING",
            (thread_id, now, now, now, jsonb(metadata)),
        )
        if inserted:
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
        existing = None if if_exists == "raise" else await self.get_thread(thread_id, auth_filter)
        if existing is None:
            # Another user's thread is a conflict like any existing id, never handed out.
            raise Conflict(f"Thread with ID {thread_id} already exists")
        return existing

    async def get_thread(
        self, thread_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        params: list[Any] = [thread_id]
        allowed = auth_clause(auth_filter, params)
        row = await self.fetchone(
            f"SELECT {THREAD_COLUMNS} FROM threads WHERE thread_id = %s{allowed}", params
        )
        return None if row is None else thread_record(row)

    async def patch_thread(
        self, thread_id: str, metadata: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        params: list[Any] = [jsonb(metadata), utc_now(), thread_id]
        allowed = auth_clause(auth_filter, params)
        row = await self.fetchone(
            "UPDATE threads SET metadata = olg_merge_patch(metadata, %s), updated_at = %s "
            f"WHERE thread_id = %s{allowed} RETURNING {THREAD_COLUMNS}",
            params,
        )
        return None if row is None else thread_record(row)

    async def delete_thread(self, thread_id: str, auth_filter: AuthFilter | None = None) -> bool:
        if not await self._visible([thread_id], auth_filter):
            return False
        # Checkpoints first: should the second step fail, the thread is still there (empty)
        # for a retry, rather than gone with its old state waiting under a reusable id.
        await self.checkpointer.adelete_thread(thread_id)
        async with self.transaction() as conn:
            return await _delete_thread_rows(conn, thread_id) > 0

    @staticmethod
    def _thread_filters(
        ids: Sequence[str] | None,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None = None,
    ) -> tuple[str, list[Any]]:
        clauses: list[str] = ["TRUE"]
        params: list[Any] = []
        if auth_filter is not None:
            clauses.append(auth_condition(auth_filter, params))
        if ids is not None:
            clauses.append("thread_id = ANY(%s)")
            params.append(list(ids))
        if metadata:
            clauses.append("metadata @> %s")
            params.append(jsonb(metadata))
        if values:
            clauses.append("state_values @> %s")
            params.append(jsonb(values))
        if status is not None:
            clauses.append("status = %s")
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
        rows = await self.fetchall(
            f"SELECT {THREAD_COLUMNS} FROM threads WHERE {where} "
            f"{order_clause(sort_by, sort_order)} LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [thread_record(r) for r in rows]

    async def count_threads(
        self,
        *,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        where, params = self._thread_filters(None, metadata, values, status, auth_filter)
        row = await self.fetchone(f"SELECT COUNT(*) AS n FROM threads WHERE {where}", params)
        return int(row["n"]) if row else 0

    async def update_thread(self, thread_id: str, update: ThreadUpdate) -> None:
        async with self.transaction() as conn:
            await apply_thread_update(conn, thread_id, update)

    async def copy_thread(
        self,
        thread_id: str,
        new_thread_id: str,
        auth_filter: AuthFilter | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        now = utc_now()
        params: list[Any] = [new_thread_id, now, now, now, jsonb(metadata), thread_id]
        allowed = auth_clause(auth_filter, params)
        copied = await self.write(
            "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, "
            "metadata, status, config, state_values, interrupts, error) "
            "SELECT %s, %s::timestamptz, %s::timestamptz, %s::timestamptz, COALESCE(%s, metadata), "
            "CASE status WHEN 'busy' THEN 'idle' "
            "ELSE status END, config, state_values, interrupts, error FROM threads "
            f"WHERE thread_id = %s{allowed}",
            params,
        )
        if not copied:
            return None
        try:
            await copy_checkpoints(self.checkpointer, thread_id, new_thread_id)
        except BaseException:
            # No half copy: without its checkpoints the new thread must not exist either.
            await self.checkpointer.adelete_thread(new_thread_id)
            async with self.transaction() as conn:
                await _delete_thread_rows(conn, new_thread_id)
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
        await self.checkpointer.aprune(visible, strategy=strategy)
        if strategy == "keep_latest":
            return len(visible)
        pruned = 0
        async with self.transaction() as conn:
            for thread_id in visible:
                pruned += await _delete_thread_rows(conn, thread_id)
        return pruned

    async def set_thread_ttl(
        self, thread_id: str, strategy: TTLStrategy, minutes: float, expires_at: str
    ) -> None:
        await self.write(
            "INSERT INTO thread_ttls (thread_id, strategy, ttl_minutes, expires_at) "
            "SELECT thread_id, %s, %s, %s::timestamptz FROM threads WHERE thread_id = %s "
            "ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, "
            "ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at",
            (strategy, minutes, expires_at, thread_id),
        )

    async def get_thread_ttl(self, thread_id: str) -> dict[str, Any] | None:
        row = await self.fetchone(
            "SELECT strategy, ttl_minutes, expires_at FROM thread_ttls WHERE thread_id = %s",
            (thread_id,),
        )
        if row is None:
            return None
        return {
            "strategy": row["strategy"],
            "ttl_minutes": row["ttl_minutes"],
            # As services.thread_ttl writes it: fixed-width, so the texts compare as times.
            "expires_at": iso(row["expires_at"], timespec="microseconds"),
        }

    async def due_thread_ttls(self, now: str, limit: int) -> list[tuple[str, TTLStrategy]]:
        rows = await self.fetchall(
            "SELECT thread_id, strategy FROM thread_ttls WHERE expires_at <= %s::timestamptz "
            "ORDER BY expires_at LIMIT %s",
            (now, limit),
        )
        return [(row["thread_id"], row["strategy"]) for row in rows]
