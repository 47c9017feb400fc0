"""Threads: records, checkpointed state, history, state edits, copies and pruning."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.constants import END
from langgraph.errors import InvalidUpdateError
from langgraph.pregel import Pregel
from langgraph.types import StateUpdate

from open_langgraph.auth.authorize import Authorizer, searched_metadata
from open_langgraph.auth.context import current_user
from open_langgraph.auth.filters import stamped
from open_langgraph.config import ThreadTTLConfig
from open_langgraph.errors import BadRequest, Conflict, Forbidden, InvalidInput, NotFound
from open_langgraph.runtime.broker import ThreadEvent
from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.runtime.factories import AccessContext
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.run_spec import to_command
from open_langgraph.runtime.state import (
    checkpoint_of,
    empty_state,
    snapshot_json,
    thread_update_from,
)
from open_langgraph.services.assistants import is_uuid
from open_langgraph.services.thread_extract import extracted, parse_extract
from open_langgraph.services.thread_storage import thread_storage_body
from open_langgraph.services.thread_ttl import arm, requested_ttl
from open_langgraph.storage.base import (
    THREAD_SORT_FIELDS,
    AuthFilter,
    SortOrder,
    Storage,
    ThreadStatus,
)
from open_langgraph.storage.filters import matches_auth_filter

#: `as_node` values LangGraph's `update_state` takes besides the graph's nodes: `__end__` with
#: no values ends the thread's pending tasks and interrupts (agent-inbox's "Mark as Resolved"),
#: `__input__` writes as the run's input would, `__copy__` copies the checkpoint as it is.
PSEUDO_NODES = frozenset({END, "__input__", "__copy__"})


def check_uuid(value: str, what: str) -> str:
    if not is_uuid(value):
        raise InvalidInput(f"Invalid {what} {value!r}: must be a UUID")
    return value


def _checkpoint_config(thread_id: str, checkpoint: dict[str, Any] | None) -> dict[str, Any]:
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint:
        for key in ("checkpoint_id", "checkpoint_ns", "checkpoint_map"):
            if checkpoint.get(key) is not None:
                configurable[key] = checkpoint[key]
    return {"configurable": configurable}


def _superstep_graph(
    metadata: dict[str, Any] | None,
    supersteps: list[list[dict[str, Any]]] | None,
    graphs: GraphRegistry,
) -> str | None:
    """The graph that applies a new thread's supersteps: the one its metadata names."""
    if not supersteps:
        return None
    graph_id = (metadata or {}).get("graph_id")
    if graph_id not in graphs:
        raise InvalidInput(
            "supersteps: metadata.graph_id must name a served graph, which applies them; "
            f"got {graph_id!r:.60}"
        )
    return graph_id


