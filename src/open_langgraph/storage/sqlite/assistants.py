"""Assistants and their versions in SQLite."""

from __future__ import annotations

from typing import Any, Literal

from open_langgraph.errors import Conflict
from open_langgraph.storage.base import AuthFilter, SortOrder, utc_now
from open_langgraph.storage.filters import matches_auth_filter
from open_langgraph.storage.sqlite._db import (
    ASSISTANT_COLUMNS,
    SqliteBase,
    assistant_record,
    auth_clause,
    auth_condition,
    dump,
    order_clause,
)


class AssistantsMixin(SqliteBase):
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
        now = utc_now()
        async with self.transaction() as conn:
            async with conn.execute(
                f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = ?",
                (assistant_id,),
            ) as cur:
                existing = await cur.fetchone()
            if existing is not None:
                record = assistant_record(existing)
                if if_exists == "do_nothing" and (
                    auth_filter is None or matches_auth_filter(record["metadata"], auth_filter)
                ):
                    return record
                raise Conflict(f"Assistant {assistant_id} already exists")
            values = (
                assistant_id,
                graph_id,
                dump(config),
                dump(context),
                dump(metadata),
                name,
                description,
            )
            await conn.execute(
                f"INSERT INTO assistants ({ASSISTANT_COLUMNS}) VALUES (?,?,?,?,?,?,?,1,?,?)",
                (*values, now, now),
            )
            await conn.execute(
                "INSERT INTO assistant_versions (assistant_id, graph_id, config, context, "
                "metadata, name, description, version, created_at) VALUES (?,?,?,?,?,?,?,1,?)",
                (*values, now),
            )
        return {
            "assistant_id": assistant_id,
            "graph_id": graph_id,
            "config": config,
            "context": context,
            "metadata": metadata,
            "name": name,
            "description": description,
            "version": 1,
            "created_at": now,
            "updated_at": now,
        }

    async def get_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        allowed, params = auth_clause(auth_filter)
        row = await self.fetchone(
            f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = ?{allowed}",
            (assistant_id, *params),
        )
        return None if row is None else assistant_record(row)

    async def patch_assistant(
        self, assistant_id: str, changes: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        now = utc_now()
        allowed, params = auth_clause(auth_filter)
        async with self.transaction() as conn:
            async with conn.execute(
                f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = ?{allowed}",
                (assistant_id, *params),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            current = assistant_record(row)
            async with conn.execute(
                "SELECT MAX(version) FROM assistant_versions WHERE assistant_id = ?",
                (assistant_id,),
            ) as cur:
                (max_version,) = await cur.fetchone()  # type: ignore[misc]
            updated = {**current, "version": max_version + 1, "updated_at": now}
            for key in ("graph_id", "config", "context", "name", "description"):
                if key in changes:
                    updated[key] = changes[key]
            if "metadata" in changes:
                updated["metadata"] = {**current["metadata"], **changes["metadata"]}
            values = (
                updated["graph_id"],
                dump(updated["config"]),
                dump(updated["context"]),
                dump(updated["metadata"]),
                updated["name"],
                updated["description"],
                updated["version"],
            )
            await conn.execute(
                "UPDATE assistants SET graph_id=?, config=?, context=?, metadata=?, name=?, "
                "description=?, version=?, updated_at=? WHERE assistant_id=?",
                (*values, now, assistant_id),
            )
            await conn.execute(
                "INSERT INTO assistant_versions (graph_id, config, context, metadata, name, "
                "description, version, assistant_id, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (*values, assistant_id, now),
            )
        return updated

    async def delete_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> bool:
        allowed, params = auth_clause(auth_filter)
        async with self.transaction() as conn:
            async with conn.execute(
                f"DELETE FROM assistants WHERE assistant_id = ?{allowed}", (assistant_id, *params)
            ) as cur:
                deleted = cur.rowcount > 0
            if not deleted:
                return False
            await conn.execute(
                "DELETE FROM assistant_versions WHERE assistant_id = ?", (assistant_id,)
            )
        return deleted

    @staticmethod
    def _assistant_filters(
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> tuple[str, list[Any]]:
        clauses, params = ["1=1"], []
        if auth_filter is not None:
            condition, condition_params = auth_condition(auth_filter)
            clauses.append(condition)
            params.extend(condition_params)
        if graph_id is not None:
            clauses.append("graph_id = ?")
            params.append(graph_id)
        if name is not None:
            clauses.append("name LIKE ? ESCAPE '\\'")
            escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{escaped}%")
        if metadata:
            clauses.append("olg_json_contains(metadata, ?)")
            params.append(dump(metadata))
        return " AND ".join(clauses), params

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
    ) -> list[dict[str, Any]]:
        where, params = self._assistant_filters(graph_id, name, metadata, auth_filter)
        rows = await self.fetchall(
            f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE {where} "
            f"{order_clause(sort_by, sort_order)} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [assistant_record(r) for r in rows]

    async def count_assistants(
        self,
        *,
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        where, params = self._assistant_filters(graph_id, name, metadata, auth_filter)
        row = await self.fetchone(f"SELECT COUNT(*) FROM assistants WHERE {where}", params)
        return int(row[0]) if row else 0

    async def list_assistant_versions(
        self, assistant_id: str, *, metadata: dict[str, Any] | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        sql = (
            "SELECT assistant_id, graph_id, config, context, metadata, name, description, "
            "version, created_at, created_at FROM assistant_versions WHERE assistant_id = ?"
        )
        params: list[Any] = [assistant_id]
        if metadata:
            sql += " AND olg_json_contains(metadata, ?)"
            params.append(dump(metadata))
        rows = await self.fetchall(
            sql + " ORDER BY version DESC LIMIT ? OFFSET ?", (*params, limit, offset)
        )
        versions = [assistant_record(r) for r in rows]
        for version in versions:
            del version["updated_at"]
        return versions

    async def set_latest_assistant_version(
        self, assistant_id: str, version: int
    ) -> dict[str, Any] | None:
        now = utc_now()
        async with self.transaction() as conn:
            async with conn.execute(
                "SELECT graph_id, config, context, metadata, name, description "
                "FROM assistant_versions WHERE assistant_id = ? AND version = ?",
                (assistant_id, version),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            await conn.execute(
                "UPDATE assistants SET graph_id=?, config=?, context=?, metadata=?, name=?, "
                "description=?, version=?, updated_at=? WHERE assistant_id=?",
                (*row, version, now, assistant_id),
            )
        return await self.get_assistant(assistant_id)
