"""Stored run events are deleted `limits.event_retention_days` after their run ended.

Events are what a client replays with `Last-Event-ID`; the run record (status, output, error)
and the thread's checkpoints are what a run leaves behind for good, and they stay. Without
this sweep the event table of a busy server only grows. After the sweep, joining such a run
still answers: `/join` from the run record, its stream with nothing to replay.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

from open_langgraph.config import LimitsConfig
from open_langgraph.runtime.periodic import Periodic
from open_langgraph.services.thread_ttl import timestamp
from open_langgraph.storage.base import Storage

logger = logging.getLogger(__name__)

#: Runs whose events one transaction deletes, so a large backlog never holds the database.
_BATCH = 200


class EventSweeper:
    """Deletes old run events every `event_sweep_interval_minutes` while the server runs."""

    def __init__(self, storage: Storage, limits: LimitsConfig) -> None:
        self._storage = storage
        self._retention_days = limits.event_retention_days
        self._periodic = Periodic(
            "event sweep", limits.event_sweep_interval_minutes * 60, self.sweep
        )

    async def sweep(self, now: datetime | None = None) -> int:
        """Delete the events of every run that ended a retention period before `now`;
        returns how many runs lost their events."""
        if self._retention_days is None:
            return 0
        try:
            moment = now or datetime.now(UTC)
            cutoff = timestamp(moment - timedelta(days=self._retention_days))
        except OverflowError:  # a retention longer than the calendar keeps everything
            return 0
        pruned = 0
        while True:
            count = await self._storage.delete_run_events_before(cutoff, _BATCH)
            pruned += count
            if count < _BATCH:
                break
            await asyncio.sleep(0)  # let requests in between batches
        if pruned:
            logger.info("deleted the stored events of %d runs older than the retention", pruned)
        return pruned

    def start(self) -> None:
        if self._retention_days is not None:
            self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()
