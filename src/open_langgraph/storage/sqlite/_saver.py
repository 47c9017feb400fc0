"""The official `AsyncSqliteSaver`, without the per-run signature cost (`storage/_saver.py`),
keeping a run's last checkpoint for the read at its end (`storage/_last_checkpoint.py`),
encrypting when `encryption.path` is configured (`storage/_encrypted_saver.py`), its writes
run straight on the inline connection (`_inline_writes.py`)."""

from __future__ import annotations

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from open_langgraph.storage._encrypted_saver import EncryptedCheckpoints
from open_langgraph.storage._last_checkpoint import RemembersLastCheckpoint
from open_langgraph.storage._saver import PrecomputedSignature
from open_langgraph.storage.sqlite._inline_writes import InlineWrites


class SqliteCheckpointer(
    PrecomputedSignature,
    RemembersLastCheckpoint,
    EncryptedCheckpoints,
    InlineWrites,
    AsyncSqliteSaver,
):
    pass
