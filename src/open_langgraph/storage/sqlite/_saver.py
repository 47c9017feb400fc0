"""The official `AsyncSqliteSaver`, without the per-run signature cost (`storage/_saver.py`),
encrypting when `encryption.path` is configured (`storage/_encrypted_saver.py`)."""

from __future__ import annotations

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from open_langgraph.storage._encrypted_saver import EncryptedCheckpoints
from open_langgraph.storage._saver import PrecomputedSignature


class SqliteCheckpointer(PrecomputedSignature, EncryptedCheckpoints, AsyncSqliteSaver):
    pass
