"""Crons in PostgreSQL: the shared queries (`storage/_crons.py`) on the pool."""

from __future__ import annotations

from open_langgraph.storage._crons import CronQueries
from open_langgraph.storage.postgres._db import PostgresBase


class CronsMixin(CronQueries, PostgresBase):
    pass
