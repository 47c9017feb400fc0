"""Crons: `/runs/crons` (stateless), `/threads/{thread_id}/runs/crons`, search, count, get,
patch and delete, with the Platform's paths and bodies."""

from __future__ import annotations

from fastapi import Response

from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse, pagination_headers, select_fields
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.services.cron_request import CronCount, CronCreate, CronPatch, CronSearch

router = IndexedRouter(tags=["crons"], route_class=JsonBodyRoute)


@router.post("/runs/crons")
async def create_cron(body: CronCreate, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.crons.create(None, body))


@router.post("/threads/{thread_id}/runs/crons")
async def create_thread_cron(
    thread_id: str, body: CronCreate, services: ServicesDep
) -> JSONResponse:
    return JSONResponse(await services.crons.create(thread_id, body))


@router.post("/runs/crons/search")
async def search_crons(body: CronSearch, services: ServicesDep) -> JSONResponse:
    found = await services.crons.search(**body.model_dump(exclude={"select"}))
    headers = pagination_headers(found, body.limit, body.offset)
    return JSONResponse(select_fields(found, list(body.select or ())), headers=headers)


@router.post("/runs/crons/count")
async def count_crons(body: CronCount, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.crons.count(body))


@router.get("/runs/crons/{cron_id}")
async def get_cron(cron_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.crons.get(cron_id))


@router.patch("/runs/crons/{cron_id}")
async def patch_cron(cron_id: str, body: CronPatch, services: ServicesDep) -> JSONResponse:
    return JSONResponse(await services.crons.patch(cron_id, body))


@router.delete("/runs/crons/{cron_id}", status_code=204)
async def delete_cron(cron_id: str, services: ServicesDep) -> Response:
    await services.crons.delete(cron_id)
    return Response(status_code=204)
