"""Assistants and their versions, in the SQL every backend runs (`_sql.Dialect` for the rest)."""

from __future__ import annotations

from typing import Any, Literal

from open_langgraph.errors import Conflict
from open_langgraph.storage._records import ASSISTANT, ASSISTANT_VERSION, patched_assistant
from open_langgraph.storage._sql import (
    SqlBackend,
    Statements,
    auth_clause,
    conditions,
    escape_like,
)
from open_langgraph.storage.base import AuthFilter, SortOrder, utc_now
from open_langgraph.storage.filters import matches_auth_filter

_VERSION_COLUMNS = "graph_id, config, context, metadata, name, description, version"


class AssistantQueries(SqlBackend):
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
        d = self.dialect
        values = (
            assistant_id,
            graph_id,
            d.json(config),
            d.json(context),
            d.json(metadata),
            name,
            description,
        )
        async with self.atomic() as tx:
            inserted = await tx.run(
                f"INSERT INTO assistants ({ASSISTANT.select}) VALUES (?,?,?,?,?,?,?,1,?,?) "
                "ON CONFLICT (assistant_id) DO NOTHING",
                (*values, now, now),
            )
            if not inserted:
                row = await tx.one(
                    f"SELECT {ASSISTANT.select} FROM assistants WHERE assistant_id = ?",
                    (assistant_id,),
                )
                existing = None if row is None else ASSISTANT.record(row, d)
                if (
                    existing is not None
                    and if_exists == "do_nothing"
                    and (
                        auth_filter is None
                        or matches_auth_filter(existing["metadata"], auth_filter)
                    )
                ):
                    return existing
                raise Conflict(f"Assistant {assistant_id} already exists")
            await tx.run(
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
        params: list[Any] = [assistant_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        return await self._record(
            ASSISTANT,
            f"SELECT {ASSISTANT.select} FROM assistants WHERE assistant_id = ?{allowed}",
            params,
        )

    async def patch_assistant(
        self, assistant_id: str, changes: dict[str, Any], auth_filter: AuthFilter | None = None
    ) -> dict[str, Any] | None:
        now = utc_now()
        d = self.dialect
        params: list[Any] = [assistant_id]
        allowed = auth_clause(d, auth_filter, params)
        async with self.atomic() as tx:
            row = await tx.one(
                f"SELECT {ASSISTANT.select} FROM assistants WHERE assistant_id = ?{allowed}"
                f"{d.lock_rows}",
                params,
            )
            if row is None:
                return None
            current = ASSISTANT.record(row, d)
            updated = patched_assistant(
                current, changes, await _latest_version(tx, current) + 1, now
            )
            values = (
                updated["graph_id"],
                d.json(updated["config"]),
                d.json(updated["context"]),
                d.json(updated["metadata"]),
                updated["name"],
                updated["description"],
                updated["version"],
            )
            await tx.run(
                "UPDATE assistants SET graph_id=?, config=?, context=?, metadata=?, name=?, "
                "description=?, version=?, updated_at=? WHERE assistant_id=?",
                (*values, now, assistant_id),
            )
            await tx.run(
                f"INSERT INTO assistant_versions ({_VERSION_COLUMNS}, assistant_id, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (*values, assistant_id, now),
            )
        return updated

    async def delete_assistant(
        self, assistant_id: str, auth_filter: AuthFilter | None = None
    ) -> bool:
        params: list[Any] = [assistant_id]
        allowed = auth_clause(self.dialect, auth_filter, params)
        async with self.atomic() as tx:
            if not await tx.run(f"DELETE FROM assistants WHERE assistant_id = ?{allowed}", params):
                return False
            await tx.run("DELETE FROM assistant_versions WHERE assistant_id = ?", (assistant_id,))
        return True

    def _assistant_filters(
        self,
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None,
    ) -> tuple[str, list[Any]]:
        d = self.dialect
        clauses, params = conditions(d, auth_filter)
        if graph_id is not None:
            clauses.append("graph_id = ?")
            params.append(graph_id)
        if name is not None:
            # Case-insensitive, with the wildcards in `name` taken literally.
            clauses.append(f"name {d.ilike} ? ESCAPE '\\'")
            params.append(escape_like(name))
        if metadata:
            clauses.append(d.contains("metadata", metadata, params))
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
        return await self._page(
            ASSISTANT,
            "assistants",
            where,
            params,
            sort_by=sort_by,
            sort_order=sort_order,
            limit=limit,
            offset=offset,
        )

    async def count_assistants(
        self,
        *,
        graph_id: str | None,
        name: str | None,
        metadata: dict[str, Any] | None,
        auth_filter: AuthFilter | None = None,
    ) -> int:
        where, params = self._assistant_filters(graph_id, name, metadata, auth_filter)
        return await self._count("assistants", where, params)

    async def list_assistant_versions(
        self, assistant_id: str, *, metadata: dict[str, Any] | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        sql = f"SELECT {ASSISTANT_VERSION.select} FROM assistant_versions WHERE assistant_id = ?"
        params: list[Any] = [assistant_id]
        if metadata:
            sql += f" AND {self.dialect.contains('metadata', metadata, params)}"
        return await self._records(
            ASSISTANT_VERSION,
            f"{sql} ORDER BY version DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )

    async def set_latest_assistant_version(
        self, assistant_id: str, version: int
    ) -> dict[str, Any] | None:
        # One statement: copy the version's fields onto the assistant if that version exists.
        changed = await self.sql.run(
            f"UPDATE assistants SET ({_VERSION_COLUMNS}) = (SELECT {_VERSION_COLUMNS} "
            "FROM assistant_versions v WHERE v.assistant_id = ? AND v.version = ?), "
            "updated_at = ? WHERE assistant_id = ? AND EXISTS (SELECT 1 FROM assistant_versions "
            "v WHERE v.assistant_id = ? AND v.version = ?)",
            (assistant_id, version, utc_now(), assistant_id, assistant_id, version),
        )
        return await self.get_assistant(assistant_id) if changed else None


async def _latest_version(tx: Statements, current: dict[str, Any]) -> int:
    """The highest version stored of the assistant (its current one, should none be)."""
    row = await tx.one(
        "SELECT MAX(version) FROM assistant_versions WHERE assistant_id = ?",
        (current["assistant_id"],),
    )
    return current["version"] if row is None or row[0] is None else int(row[0])
