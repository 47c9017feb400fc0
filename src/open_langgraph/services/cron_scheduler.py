"""The cron scheduler: fires each due cron once per due time, from any number of processes.

Every `poll_seconds` it reads the enabled crons whose `next_run_date` has come and, for
each, claims the firing by moving `next_run_date` on to the schedule's next time after now
(`CronStorage.advance_cron`, a compare-and-set): only the process whose update changed the
row fires, so several servers on one PostgreSQL database fire a due time once between them.
Because the claim is stored before the run is made, a restart neither repeats a firing
(the stored date has moved on) nor skips one (a date not yet claimed is still due).

Firings missed while no server ran are not made up one by one: the first round after the
start fires once for the latest missed time and counts on from now, as LangGraph Platform
does. A process that dies between the claim and creating the run loses that one firing
(at most once, never twice).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from open_langgraph.errors import InvalidInput
from open_langgraph.runtime.periodic import Periodic
from open_langgraph.services.cron_schedule import next_due
from open_langgraph.storage.cron_base import CronStorage, timestamp

logger = logging.getLogger(__name__)

#: How often the scheduler looks for due crons (`OLG_CRON_POLL_SECONDS` overrides it): a
#: run starts at most this late after its due time.
DEFAULT_POLL_SECONDS = 5.0
_BATCH = 100

Fire = Callable[[dict[str, Any]], Awaitable[object]]


def poll_seconds_from_env() -> float:
    """`OLG_CRON_POLL_SECONDS`, checked at start-up (a positive number of seconds)."""
    raw = os.environ.get("OLG_CRON_POLL_SECONDS", "").strip()
    if not raw:
        return DEFAULT_POLL_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 3600:
        raise ValueError(f"OLG_CRON_POLL_SECONDS must be seconds in (0, 3600], not {raw!r}")
    return seconds


class CronScheduler:
    """Fires due crons while the server runs; `tick` is one round, for tests to drive with
    their own clock."""

    def __init__(
        self,
        crons: CronStorage,
        fire: Fire,
        *,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        batch: int = _BATCH,
    ) -> None:
        self._crons = crons
        self._fire = fire
        self._clock = clock
        self._batch = batch
        self._periodic = Periodic("cron scheduler", poll_seconds, self.tick)

    async def tick(self) -> int:
        """Fire every cron due now that no other scheduler claimed first; returns how many
        this one fired."""
        now = self._clock()
        fired = 0
        for cron in await self._crons.due_crons(timestamp(now), self._batch):
            try:
                following = next_due(cron["schedule"], cron["timezone"], now)
            except InvalidInput as exc:  # a zone this machine's tz database lacks
                logger.warning("cron %s cannot be scheduled: %s", cron["cron_id"], exc.detail)
                continue
            claimed = await self._crons.advance_cron(
                cron["cron_id"], cron["next_run_date"], timestamp(following)
            )
            if claimed:
                await self._fire(cron)
                fired += 1
        if fired:
            logger.info("cron scheduler fired %d crons", fired)
        return fired

    def start(self) -> None:
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()
