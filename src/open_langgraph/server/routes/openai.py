"""`/v1/chat/completions`, `/v1/models`, `/v1/embeddings`: OpenAI's API on the embedded models.

Any OpenAI client (the `openai` SDK, LangChain's `ChatOpenAI`, a project's own
`init_chat_model("openai:...")`) reaches the embedded models by pointing `OPENAI_BASE_URL` at
`http://<server>/v1`. Errors are in OpenAI's shape, `{"error": {"message", "type", "param",
"code"}}` (with the server's usual `detail` beside it), because that is what those clients
parse. Bodies are validated here rather than by FastAPI, whose 422 `detail` list OpenAI's
clients would not understand. With auth configured these routes are authenticated like every
other (server/auth.py): an OpenAI client sends its API key as `Authorization: Bearer ...`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from pydantic import BaseModel, ValidationError
from starlette.responses import Response, StreamingResponse

from open_langgraph.observability import metrics
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.services.openai_chat import ClientGone, OpenAIChat
from open_langgraph.services.openai_embeddings import OpenAIEmbeddings
from open_langgraph.services.openai_models import OpenAIError, model_list, model_not_found
from open_langgraph.services.openai_types import ChatCompletionRequest, EmbeddingRequest

router = IndexedRouter(prefix="/v1", tags=["OpenAI-compatible"])
_Body = TypeVar("_Body", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class OpenAIEndpoint:
    chat: OpenAIChat
    embeddings: OpenAIEmbeddings


def install(app: FastAPI, aliases: Mapping[str, str]) -> None:
    """Serve `/v1` on `app` with the config's model aliases."""
    app.state.openai = OpenAIEndpoint(OpenAIChat(aliases), OpenAIEmbeddings())
    app.add_exception_handler(OpenAIError, _error_response)  # type: ignore[arg-type]
    app.include_router(router)


async def _error_response(request: Request, exc: OpenAIError) -> JSONResponse:
    _count(request, "error" if exc.status >= 500 else exc.type)
    return JSONResponse(
        {
            "error": {
                "message": exc.message,
                "type": exc.type,
                "param": exc.param,
                "code": exc.code,
            },
            "detail": exc.message,
        },
        status_code=exc.status,
    )


def _count(request: Request, outcome: str) -> None:
    if metrics.enabled():
        endpoint = request.url.path.removeprefix("/v1/")
        model = getattr(request.state, "openai_model", "unknown")
        metrics.OPENAI_REQUESTS.labels(endpoint, model, outcome).inc()


async def _read(request: Request, kind: type[_Body]) -> _Body:
    try:
        data = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise OpenAIError(400, "the request body is not valid JSON") from None
    try:
        return kind.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise OpenAIError(400, f"{where}: {first['msg']}", param=where) from None


def _endpoint(request: Request) -> OpenAIEndpoint:
    return request.app.state.openai


@router.post("/chat/completions", summary="Create Chat Completion")
async def chat_completions(request: Request) -> Response:
    """OpenAI's chat completions (streamed with `stream: true`), on an embedded model."""
    body = await _read(request, ChatCompletionRequest)
    chat = _endpoint(request).chat
    try:
        if not body.stream:
            answer = await chat.complete(body, request.is_disconnected)
            request.state.openai_model = answer["model"]
            _count(request, "ok")
            return JSONResponse(answer)
        chunks = await chat.stream(body, request.is_disconnected)
    except ClientGone:
        _count(request, "client_gone")
        return Response(status_code=499)  # nginx's "client closed request": nobody reads it
    _count(request, "ok")
    return StreamingResponse(_sse(chunks), media_type="text/event-stream")


async def _sse(chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
    """OpenAI's framing: one `data:` line per chunk, then `data: [DONE]`."""
    async for chunk in chunks:
        yield b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"
        if "error" in chunk:
            return
    yield b"data: [DONE]\n\n"


@router.get("/models", summary="List Models")
async def list_models(request: Request) -> JSONResponse:
    """The embedded models, then the config's aliases."""
    data = model_list(_endpoint(request).chat.aliases)
    return JSONResponse({"object": "list", "data": data})


@router.get("/models/{model:path}", summary="Retrieve Model")
async def retrieve_model(request: Request, model: str) -> JSONResponse:
    for entry in model_list(_endpoint(request).chat.aliases):
        if entry["id"] == model:
            return JSONResponse(entry)
    raise model_not_found(model)


@router.post("/embeddings", summary="Create Embeddings")
async def embeddings(request: Request) -> JSONResponse:
    """Vectors from the local embedding model (503 naming the extra when it is missing)."""
    body = await _read(request, EmbeddingRequest)
    answer = await _endpoint(request).embeddings.embed(body)
    request.state.openai_model = answer["model"]
    _count(request, "ok")
    return JSONResponse(answer)
