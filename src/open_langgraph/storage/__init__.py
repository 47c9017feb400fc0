"""Persistence behind one interface (`Storage`); SQLite is the embedded default."""

from open_langgraph.storage.base import Storage, StoredEvent

__all__ = ["Storage", "StoredEvent"]
