"""Assistants: the system assistant of each configured graph, plus user-made ones."""

from __future__ import annotations

import contextlib
import functools
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from langgraph.pregel import Pregel

from open_langgraph.auth.authorize import Authorizer, searched_metadata
from open_langgraph.auth.context import current_user
from open_langgraph.auth.filters import stamped
from open_langgraph.errors import InvalidInput, NotFound
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.introspection import graph_drawing, graph_schemas, subgraph_schemas
from open_langgraph.runtime.run_spec import mirrored_context
from open_langgraph.storage.base import ASSISTANT_SORT_FIELDS, SortOrder, Storage
from open_langgraph.storage.filters import matches_auth_filter

# The namespace LangGraph Platform derives system assistant ids from, so an id a client
# stored against the Platform names the same assistant here.
SYSTEM_ASSISTANT_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")


@functools.lru_cache(maxsize=1024)
def system_assistant_id(graph_id: str) -> str:
    """Cached: each run asks for it twice, and a name-based UUID hashes with SHA-1 each time."""
    return str(uuid.uuid5(SYSTEM_ASSISTANT_NAMESPACE, graph_id))


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class AssistantService:
    """Each action asks the authorizer for the request user's filter (`assistants.<action>`)
    and works only inside it; an assistant outside is answered like a missing one."""

    def __init__(
        self, storage: Storage, graphs: GraphRegistry, authorizer: Authorizer | None = None
    ) -> None:
        self._storage = storage
        self._graphs = graphs
        self._auth = authorizer or Authorizer()

    async def ensure_system_assistants(self) -> None:
        """One assistant per configured graph, created on first start and kept after."""
        for graph_id in self._graphs.graph_ids:
            await self._storage.create_assistant(
                assistant_id=system_assistant_id(graph_id),
                graph_id=graph_id,
                config={},
                context={},
                metadata={"created_by": "system"},
                name=self._graphs.display_name(graph_id),
                description=self._graphs.description(graph_id),
                if_exists="do_nothing",
            )

    def resolve_id(self, assistant_id: str) -> str:
        """Accept a graph id wherever an assistant id is expected."""
        if assistant_id in self._graphs:
            return system_assistant_id(assistant_id)
        if not is_uuid(assistant_id):
            raise InvalidInput(
                f"Invalid assistant ID {assistant_id!r}: must be a UUID or a graph id "
                f"({', '.join(self._graphs.graph_ids)})"
            )
        return assistant_id

    async def get(self, assistant_id: str) -> dict[str, Any]:
        resolved = self.resolve_id(assistant_id)
        auth_filter = await self._auth.authorize("assistants", "read", {"assistant_id": resolved})
        assistant = await self._storage.get_assistant(resolved, auth_filter)
        if assistant is None:
            raise NotFound(f"Assistant {assistant_id} not found")
        return assistant

    async def for_run(self, assistant_id: str) -> dict[str, Any]:
        """The assistant a run uses. As on LangGraph Platform, a graph's system assistant is
        usable by every user; another assistant only inside the user's read filter."""
        return await self.usable_for_run(await self.stored_for_run(assistant_id), assistant_id)

    async def stored_for_run(self, assistant_id: str) -> dict[str, Any]:
        """The stored assistant a run names, before any auth handler is asked: the Platform
        answers 404 for a missing one even where a `create_run` handler would refuse."""
        assistant = await self._storage.get_assistant(self.resolve_id(assistant_id))
        if assistant is None:
            raise NotFound(f"Assistant {assistant_id} not found")
        return assistant

    async def usable_for_run(self, assistant: dict[str, Any], named_as: str) -> dict[str, Any]:
        """`assistant` if the user may run it (see `for_run`), else NotFound."""
        resolved = assistant["assistant_id"]
        if resolved != system_assistant_id(assistant["graph_id"]):
            auth_filter = await self._auth.authorize(
                "assistants", "read", {"assistant_id": resolved}
            )
            if auth_filter is not None and not matches_auth_filter(
                assistant["metadata"], auth_filter
            ):
                raise NotFound(f"Assistant {named_as} not found")
        return assistant

    def _check_graph(self, graph_id: str) -> None:
        if graph_id not in self._graphs:
            raise NotFound(
                f"Graph {graph_id!r} not found; expected one of {self._graphs.graph_ids}"
            )

    async def create(
        self,
        *,
        graph_id: str,
        assistant_id: str | None,
        config: dict[str, Any] | None,
        context: dict[str, Any] | None,
        metadata: dict[str, Any] | None,
        name: str | None,
        description: str | None,
        if_exists: Literal["raise", "do_nothing"],
    ) -> dict[str, Any]:
        self._check_graph(graph_id)
        if assistant_id is not None and not is_uuid(assistant_id):
            raise InvalidInput(f"assistant_id {assistant_id!r} must be a UUID")
        config, context = mirrored_context(config, context)
        if context is None:
            context = {}
        value = {
            "assistant_id": assistant_id or str(uuid.uuid4()),
            "graph_id": graph_id,
            "config": config,
            "context": context,
            "metadata": dict(metadata or {}),
            "if_exists": if_exists,
            "name": name or "Untitled",
            "description": description,
        }
        auth_filter = await self._auth.authorize("assistants", "create", value)
        return await self._storage.create_assistant(
            assistant_id=value["assistant_id"],
            graph_id=graph_id,
            config=config,
            context=context,
            metadata=stamped(value["metadata"], auth_filter),
            name=value["name"],
            description=description,
            if_exists=if_exists,
            auth_filter=auth_filter,
        )

    async def patch(self, assistant_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        # A null means "leave it", as the SDK sends None for fields not given; only the
        # description may be cleared.
        changes = {k: v for k, v in changes.items() if v is not None or k == "description"}
        if "graph_id" in changes:
            self._check_graph(changes["graph_id"])
        if "config" in changes or "context" in changes:
            config, context = mirrored_context(changes.get("config"), changes.get("context"))
            if config:
                changes["config"] = config
            if context is not None:
                changes["context"] = context
        resolved = self.resolve_id(assistant_id)
        auth_filter = None
        if self._auth.enabled:
            value = {"assistant_id": resolved, **changes}
            value["metadata"] = dict(changes.get("metadata") or {})
            auth_filter = await self._auth.authorize("assistants", "update", value)
            # The filter's owner keys are kept: an update cannot move it out of the filter.
            metadata = stamped(value["metadata"], auth_filter)
            if metadata or "metadata" in changes:
                changes = {**changes, "metadata": metadata}
        updated = await self._storage.patch_assistant(resolved, changes, auth_filter)
        if updated is None:
            raise NotFound(f"Assistant {assistant_id} not found")
        return updated

    async def delete(self, assistant_id: str) -> None:
        resolved = self.resolve_id(assistant_id)
        auth_filter = await self._auth.authorize("assistants", "delete", {"assistant_id": resolved})
        if not await self._storage.delete_assistant(resolved, auth_filter):
            raise NotFound(f"Assistant {assistant_id} not found")

    async def search(
        self,
        *,
        graph_id: str | None = None,
        name: str | None = None,
        metadata: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        sort_by: str | None = None,
        sort_order: SortOrder | None = None,
    ) -> list[dict[str, Any]]:
        sort_by = sort_by or "created_at"
        if sort_by not in ASSISTANT_SORT_FIELDS:
            raise InvalidInput(f"sort_by must be one of {sorted(ASSISTANT_SORT_FIELDS)}")
        value = {
            "graph_id": graph_id,
            "name": name,
            "metadata": dict(metadata or {}),
            "limit": limit,
            "offset": offset,
        }
        auth_filter = await self._auth.authorize("assistants", "search", value)
        metadata = searched_metadata(value)
        return await self._storage.search_assistants(
            graph_id=graph_id,
            name=name,
            metadata=metadata,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order or "desc",
            auth_filter=auth_filter,
        )

    async def count(
        self, *, graph_id: str | None, name: str | None, metadata: dict[str, Any] | None
    ) -> int:
        value = {"graph_id": graph_id, "name": name, "metadata": dict(metadata or {})}
        auth_filter = await self._auth.authorize("assistants", "search", value)
        metadata = searched_metadata(value)
        return await self._storage.count_assistants(
            graph_id=graph_id, name=name, metadata=metadata, auth_filter=auth_filter
        )

    async def versions(
        self, assistant_id: str, *, metadata: dict[str, Any] | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        assistant = await self.get(assistant_id)
        return await self._storage.list_assistant_versions(
            assistant["assistant_id"], metadata=metadata, limit=limit, offset=offset
        )

    async def set_latest(self, assistant_id: str, version: int) -> dict[str, Any]:
        resolved = self.resolve_id(assistant_id)
        auth_filter = await self._auth.authorize(
            "assistants", "update", {"assistant_id": resolved, "version": version}
        )
        assistant = await self._storage.get_assistant(resolved, auth_filter)
        if assistant is None:
            raise NotFound(f"Assistant {assistant_id} not found")
        updated = await self._storage.set_latest_assistant_version(
            assistant["assistant_id"], version
        )
        if updated is None:
            raise NotFound(f"Assistant {assistant_id} has no version {version}")
        return updated

    @contextlib.asynccontextmanager
    async def _graph_of(self, assistant: dict[str, Any]) -> AsyncIterator[Pregel]:
        if assistant["graph_id"] not in self._graphs:
            raise NotFound(f"Graph {assistant['graph_id']!r} of this assistant is not served")
        async with self._graphs.open(
            assistant["graph_id"],
            assistant["config"],
            access="assistants.read",
            user=current_user(),
        ) as graph:
            yield graph

    async def drawing(self, assistant_id: str, xray: bool | int) -> dict[str, Any]:
        assistant = await self.get(assistant_id)
        async with self._graph_of(assistant) as graph:
            return await graph_drawing(graph, assistant["config"], xray)

    async def schemas(self, assistant_id: str) -> dict[str, Any]:
        assistant = await self.get(assistant_id)
        async with self._graph_of(assistant) as graph:
            return graph_schemas(graph, assistant["graph_id"])

    async def subgraphs(
        self, assistant_id: str, namespace: str | None, recurse: bool
    ) -> dict[str, Any]:
        assistant = await self.get(assistant_id)
        async with self._graph_of(assistant) as graph:
            return await subgraph_schemas(graph, assistant["graph_id"], namespace, recurse)
