"""What both backends' stores share: the TTL sweeper's life, the error of a store that
cannot open."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Protocol


class StoreUnavailable(RuntimeError):
    """The store cannot be opened as configured: semantic search without vector support in
    the database (sqlite-vec not loadable, pgvector not installed)."""


#: How long closing waits for a sweep in progress.
_SWEEPER_STOP_SECONDS = 5.0


class _Sweeping(Protocol):
    ttl_config: object

    async def start_ttl_sweeper(self) -> object: ...

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool: ...


@contextlib.asynccontextmanager
async def swept(store: _Sweeping) -> AsyncIterator[None]:
    """Expired items deleted every `sweep_interval_minutes` while the block runs, when the
    store has a TTL config (LangGraph's stores implement the sweep; we own its lifetime)."""
    if not store.ttl_config:
        yield
        return
    await store.start_ttl_sweeper()
    try:
        yield
    finally:
        await store.stop_ttl_sweeper(timeout=_SWEEPER_STOP_SECONDS)
