"""`/assistants`: configured graphs with their config, versions, schemas and drawings."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Response

from open_langgraph.errors import InvalidInput
from open_langgraph.serde import INT64_MAX
from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse, pagination_headers, select_fields
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.schemas import (
    AssistantCount,
    AssistantCreate,
    AssistantPatch,
    AssistantSearch,
    AssistantSetLatest,
    AssistantVersionsSearch,
)

router = IndexedRouter(prefix="/assistants", tags=["assistants"], route_class=JsonBodyRoute)


def _xray_depth(xray: str) -> bool | int:
    """`xray` is true/false or a subgraph depth, as the SDK sends it."""
    value = xray.strip().lower()
    if value in ("true", "false"):
        return value == "true"
    if value.isdigit():
        depth = int(value)  # 1 is one level of subgraphs (LangGraph's int), not True (all)
        return depth if depth > 0 else False
    raise InvalidInput("xray must be true, false or a subgraph depth (a whole number)")


@router.post("")
async def create_assistant(body: AssistantCreate, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.assistants.create(**body.model_dump()))


@router.get("")
async def list_assistants(
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    offset: Annotated[int, Query(ge=0, le=INT64_MAX)] = 0,
    graph_id: str | None = None,
) -> JSONResponse:
    """A page of assistants as `{"data": [...]}`, newest first (not in the Platform's schema;
    the form the project's guides and Aegra's clients use)."""
    found = await services.assistants.search(graph_id=graph_id, limit=limit, offset=offset)
    return JSONResponse({"data": found}, headers=pagination_headers(found, limit, offset))


@router.post("/search")
async def search_assistants(body: AssistantSearch, services: ServicesDep) -> JSONResponse:
    found = await services.assistants.search(**body.model_dump(exclude={"select"}))
    headers = pagination_headers(found, body.limit, body.offset)
    return JSONResponse(select_fields(found, body.select), headers=headers)


@router.post("/count")
async def count_assistants(body: AssistantCount, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.assistants.count(**body.model_dump()))


@router.get("/{assistant_id}")
async def get_assistant(assistant_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.assistants.get(assistant_id))


@router.patch("/{assistant_id}")
async def patch_assistant(
    assistant_id: str, body: AssistantPatch, services: ServicesDep
) -> JSONResponse:
    changes = body.model_dump(exclude_unset=True)
    return JSONResponse(await services.assistants.patch(assistant_id, changes))


@router.delete("/{assistant_id}", status_code=204)
async def delete_assistant(
    assistant_id: str, services: ServicesDep, delete_threads: bool = False
) -> Response:
    resolved = services.assistants.resolve_id(assistant_id)
    await services.assistants.delete(assistant_id)
    if delete_threads:
        await services.threads.delete_where(metadata={"assistant_id": resolved})
    return Response(status_code=204)


@router.post("/{assistant_id}/versions")
async def assistant_versions(
    assistant_id: str, body: AssistantVersionsSearch, services: ServicesDep
) -> JSONResponse:
    return JSONResponse(await services.assistants.versions(assistant_id, **body.model_dump()))


@router.post("/{assistant_id}/latest")
async def set_latest_version(
    assistant_id: str, body: AssistantSetLatest, services: ServicesDep
) -> JSONResponse:
    return JSONResponse(await services.assistants.set_latest(assistant_id, body.version))


@router.get("/{assistant_id}/graph")
async def assistant_graph(
    assistant_id: str, services: ServicesDep, xray: str = "false"
) -> JSONResponse:
    depth = _xray_depth(xray)
    return JSONResponse(await services.assistants.drawing(assistant_id, depth))


@router.get("/{assistant_id}/schemas")
async def assistant_schemas(assistant_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.assistants.schemas(assistant_id))


@router.get("/{assistant_id}/subgraphs")
async def assistant_subgraphs(
    assistant_id: str, services: ServicesDep, recurse: bool = False
) -> JSONResponse:
    return JSONResponse(await services.assistants.subgraphs(assistant_id, None, recurse))


@router.get("/{assistant_id}/subgraphs/{namespace}")
async def assistant_subgraphs_in(
    assistant_id: str, namespace: str, services: ServicesDep, recurse: bool = False
) -> JSONResponse:
    return JSONResponse(await services.assistants.subgraphs(assistant_id, namespace, recurse))
