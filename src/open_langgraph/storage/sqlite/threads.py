"""Threads in SQLite, and the thread-wide checkpoint operations the saver lacks (copy, prune)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import aiosqlite

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
from open_langgraph.storage.sqlite._db import (
    THREAD_COLUMNS,
    SqliteBase,
    auth_clause,
    auth_condition,
    dump,
    order_clause,
    thread_record,
)


async def apply_thread_update(
    conn: aiosqlite.Connection, thread_id: str, update: ThreadUpdate
) -> None:
    """Run the UPDATE for `update` inside the caller's transaction."""
    now = utc_now()
    sets, params = ["updated_at = ?"], [now]
    if update.status is not None:
        sets.append("status = ?")
        params.append(update.status)
    if update.values is not UNSET:
        sets.append("state_values = ?")
        params.append(None if update.values is None else dump(update.values))
    if update.interrupts is not None:
        sets.append("interrupts = ?")
        params.append(dump(update.interrupts))
    if update.error is not UNSET:
        sets.append("error = ?")
        params.append(None if update.error is None else dump(update.error))
    if update.metadata:
        sets.append("metadata = json_patch(metadata, ?)")
        params.append(dump(update.metadata))
    if update.state_updated:
        sets.append("state_updated_at = ?")
        params.append(now)
    await conn.execute(
        f"UPDATE threads SET {', '.join(sets)} WHERE thread_id = ?", (*params, thread_id)
    )


async def _delete_thread_rows(conn: aiosqlite.Connection, thread_id: str) -> int:
    await conn.execute(
        "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)",
        (thread_id,),
    )
    await conn.execute("DELETE FROM runs WHERE thread_id = ?", (thread_id,))
    await conn.execute("DELETE FROM writes WHERE thread_id = ?", (thread_id,))
    await conn.execute("DELETE FROM checkpoints WHERE thread_id = ?", (thread_id,))
    await conn.execute("DELETE FROM thread_ttls WHERE thread_id = ?", (thread_id,))
    async with conn.execute("DELETE FROM threads WHERE thread_id = ?", (thread_id,)) as cur:
        return cur.rowcount


async def _thread_allowed(
    conn: aiosqlite.Connection, thread_id: str, auth_filter: AuthFilter
) -> bool:
    allowed, params = auth_clause(auth_filter)
    async with conn.execute(
        f"SELECT 1 FROM threads WHERE thread_id = ?{allowed}", (thread_id, *params)
    ) as cur:
        return await cur.fetchone() is not None


