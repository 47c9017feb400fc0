"""`/v1/embeddings` on the local embedding model (all-MiniLM-L6-v2, the `embeddings-local`
extra; without it a 503 names the extra).

Accepted names: `all-minilm-l6-v2` (also `local:`/`local/`-prefixed), and OpenAI's
`text-embedding-*`, so a project's `openai:text-embedding-3-small` store index reaches it.
Vectors have the local model's size (384): a `dimensions` asking for another is a 400.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import threading
import time
from typing import Any

from open_langgraph.extras import needs_extra
from open_langgraph.importing import one_line
from open_langgraph.models_config import local_name
from open_langgraph.observability import metrics
from open_langgraph.services.openai_models import OpenAIError
from open_langgraph.services.openai_types import EmbeddingRequest
from open_langgraph.store_embeddings import LOCAL_MODELS, LocalEmbeddings, load_local_embeddings

_METRICS = metrics.enabled()


def resolve_embedding_model(name: str) -> str:
    """The local embedding model a request names.

    Raises:
        OpenAIError: 404 for any other name.
    """
    target = local_name(name)
    if target in LOCAL_MODELS:
        return target
    if name.startswith("text-embedding-"):
        return next(iter(LOCAL_MODELS))
    known = ", ".join(LOCAL_MODELS)
    raise OpenAIError(
        404,
        f"The embedding model {name!r} does not exist here; the local one is {known} "
        "(OpenAI's text-embedding-* names reach it too)",
        code="model_not_found",
        param="model",
    )


class OpenAIEmbeddings:
    """Loads the embedding model on first use and encodes in a thread."""

    def __init__(self) -> None:
        self._models: dict[str, LocalEmbeddings] = {}
        self._load_lock = threading.Lock()

    def _load(self, name: str) -> LocalEmbeddings:
        with self._load_lock:
            if name not in self._models:
                try:
                    self._models[name] = load_local_embeddings(name)
                except ImportError as exc:
                    reason = needs_extra(f"the local embedding model {name}", "embeddings-local")
                    raise OpenAIError(
                        503,
                        f"{reason} (missing: {one_line(exc)})",
                        type="server_error",
                        code="model_unavailable",
                    ) from exc
            return self._models[name]

    async def embed(self, request: EmbeddingRequest) -> dict[str, Any]:
        """OpenAI's `list` of `embedding` objects, with the token-free usage OpenAI reports."""
        name = resolve_embedding_model(request.model)
        dims = LOCAL_MODELS[name][1]
        if request.dimensions is not None and request.dimensions != dims:
            raise OpenAIError(400, f"{name} makes {dims}-dimensional vectors", param="dimensions")
        texts = [request.input] if isinstance(request.input, str) else list(request.input)
        started = time.monotonic()
        model = await asyncio.to_thread(self._load, name)
        vectors = await model.aembed_documents(texts)
        if _METRICS:
            metrics.OPENAI_MODEL_SECONDS.labels(name).observe(time.monotonic() - started)
        data = [
            {"object": "embedding", "index": i, "embedding": _encode(v, request.encoding_format)}
            for i, v in enumerate(vectors)
        ]
        words = sum(len(text.split()) for text in texts)  # no tokenizer here: an estimate
        return {
            "object": "list",
            "data": data,
            "model": name,
            "usage": {"prompt_tokens": words, "total_tokens": words},
        }


def _encode(vector: list[float], encoding: str) -> list[float] | str:
    if encoding == "float":
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
