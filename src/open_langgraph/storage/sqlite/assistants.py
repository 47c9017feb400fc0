"""Assistants and their versions in SQLite: the shared queries (`storage/_assistants.py`)."""

from __future__ import annotations

from open_langgraph.storage._assistants import AssistantQueries
from open_langgraph.storage.sqlite._db import SqliteBase


class AssistantsMixin(AssistantQueries, SqliteBase):
    """Nothing of assistants is SQLite-specific beyond the dialect."""