class ThreadService:
    """Every method that reaches a thread first asks the authorizer (`auth/authorize.py`)
    for the request user's filter for its action, and reads or writes only inside it: a
    thread outside is answered like a missing one."""

    def __init__(
        self,
        storage: Storage,
        graphs: GraphRegistry,
        runs: RunDispatcher,
        ttl_defaults: ThreadTTLConfig | None = None,
        authorizer: Authorizer | None = None,
    ) -> None:
        self._storage = storage
        self._graphs = graphs
        self._runs = runs
        self._ttl_defaults = ttl_defaults or ThreadTTLConfig()
        self._auth = authorizer or Authorizer()

    async def get(self, thread_id: str, *, include_ttl: bool = False) -> dict[str, Any]:
        check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize("threads", "read", {"thread_id": thread_id})
        thread = await self._get(thread_id, auth_filter)
        if include_ttl:
            thread["ttl"] = await self._storage.get_thread_ttl(thread_id)
        return thread

    async def storage(self, thread_id: str) -> dict[str, Any]:
        """Bytes the thread's checkpoints occupy (`services/thread_storage.py`); reading it
        is reading the thread (`threads.read`)."""
        await self.get(thread_id)
        measured = await self._storage.checkpoint_bytes(thread_id)
        return thread_storage_body(thread_id, measured)

    async def _get(self, thread_id: str, auth_filter: AuthFilter | None) -> dict[str, Any]:
        thread = await self._storage.get_thread(thread_id, auth_filter)
        if thread is None:
            raise NotFound(f"Thread with ID {thread_id} not found")
        return thread

    async def create(
        self,
        *,
        thread_id: str | None,
        metadata: dict[str, Any] | None,
        if_exists: Literal["raise", "do_nothing"],
        ttl: dict[str, Any] | float | None = None,
        supersteps: list[list[dict[str, Any]]] | None = None,
    ) -> dict[str, Any]:
        if thread_id is not None:
            check_uuid(thread_id, "thread ID")
        thread_ttl = requested_ttl(ttl, self._ttl_defaults)
        graph_id = _superstep_graph(metadata, supersteps, self._graphs)
        new_id = thread_id or str(uuid.uuid4())
        value = {
            "thread_id": new_id,
            "metadata": dict(metadata or {}),
            "if_exists": if_exists,
            "ttl": ttl,
        }
        auth_filter = await self._auth.authorize("threads", "create", value)
        metadata = stamped(value["metadata"], auth_filter)
        if graph_id is not None and thread_id is not None:
            existing = await self._storage.get_thread(thread_id)
            if existing is not None:
                outside = auth_filter is not None and not matches_auth_filter(
                    existing["metadata"], auth_filter
                )
                if if_exists == "raise" or outside:
                    raise Conflict(f"Thread with ID {thread_id} already exists")
                return existing  # supersteps build a new thread; never rewrite this one
        thread = await self._storage.create_thread(
            thread_id=new_id,
            metadata=metadata,
            if_exists=if_exists,
            auth_filter=auth_filter,
        )
        await arm(self._storage, thread["thread_id"], thread_ttl)
        if graph_id is not None and supersteps:
            thread = await self._apply_supersteps(thread["thread_id"], graph_id, supersteps)
        return thread

    async def _apply_supersteps(
        self, thread_id: str, graph_id: str, supersteps: list[list[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Replay the supersteps of another deployment's thread onto the new thread.

        A superstep the graph refuses deletes the new thread again: half a copy is no copy.
        """
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        steps = [
            [
                StateUpdate(
                    to_command(u["command"]) if u.get("command") else u.get("values"),
                    u["as_node"],
                )
                for u in updates
            ]
            for updates in supersteps
        ]
        try:
            async with self._graphs.open(
                graph_id, config, access="threads.update", user=current_user()
            ) as graph:
                await graph.abulk_update_state(config, steps)
                snapshot = await graph.aget_state(config)
        except (ValueError, KeyError, TypeError, InvalidUpdateError) as exc:
            await self._storage.delete_thread(thread_id)
            raise BadRequest(f"supersteps: cannot apply them to graph {graph_id!r}: {exc}") from exc
        await self._storage.update_thread(thread_id, thread_update_from(snapshot))
        return await self._get(thread_id, None)

    async def patch(
        self,
        thread_id: str,
        metadata: dict[str, Any],
        ttl: dict[str, Any] | float | None = None,
    ) -> dict[str, Any]:
        check_uuid(thread_id, "thread ID")
        # Only an explicit TTL changes it; the config's default is for new threads.
        thread_ttl = requested_ttl(ttl, self._ttl_defaults) if ttl is not None else None
        value = {"thread_id": thread_id, "metadata": dict(metadata)}
        auth_filter = await self._auth.authorize("threads", "update", value)
        # The filter's owner keys are kept: a patch cannot move the thread out of it.
        metadata = stamped(value["metadata"], auth_filter)
        thread = await self._storage.patch_thread(thread_id, metadata, auth_filter)
        if thread is None:
            raise NotFound(f"Thread with ID {thread_id} not found")
        await arm(self._storage, thread_id, thread_ttl)
        return thread

    async def delete(self, thread_id: str) -> None:
        check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize("threads", "delete", {"thread_id": thread_id})
        await self._get(thread_id, auth_filter)
        active = await self._runs.in_flight(thread_id, None)
        if active:
            await self._runs.cancel(thread_id, active, action="interrupt", wait=True)
        if not await self._storage.delete_thread(thread_id, auth_filter):
            raise NotFound(f"Thread with ID {thread_id} not found")

    async def delete_where(self, *, metadata: dict[str, Any]) -> int:
        """Delete every thread whose metadata contains `metadata` and that the request's user
        may delete (others are left alone); returns how many."""
        auth_filter = await self._auth.authorize(
            "threads", "search", {"metadata": dict(metadata), "limit": 100, "offset": 0}
        )
        deleted = skipped = 0
        while batch := await self._storage.search_threads(
            ids=None,
            metadata=metadata,
            values=None,
            status=None,
            limit=100,
            offset=skipped,
            sort_by="created_at",
            sort_order="asc",
            auth_filter=auth_filter,
        ):
            for thread in batch:
                try:
                    await self.delete(thread["thread_id"])
                    deleted += 1
                except (NotFound, Forbidden):
                    skipped += 1
        return deleted

    async def search(
        self,
        *,
        ids: Sequence[str] | None,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
        limit: int,
        offset: int,
        sort_by: str | None,
        sort_order: SortOrder | None,
        extract: dict[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        sort_by = sort_by or "created_at"
        if sort_by not in THREAD_SORT_FIELDS:
            raise InvalidInput(f"sort_by must be one of {sorted(THREAD_SORT_FIELDS)}")
        paths = parse_extract(extract) if extract else None
        value = {
            "metadata": dict(metadata or {}),
            "values": values,
            "status": status,
            "limit": limit,
            "offset": offset,
            "ids": ids,
        }
        auth_filter = await self._auth.authorize("threads", "search", value)
        metadata = searched_metadata(value)
        found = await self._storage.search_threads(
            ids=ids,
            metadata=metadata,
            values=values,
            status=status,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order or "desc",
            auth_filter=auth_filter,
        )
        if paths:
            for thread in found:
                thread["extracted"] = extracted(thread, paths)
        return found

    async def count(
        self,
        *,
        metadata: dict[str, Any] | None,
        values: dict[str, Any] | None,
        status: ThreadStatus | None,
    ) -> int:
        value = {"metadata": dict(metadata or {}), "values": values, "status": status}
        auth_filter = await self._auth.authorize("threads", "search", value)
        metadata = searched_metadata(value)
        return await self._storage.count_threads(
            metadata=metadata, values=values, status=status, auth_filter=auth_filter
        )

    async def copy(self, thread_id: str) -> dict[str, Any]:
        """A new thread with the thread's state; its metadata is the original's, with the
        copier's create filter written in (the copy belongs to whoever made it)."""
        check_uuid(thread_id, "thread ID")
        read_filter = await self._auth.authorize("threads", "read", {"thread_id": thread_id})
        source = await self._storage.get_thread(thread_id, read_filter)
        if source is None:
            raise self._no_copy_source(thread_id)
        new_id = str(uuid.uuid4())
        metadata = None
        if self._auth.enabled:
            value = {
                "thread_id": new_id,
                "metadata": dict(source["metadata"]),
                "if_exists": "raise",
            }
            create_filter = await self._auth.authorize("threads", "create", value)
            metadata = stamped(value["metadata"], create_filter)
        copied = await self._storage.copy_thread(thread_id, new_id, read_filter, metadata)
        if copied is None:
            raise self._no_copy_source(thread_id)
        return copied

    @staticmethod
    def _no_copy_source(thread_id: str) -> Conflict:
        """409, not 404: the Platform's schema gives copy no 404, and langgraph-api answers
        409 for a thread it cannot see."""
        return Conflict(f"Thread with ID {thread_id} not found")

    async def prune(
        self, thread_ids: Sequence[str], strategy: Literal["delete", "keep_latest"]
    ) -> int:
        for thread_id in thread_ids:
            check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize(
            "threads", "delete", {"thread_ids": list(thread_ids)}
        )
        for thread_id in thread_ids:
            if await self._runs.is_busy(thread_id) and (
                auth_filter is None or await self._storage.get_thread(thread_id, auth_filter)
            ):
                raise Conflict(f"Thread {thread_id} has runs in progress; cancel them first")
        return await self._storage.prune_threads(thread_ids, strategy, auth_filter)

    # -- state -----------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _graph_for(
        self, thread: dict[str, Any], access: AccessContext = "threads.read"
    ) -> AsyncIterator[Pregel | None]:
        """The graph of the thread's last run, or None for a thread that never ran."""
        graph_id = (thread.get("metadata") or {}).get("graph_id")
        if graph_id is None:
            yield None
            return
        if graph_id not in self._graphs:
            raise NotFound(f"Graph {graph_id!r} of this thread is not served")
        config: RunnableConfig = {"configurable": {"thread_id": thread["thread_id"]}}
        async with self._graphs.open(graph_id, config, access=access, user=current_user()) as graph:
            yield graph

    async def state(
        self, thread_id: str, checkpoint: dict[str, Any] | None, subgraphs: bool
    ) -> dict[str, Any]:
        thread = await self.get(thread_id)
        async with self._graph_for(thread) as graph:
            if graph is None:
                snapshot = None
            else:
                config = _checkpoint_config(thread_id, checkpoint)
                try:
                    snapshot = await graph.aget_state(config, subgraphs=subgraphs)
                except InvalidUpdateError:
                    # The pending writes of the step a run failed on conflict (that is why
                    # it failed) and reading the state re-applies them; the checkpoint is
                    # intact, and history reads it without them.
                    snapshot = await anext(aiter(graph.aget_state_history(config, limit=1)), None)
        if snapshot is None or snapshot.created_at is None:
            if checkpoint and checkpoint.get("checkpoint_id"):
                raise NotFound(f"Checkpoint {checkpoint['checkpoint_id']} not found")
            return empty_state()
        return snapshot_json(snapshot)

    async def history(
        self,
        thread_id: str,
        *,
        limit: int,
        before: dict[str, Any] | str | None,
        metadata: dict[str, Any] | None,
        checkpoint: dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        thread = await self.get(thread_id)
        if isinstance(before, str):
            before = {"checkpoint_id": before}
        states: list[dict[str, Any]] = []
        async with self._graph_for(thread) as graph:
            if graph is None:
                return states
            history = graph.aget_state_history(
                _checkpoint_config(thread_id, checkpoint),
                limit=limit,
                before=_checkpoint_config(thread_id, before) if before else None,
                filter=metadata or None,
            )
            try:
                async for snapshot in history:
                    states.append(snapshot_json(snapshot))
            except ValueError as exc:
                # The checkpointer refuses metadata filter keys it cannot put in a query.
                raise InvalidInput(f"metadata: {exc}") from None
        return states

    async def update_state(
        self,
        thread_id: str,
        *,
        values: Any,
        as_node: str | None,
        checkpoint: dict[str, Any] | None,
    ) -> dict[str, Any]:
        check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize("threads", "update", {"thread_id": thread_id})
        thread = await self._get(thread_id, auth_filter)
        if await self._runs.is_busy(thread_id):
            raise Conflict(f"Thread {thread_id} is busy with a run; wait for it to finish")
        async with self._graph_for(thread, "threads.update") as graph:
            if graph is None:
                raise BadRequest(
                    f"Thread {thread_id} has no graph yet: start a run on it before editing "
                    "its state"
                )
            if as_node is not None and as_node not in graph.nodes and as_node not in PSEUDO_NODES:
                raise BadRequest(f"Node {as_node!r} does not exist; nodes are {list(graph.nodes)}")
            update_config = _checkpoint_config(thread_id, checkpoint)
            # The checkpoint an edit writes names its graph, as a run's do and as the
            # Platform's edits do: history filtered by `graph_id` finds it.
            update_config["metadata"] = {"graph_id": thread["metadata"]["graph_id"]}
            try:
                config = await graph.aupdate_state(update_config, values, as_node=as_node)
            except (ValueError, KeyError, TypeError, InvalidUpdateError) as exc:
                raise BadRequest(f"cannot update the state: {exc}") from exc
            snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
        await self._storage.update_thread(thread_id, thread_update_from(snapshot))
        self._runs.publish_to_thread(
            thread_id, ThreadEvent.state_update(thread_id, snapshot_json(snapshot))
        )
        checkpoint_json = checkpoint_of(config)
        return {
            "checkpoint": checkpoint_json,
            "configurable": checkpoint_json,
            "checkpoint_id": checkpoint_json.get("checkpoint_id") if checkpoint_json else None,
        }
