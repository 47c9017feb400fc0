"""Crons in SQLite: the shared queries (`storage/_crons.py`) on the saver's connection."""

from __future__ import annotations

from open_langgraph.storage._crons import CronQueries
from open_langgraph.storage.sqlite._db import SqliteBase


class CronsMixin(CronQueries, SqliteBase):
    pass
