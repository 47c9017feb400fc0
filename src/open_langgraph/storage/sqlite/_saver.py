"""The official `AsyncSqliteSaver`, without the per-run signature cost (`storage/_saver.py`)."""

from __future__ import annotations

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from open_langgraph.storage._saver import PrecomputedSignature


class SqliteCheckpointer(PrecomputedSignature, AsyncSqliteSaver):
    pass
