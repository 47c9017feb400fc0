"""`/store`: long-term memory items shared by every thread, in LangGraph's store."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Response
from langgraph.store.base import NOT_PROVIDED

from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.store_schemas import (
    StoreDelete,
    StoreListNamespaces,
    StorePut,
    StoreSearch,
)
from open_langgraph.services.store import parse_query_namespace

router = IndexedRouter(prefix="/store", tags=["store"], route_class=JsonBodyRoute)


@router.put("/items", status_code=204)
async def put_item(body: StorePut, services: ServicesDep) -> Response:
    # An explicit `"ttl": null` means "never expires"; an absent one, the configured default.
    ttl = body.ttl if "ttl" in body.model_fields_set else NOT_PROVIDED
    await services.store.put(body.namespace, body.key, body.value, index=body.index, ttl=ttl)
    return Response(status_code=204)


@router.get("/items")
async def get_item(
    services: ServicesDep,
    key: str,
    namespace: Annotated[list[str], Query(max_length=100)] = [],  # noqa: B006  # FastAPI copies it
    refresh_ttl: bool | None = None,
) -> JSONResponse:
    """`namespace` is dotted (`a.b`, as `langgraph_sdk` sends it) or repeated."""
    ns = parse_query_namespace(namespace)
    return JSONResponse(await services.store.get(ns, key, refresh_ttl=refresh_ttl))


@router.delete("/items", status_code=204)
async def delete_item(body: StoreDelete, services: ServicesDep) -> Response:
    await services.store.delete(body.namespace, body.key)
    return Response(status_code=204)


@router.post("/items/search")
async def search_items(body: StoreSearch, services: ServicesDep) -> JSONResponse:
    return JSONResponse(
        await services.store.search(
            body.namespace_prefix or (),
            filter=body.filter,
            limit=body.limit,
            offset=body.offset,
            query=body.query,
            refresh_ttl=body.refresh_ttl,
        )
    )


@router.post("/namespaces")
async def list_namespaces(body: StoreListNamespaces, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.store.list_namespaces(**body.model_dump()))
