"""`/threads`: conversation records, their checkpointed state and its history."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Response

from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse, pagination_headers, select_fields
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.schemas import (
    ThreadCount,
    ThreadCreate,
    ThreadHistory,
    ThreadPatch,
    ThreadPrune,
    ThreadSearch,
    ThreadStateAtCheckpoint,
    ThreadStateUpdate,
    ThreadTTL,
)

router = IndexedRouter(prefix="/threads", tags=["threads"], route_class=JsonBodyRoute)


def _select_state(state: dict[str, Any], select: list[str] | None) -> dict[str, Any]:
    """`select` keeps top-level fields, or one key of the values as `values.KEY`."""
    if not select:
        return state
    picked: dict[str, Any] = {}
    for field in select:
        if field.startswith("values.") and isinstance(state.get("values"), dict):
            key = field.removeprefix("values.")
            picked.setdefault("values", {})
            if key in state["values"]:
                picked["values"][key] = state["values"][key]
        elif field in state:
            picked[field] = state[field]
    return picked


def _ttl(value: ThreadTTL | float | None) -> dict[str, Any] | float | None:
    return value.model_dump(exclude_none=True) if isinstance(value, ThreadTTL) else value


@router.post("")
async def create_thread(body: ThreadCreate, services: ServicesDep) -> JSONResponse:
    supersteps = None
    if body.supersteps:
        supersteps = [
            [update.model_dump(exclude_unset=True) for update in step.updates]
            for step in body.supersteps
        ]
    thread = await services.threads.create(
        thread_id=body.thread_id,
        metadata=body.metadata,
        if_exists=body.if_exists,
        ttl=_ttl(body.ttl),
        supersteps=supersteps,
    )
    return JSONResponse(thread)


@router.post("/search")
async def search_threads(body: ThreadSearch, services: ServicesDep) -> JSONResponse:
    found = await services.threads.search(**body.model_dump(exclude={"select"}))
    headers = pagination_headers(found, body.limit, body.offset)
    selected = select_fields(found, body.select)
    if body.extract:  # `extracted` is not a column: keep it whatever `select` chose
        for thread, picked in zip(found, selected, strict=True):
            picked["extracted"] = thread["extracted"]
    return JSONResponse(selected, headers=headers)


@router.post("/count")
async def count_threads(body: ThreadCount, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.threads.count(**body.model_dump()))


@router.post("/prune")
async def prune_threads(body: ThreadPrune, services: ServicesDep) -> JSONResponse:
    pruned = await services.threads.prune(body.thread_ids, body.strategy)
    return JSONResponse({"pruned_count": pruned})


@router.get("/{thread_id}")
async def get_thread(
    thread_id: str, services: ServicesDep, include: Annotated[list[str] | None, Query()] = None
) -> JSONResponse:
    """`include=ttl` adds the thread's TTL (`null` when it has none), as on the Platform."""
    fields = {f.strip() for value in include or () for f in value.split(",")}
    return JSONResponse(await services.threads.get(thread_id, include_ttl="ttl" in fields))


@router.get("/{thread_id}/storage")
async def get_thread_storage(thread_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.threads.storage(thread_id))


@router.patch("/{thread_id}")
async def patch_thread(thread_id: str, body: ThreadPatch, services: ServicesDep) -> JSONResponse:
    thread = await services.threads.patch(thread_id, body.metadata or {}, _ttl(body.ttl))
    return JSONResponse(thread)


@router.delete("/{thread_id}", status_code=204)
async def delete_thread(thread_id: str, services: ServicesDep) -> Response:
    await services.threads.delete(thread_id)
    return Response(status_code=204)


@router.post("/{thread_id}/copy")
async def copy_thread(thread_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.threads.copy(thread_id))


@router.get("/{thread_id}/state")
async def get_state(
    thread_id: str, services: ServicesDep, subgraphs: bool = False, select: str | None = None
) -> JSONResponse:
    state = await services.threads.state(thread_id, None, subgraphs)
    return JSONResponse(_select_state(state, select.split(",") if select else None))


@router.post("/{thread_id}/state")
async def update_state(
    thread_id: str, body: ThreadStateUpdate, services: ServicesDep
) -> JSONResponse:
    checkpoint = body.checkpoint.model_dump() if body.checkpoint else None
    if body.checkpoint_id:
        checkpoint = {**(checkpoint or {}), "checkpoint_id": body.checkpoint_id}
    result = await services.threads.update_state(
        thread_id, values=body.values, as_node=body.as_node, checkpoint=checkpoint
    )
    return JSONResponse(result)


@router.post("/{thread_id}/state/checkpoint")
async def get_state_at_checkpoint_post(
    thread_id: str, body: ThreadStateAtCheckpoint, services: ServicesDep
) -> JSONResponse:
    state = await services.threads.state(thread_id, body.checkpoint.model_dump(), body.subgraphs)
    return JSONResponse(_select_state(state, body.select))


@router.get("/{thread_id}/state/{checkpoint_id}")
async def get_state_at_checkpoint(
    thread_id: str,
    checkpoint_id: str,
    services: ServicesDep,
    subgraphs: bool = False,
    select: str | None = None,
) -> JSONResponse:
    state = await services.threads.state(thread_id, {"checkpoint_id": checkpoint_id}, subgraphs)
    return JSONResponse(_select_state(state, select.split(",") if select else None))


@router.get("/{thread_id}/history")
async def get_history(
    thread_id: str,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    before: str | None = None,
) -> JSONResponse:
    history = await services.threads.history(
        thread_id, limit=limit, before=before, metadata=None, checkpoint=None
    )
    return JSONResponse(history)


@router.post("/{thread_id}/history")
async def post_history(thread_id: str, body: ThreadHistory, services: ServicesDep) -> JSONResponse:
    before = body.before.model_dump() if hasattr(body.before, "model_dump") else body.before
    history = await services.threads.history(
        thread_id,
        limit=body.limit,
        before=before,  # type: ignore[arg-type]
        metadata=body.metadata,
        checkpoint=body.checkpoint.model_dump() if body.checkpoint else None,
    )
    return JSONResponse([_select_state(s, body.select) for s in history])
