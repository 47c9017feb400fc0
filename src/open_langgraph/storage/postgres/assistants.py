"""Assistants and their versions in PostgreSQL: the shared queries (`storage/_assistants.py`)."""

from __future__ import annotations

from open_langgraph.storage._assistants import AssistantQueries
from open_langgraph.storage.postgres._db import PostgresBase


class AssistantsMixin(AssistantQueries, PostgresBase):
    """Nothing of assistants is PostgreSQL-specific beyond the dialect."""
