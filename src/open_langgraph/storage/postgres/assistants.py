"""Assistants and their versions in PostgreSQL."""

from __future__ import annotations

from typing import Any, Literal

from open_langgraph.errors import Conflict
from open_langgraph.storage.base import AuthFilter, SortOrder, utc_now
from open_langgraph.storage.filters import matches_auth_filter
from open_langgraph.storage.postgres._db import (
    ASSISTANT_COLUMNS,
    PostgresBase,
    assistant_record,
    auth_clause,
    auth_condition,
    jsonb,
    order_clause,
)


class AssistantsMixin(PostgresBase):
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
        values = (
            assistant_id,
            graph_id,
            jsonb(config),
            jsonb(context),
            jsonb(metadata),
            name,
            description,
        )
        async with self.transaction() as conn:
            cur = await conn.execute(
                f"INSERT INTO assistants ({ASSISTANT_COLUMNS}) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,1,%s,%s) ON CONFLICT (assistant_id) DO NOTHING",
                (*values, now, now),
            )
            if cur.rowcount == 0:
                cur = await conn.execute(
                    f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = %s",
                    (assistant_id,),
                )
                row = await cur.fetchone()
                record = None if row is None else assistant_record(row)
                if (
                    record is not None
                    and if_exists == "do_nothing"
                    and (
                        auth_filter is None or matches_auth_filter(record["metadata"], auth_filter)
                    )
                ):
                    return record
                raise Conflict(f"Assistant {assistant_id} already exists")
            await conn.execute(
                "INSERT INTO assistant_versions (assistant_id, graph_id, config, context, "
                "metadata, name, description, version, created_at) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,1,%s)",
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
        params: list[Any] = [assistant_id]
        allowed = auth_clause(auth_filter, params)
        row = await self.fetchone(
            f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = %s{allowed}", params
        )
        return None if row is None else assistant_record(row)

    async def patch_assistant(
        self, assistant_id: str, changes: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        now = utc_now()
        params: list[Any] = [assistant_id]
        allowed = auth_clause(auth_filter, params)
        async with self.transaction() as conn:
            # FOR UPDATE: two concurrent patches take turns, so each gets its own version.
            cur = await conn.execute(
                f"SELECT {ASSISTANT_COLUMNS} FROM assistants WHERE assistant_id = %s{allowed} "
                "FOR UPDATE",
                params,
            )
            row = await cur.fetchone()
            if row is None:
                return None
            current = assistant_record(row)
            cur = await conn.execute(
                "SELECT MAX(version) AS v FROM assistant_versions WHERE assistant_id = %s",
                (assistant_id,),
            )
            top = await cur.fetchone()
            max_version = (top or {}).get("v") or current["version"]
            updated = {**current, "version": max_version + 1, "updated_at": now}
            for key in ("graph_id", "config", "context", "name", "description"):
                if key in changes:
                    updated[key] = changes[key]
            if "metadata" in changes:
                updated["metadata"] = {**current["metadata"], **changes["metadata"]}
            values = (
                updated["graph_id"],
                jsonb(updated["config"]),
                jsonb(updated["context"]),
                jsonb(updated["metadata"]),
                updated["name"],
                updated["description"],
                updated["version"],
            )
            await conn.execute(
                "UPDATE assistants SET graph_id=%s, config=%s, context=%s, metadata=%s, "
                "name=%s, description=%s, version=%s, updated_at=%s WHERE assistant_id=%s",
                (*values, now, assistant_id),
            )
            await conn.execute(
                "INSERT INTO assistant_versions (graph_id, config, context, metadata, name, "
                "description, version, assistant_id, created_at) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (*values, assistant_id, now),
            )
        return updated

    async def delete_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> bool:
        params: list[Any] = [assistant_id]
        allowed = auth_clause(auth_filter, params)
        async with self.transaction() as conn:
            cur = await conn.execute(
                f"DELETE FROM assistants WHERE assistant_id = %s{allowed}", params
            )
            if cur.rowcount == 0:
                return False
            await conn.execute(
                "DELETE FROM assistant_versions WHERE assistant_id = %s", (assistant_id,)
            )
        return True

    @staticmethod
    def _assistant_filters(
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> tuple[str, list[Any]]:
        clauses: list[str] = ["TRUE"]
        params: list[Any] = []
        if auth_filter is not None:
            clauses.append(auth_condition(auth_filter, params))
        if graph_id is not None:
            clauses.append("graph_id = %s")
            params.append(graph_id)
        if name is not None:
            # Case-insensitive like SQLite's LIKE, with the wildcards in `name` taken literally.
            clauses.append("name ILIKE %s ESCAPE '\\'")
            escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{escaped}%")
        if metadata:
            clauses.append("metadata @> %s")
            params.append(jsonb(metadata))
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
            f"{order_clause(sort_by, sort_order)} LIMIT %s OFFSET %s",
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
        row = await self.fetchone(f"SELECT COUNT(*) AS n FROM assistants WHERE {where}", params)
        return int(row["n"]) if row else 0

    async def list_assistant_versions(
        self, assistant_id: str, *, metadata: dict[str, Any] | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        sql = (
            "SELECT assistant_id, graph_id, config, context, metadata, name, description, "
            "version, created_at, created_at AS updated_at FROM assistant_versions "
            "WHERE assistant_id = %s"
        )
        params: list[Any] = [assistant_id]
        if metadata:
            sql += " AND metadata @> %s"
            params.append(jsonb(metadata))
        rows = await self.fetchall(
            sql + " ORDER BY version DESC LIMIT %s OFFSET %s", (*params, limit, offset)
        )
        versions = [assistant_record(r) for r in rows]
        for version in versions:
            del version["updated_at"]
        return versions

    async def set_latest_assistant_version(
        self, assistant_id: str, version: int
    ) -> dict[str, Any] | None:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "UPDATE assistants a SET graph_id = v.graph_id, config = v.config, "
                "context = v.context, metadata = v.metadata, name = v.name, "
                "description = v.description, version = v.version, updated_at = %s "
                "FROM assistant_versions v WHERE a.assistant_id = %s "
                "AND v.assistant_id = a.assistant_id AND v.version = %s",
                (utc_now(), assistant_id, version),
            )
            if cur.rowcount == 0:
                return None
        return await self.get_assistant(assistant_id)
