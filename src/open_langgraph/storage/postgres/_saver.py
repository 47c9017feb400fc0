"""The official `AsyncPostgresSaver`, without the per-run signature cost (`storage/_saver.py`)
and without its process-wide lock when it draws connections from a pool; encrypting when
`encryption.path` is configured (`storage/_encrypted_saver.py`)."""

from __future__ import annotations

import contextlib
from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg_pool import AsyncConnectionPool

from open_langgraph.storage._encrypted_saver import EncryptedCheckpoints
from open_langgraph.storage._saver import PrecomputedSignature


class PostgresCheckpointer(PrecomputedSignature, EncryptedCheckpoints, AsyncPostgresSaver):
    inlines_primitives = True

    def __init__(self, conn: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(conn, *args, **kwargs)
        if isinstance(conn, AsyncConnectionPool):
            # The saver holds `self.lock` around every call, which protects a single shared
            # connection; each call on a pool gets a connection of its own, so the lock only
            # queued every run's checkpoint writes in the process behind one another.
            self.lock = contextlib.nullcontext()  # type: ignore[assignment]