class ThreadsMixin(SqliteBase):
    async def create_thread(
        self,
        *,
        thread_id: str,
        metadata: dict[str, Any],
        if_exists: Literal["raise", "do_nothing"],
        auth_filter: AuthFilter | None = None,
    ) -> dict[str, Any]:
        now = utc_now()
        async with (
            self.transaction() as conn,
            conn.execute(
                "INSERT OR IGNORE INTO threads (thread_id, created_at, updated_at, "
                "state_updated_at, metadata, status, config, state_values, interrupts, error) "
                "VALUES (?, ?, ?, ?, ?, 'idle', '{}', NULL, '{}', NULL)",
                (thread_id, now, now, now, dump(metadata)),
            ) as cur,
        ):
            inserted = cur.rowcount > 0
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
        allowed, params = auth_clause(auth_filter)
        row = await self.fetchone(
            f"SELECT {THREAD_COLUMNS} FROM threads WHERE thread_id = ?{allowed}",
            (thread_id, *params),
        )
        return None if row is None else thread_record(row)

    async def patch_thread(
        self, thread_id: str, metadata: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        allowed, params = auth_clause(auth_filter)
        changed = await self.write(
            "UPDATE threads SET metadata = json_patch(metadata, ?), updated_at = ? "
            f"WHERE thread_id = ?{allowed}",
            (dump(metadata), utc_now(), thread_id, *params),
        )
        return await self.get_thread(thread_id) if changed else None

    async def delete_thread(self, thread_id: str, auth_filter: AuthFilter | None = None) -> bool:
        async with self.transaction() as conn:
            if auth_filter is not None and not await _thread_allowed(conn, thread_id, auth_filter):
                return False
            return await _delete_thread_rows(conn, thread_id) > 0

    @staticmethod
    def _thread_filters(
        ids: Sequence[str] | None,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        auth_filter: AuthFilter | None = None,
    ) -> tuple[str, list[Any]]:
        clauses, params = ["1=1"], []
        if auth_filter is not None:
            condition, condition_params = auth_condition(auth_filter)
            clauses.append(condition)
            params.extend(condition_params)
        if ids is not None:
            clauses.append(f"thread_id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        if metadata:
            clauses.append("olg_json_contains(metadata, ?)")
            params.append(dump(metadata))
        if values:
            clauses.append("olg_json_contains(state_values, ?)")
            params.append(dump(values))
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
        rows = await self.fetchall(
            f"SELECT {THREAD_COLUMNS} FROM threads WHERE {where} "
            f"{order_clause(sort_by, sort_order)} LIMIT ? OFFSET ?",
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
        row = await self.fetchone(f"SELECT COUNT(*) FROM threads WHERE {where}", params)
        return int(row[0]) if row else 0

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
        allowed, params = auth_clause(auth_filter)
        async with self.transaction() as conn:
            async with conn.execute(
                "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, "
                "metadata, status, config, state_values, interrupts, error) "
                "SELECT ?, ?, ?, ?, COALESCE(?, metadata), CASE status WHEN 'busy' THEN 'idle' "
                "ELSE status END, config, state_values, interrupts, error FROM threads "
                f"WHERE thread_id = ?{allowed}",
                (
                    new_thread_id,
                    now,
                    now,
                    now,
                    None if metadata is None else dump(metadata),
                    thread_id,
                    *params,
                ),
            ) as cur:
                if cur.rowcount == 0:
                    return None
            await conn.execute(
                "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
                "parent_checkpoint_id, type, checkpoint, metadata) SELECT ?, checkpoint_ns, "
                "checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata "
                "FROM checkpoints WHERE thread_id = ?",
                (new_thread_id, thread_id),
            )
            await conn.execute(
                "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, "
                "idx, channel, type, value) SELECT ?, checkpoint_ns, checkpoint_id, task_id, "
                "task_path, idx, channel, type, value FROM writes WHERE thread_id = ?",
                (new_thread_id, thread_id),
            )
        return await self.get_thread(new_thread_id)

    async def prune_threads(
        self,
        thread_ids: Sequence[str],
        strategy: TTLStrategy,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        pruned = 0
        async with self.transaction() as conn:
            for thread_id in thread_ids:
                if auth_filter is not None and not await _thread_allowed(
                    conn, thread_id, auth_filter
                ):
                    continue
                if strategy == "delete":
                    pruned += await _delete_thread_rows(conn, thread_id)
                    continue
                async with conn.execute(
                    "SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,)
                ) as cur:
                    if await cur.fetchone() is None:
                        continue
                keep = (
                    "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? "
                    "GROUP BY checkpoint_ns"
                )
                await conn.execute(
                    f"DELETE FROM writes WHERE thread_id = ? AND checkpoint_id NOT IN ({keep})",
                    (thread_id, thread_id),
                )
                await conn.execute(
                    f"DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id NOT IN "
                    f"({keep})",
                    (thread_id, thread_id),
                )
                pruned += 1
        return pruned

    async def set_thread_ttl(
        self, thread_id: str, strategy: TTLStrategy, minutes: float, expires_at: str
    ) -> None:
        await self.write(
            "INSERT INTO thread_ttls (thread_id, strategy, ttl_minutes, expires_at) "
            "SELECT thread_id, ?, ?, ? FROM threads WHERE thread_id = ? "
            "ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, "
            "ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at",
            (strategy, minutes, expires_at, thread_id),
        )

    async def get_thread_ttl(self, thread_id: str) -> dict[str, Any] | None:
        row = await self.fetchone(
            "SELECT strategy, ttl_minutes, expires_at FROM thread_ttls WHERE thread_id = ?",
            (thread_id,),
        )
        if row is None:
            return None
        return {"strategy": row[0], "ttl_minutes": row[1], "expires_at": row[2]}

    async def due_thread_ttls(self, now: str, limit: int) -> list[tuple[str, TTLStrategy]]:
        rows = await self.fetchall(
            "SELECT thread_id, strategy FROM thread_ttls WHERE expires_at <= ? "
            "ORDER BY expires_at LIMIT ?",
            (now, limit),
        )
        return [(row[0], row[1]) for row in rows]
