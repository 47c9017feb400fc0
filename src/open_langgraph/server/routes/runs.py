"""Runs on a thread and stateless runs: background, wait, SSE stream, join, cancel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Header, Query, Response
from starlette.responses import StreamingResponse

from open_langgraph.errors import InvalidInput
from open_langgraph.runtime.manager import CancelAction
from open_langgraph.serde import INT64_MAX, parse_int64
from open_langgraph.server.deps import Services, ServicesDep
from open_langgraph.server.json_body import JsonBodyRoute
from open_langgraph.server.responses import JSONResponse, select_fields
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.schemas import RunBatch, RunCancelMany, RunCreate, RunStatus
from open_langgraph.server.sse import sse_response
from open_langgraph.services.runs import public_run
from open_langgraph.services.thread_stream import parse_thread_stream_modes
from open_langgraph.storage.base import StoredEvent

router = IndexedRouter(tags=["runs"], route_class=JsonBodyRoute)


def _run_headers(run: dict[str, Any], suffix: str) -> dict[str, str]:
    base = f"/threads/{run['thread_id']}/runs/{run['run_id']}"
    return {"Location": f"{base}{suffix}", "Content-Location": base}


async def _wait(services: Services, thread_id: str | None, body: RunCreate) -> JSONResponse:
    run = await services.runs.create(thread_id, body, then_wait=True)
    outcome = await services.runs.wait_for(run)
    headers = {} if run["kwargs"]["temporary"] else _run_headers(run, "/join")
    return JSONResponse(outcome.output, headers=headers)


async def _stream(services: Services, thread_id: str | None, body: RunCreate) -> StreamingResponse:
    run = await services.runs.create(thread_id, body)
    # The run goes on when the client leaves unless it asked otherwise, as on the Platform.
    cancel_on_disconnect = body.on_disconnect == "cancel"

    async def on_disconnect() -> None:
        if cancel_on_disconnect:
            await services.runs.cancel_on_disconnect(run["thread_id"], run["run_id"])

    return sse_response(
        services.runs.events(run["thread_id"], run["run_id"], -1),
        on_disconnect=on_disconnect,
        headers={} if run["kwargs"]["temporary"] else _run_headers(run, "/stream"),
    )


# -- stateful -------------------------------------------------------------------------------
@router.post("/threads/{thread_id}/runs")
async def create_run(thread_id: str, body: RunCreate, services: ServicesDep) -> JSONResponse:
    run = await services.runs.create(thread_id, body)
    return JSONResponse(public_run(run), headers=_run_headers(run, ""))


@router.post("/threads/{thread_id}/runs/wait")
async def wait_run(thread_id: str, body: RunCreate, services: ServicesDep) -> JSONResponse:
    return await _wait(services, thread_id, body)


@router.post("/threads/{thread_id}/runs/stream")
async def stream_run(thread_id: str, body: RunCreate, services: ServicesDep) -> StreamingResponse:
    return await _stream(services, thread_id, body)


@router.get("/threads/{thread_id}/runs")
async def list_runs(
    thread_id: str,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    offset: Annotated[int, Query(ge=0, le=INT64_MAX)] = 0,
    status: RunStatus | None = None,
    select: Annotated[list[str] | None, Query()] = None,
) -> JSONResponse:
    runs = await services.runs.list_for_thread(thread_id, limit=limit, offset=offset, status=status)
    return JSONResponse(select_fields(runs, select))


@router.get("/threads/{thread_id}/runs/{run_id}")
async def get_run(thread_id: str, run_id: str, services: ServicesDep) -> JSONResponse:
    return JSONResponse(public_run(await services.runs.get(thread_id, run_id)))


@router.delete("/threads/{thread_id}/runs/{run_id}", status_code=204)
async def delete_run(thread_id: str, run_id: str, services: ServicesDep) -> Response:
    await services.runs.delete(thread_id, run_id)
    return Response(status_code=204)


@router.get("/threads/{thread_id}/runs/{run_id}/trace")
async def get_run_trace(thread_id: str, run_id: str, services: ServicesDep) -> JSONResponse:
    """What the run did inside: its nodes, model calls (model, latency, first token, tokens,
    prompt and reply) and tool calls (arguments, result, duration) as timed spans. An Open
    LangGraph addition (the Platform keeps traces in LangSmith)."""
    return JSONResponse(await services.runs.trace(thread_id, run_id))


@router.get("/threads/{thread_id}/runs/{run_id}/join")
async def join_run(thread_id: str, run_id: str, services: ServicesDep) -> JSONResponse:
    outcome = await services.runs.outcome(thread_id, run_id)
    return JSONResponse(outcome.output)


@router.get("/threads/{thread_id}/runs/{run_id}/stream")
async def join_run_stream(
    thread_id: str,
    run_id: str,
    services: ServicesDep,
    cancel_on_disconnect: bool = False,
    stream_mode: Annotated[list[str] | None, Query()] = None,
    last_event_id: Annotated[str | None, Header()] = None,
    after_event_id: str | None = None,
) -> StreamingResponse:
    await services.runs.get(thread_id, run_id)
    # As on LangGraph Platform: without Last-Event-ID only what happens from now on is sent;
    # `-1` replays the run from its first event.
    resume_after = _resume_point(last_event_id, after_event_id)
    after: int | None = None
    if resume_after is not None:
        try:
            after = parse_int64(resume_after)
        except ValueError:
            raise InvalidInput("Last-Event-ID must be an event id (an integer) or -1") from None
    events = services.runs.events(thread_id, run_id, after)
    modes = [mode for mode in stream_mode or () if mode]  # the SDK sends `stream_mode=` for none
    if modes:
        wanted = {"messages" if m == "messages-tuple" else m for m in modes} | {"metadata", "error"}
        events = _only_modes(events, wanted)

    async def on_disconnect() -> None:
        if cancel_on_disconnect:
            await services.runs.cancel_on_disconnect(thread_id, run_id)

    run = {"thread_id": thread_id, "run_id": run_id}
    return sse_response(events, on_disconnect=on_disconnect, headers=_run_headers(run, "/stream"))


def _resume_point(last_event_id: str | None, after_event_id: str | None) -> str | None:
    """Where a joining client resumes: the `Last-Event-ID` header, or the `after_event_id`
    query parameter for clients (browsers' EventSource on a fresh page) that cannot set it."""
    for value in (last_event_id, after_event_id):
        if value not in (None, ""):
            return value
    return None


async def _only_modes(
    events: AsyncIterator[StoredEvent], wanted: set[str]
) -> AsyncIterator[StoredEvent]:
    """Keep the events of the stream modes a joining client asked for."""
    async for event in events:
        # `messages|ns` and `messages/partial` both belong to the `messages` mode.
        if event.event.split("|", 1)[0].split("/", 1)[0] in wanted:
            yield event


@router.post("/threads/{thread_id}/runs/{run_id}/cancel")
async def cancel_run(
    thread_id: str,
    run_id: str,
    services: ServicesDep,
    wait: bool = False,
    action: CancelAction = "interrupt",
) -> Response:
    await services.runs.cancel(thread_id, run_id, action=action, wait=wait)
    if not wait:
        return Response(status_code=202)
    if action == "rollback":  # the run is gone with what it did
        return JSONResponse({})
    # As on the Platform: what joining the run now answers, the output it ended with.
    outcome = await services.runs.outcome(thread_id, run_id)
    run = {"thread_id": thread_id, "run_id": run_id}
    return JSONResponse(outcome.output, headers=_run_headers(run, "/join"))


@router.get("/threads/{thread_id}/stream")
async def join_thread_stream(
    thread_id: str,
    services: ServicesDep,
    stream_mode: Annotated[list[str] | None, Query()] = None,
    stream_modes: Annotated[list[str] | None, Query()] = None,
    last_event_id: Annotated[str | None, Header()] = None,
    after_event_id: str | None = None,
) -> StreamingResponse:
    """Every run on the thread as it happens; resumes after `Last-Event-ID` (or
    `after_event_id`) when given."""
    modes = parse_thread_stream_modes([*(stream_mode or ()), *(stream_modes or ())])
    events = await services.thread_streams.open(
        thread_id, last_event_id=_resume_point(last_event_id, after_event_id), modes=modes
    )
    return sse_response(events)


# -- stateless ------------------------------------------------------------------------------
@router.post("/runs")
async def create_stateless_run(body: RunCreate, services: ServicesDep) -> JSONResponse:
    run = await services.runs.create(None, body)
    return JSONResponse(public_run(run))


@router.post("/runs/wait")
async def wait_stateless_run(body: RunCreate, services: ServicesDep) -> JSONResponse:
    return await _wait(services, None, body)


@router.post("/runs/stream")
async def stream_stateless_run(body: RunCreate, services: ServicesDep) -> StreamingResponse:
    return await _stream(services, None, body)


@router.post("/runs/batch")
async def create_run_batch(body: RunBatch, services: ServicesDep) -> JSONResponse:
    runs = [await services.runs.create(None, payload) for payload in body]
    return JSONResponse([public_run(run) for run in runs])


@router.post("/runs/cancel", status_code=204)
async def cancel_runs(
    body: RunCancelMany, services: ServicesDep, action: CancelAction = "interrupt"
) -> Response:
    await services.runs.cancel_many(
        thread_id=body.thread_id, run_ids=body.run_ids, status=body.status, action=action
    )
    return Response(status_code=204)
