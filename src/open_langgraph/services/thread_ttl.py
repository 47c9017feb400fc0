"""Thread time-to-live: a thread given a TTL is swept when it expires, as on LangGraph Platform.

A TTL counts from when it is set (on create or patch); sweeping `delete`s the thread with its
runs and checkpoints, or (`keep_latest`) prunes it to its latest checkpoint and sets the TTL
again, so an unused thread keeps only its current state. A thread busy with a run is left for
the next sweep.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from open_langgraph.config import ThreadTTLConfig
from open_langgraph.errors import InvalidInput
from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.runtime.periodic import Periodic
from open_langgraph.storage.base import Storage, TTLStrategy

logger = logging.getLogger(__name__)

#: A TTL longer than this (about a thousand years) is refused rather than overflowing a date.
MAX_TTL_MINUTES = 525_600_000


def timestamp(moment: datetime) -> str:
    """Fixed-width UTC timestamps, so that comparing the strings compares the times."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True, slots=True)
class ThreadTTL:
    strategy: TTLStrategy
    minutes: float

    @property
    def expires_at(self) -> str:
        return timestamp(datetime.now(UTC) + timedelta(minutes=self.minutes))

    def as_json(self) -> dict[str, object]:
        return {"strategy": self.strategy, "ttl_minutes": self.minutes}


def requested_ttl(
    value: dict[str, object] | float | None, defaults: ThreadTTLConfig
) -> ThreadTTL | None:
    """The TTL a create or patch asks for (minutes, or `{"ttl", "strategy"}`), else the
    config's `default_ttl`."""
    if value is None:
        if defaults.default_ttl is None:
            return None
        return ThreadTTL(defaults.strategy, defaults.default_ttl)
    if isinstance(value, dict):
        minutes = value.get("ttl", defaults.default_ttl)
        strategy = value.get("strategy") or defaults.strategy
    else:
        minutes, strategy = value, defaults.strategy
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise InvalidInput("ttl.ttl: give the time-to-live in minutes")
    if not 0 < minutes <= MAX_TTL_MINUTES:
        raise InvalidInput(f"ttl.ttl must be more than 0 and at most {MAX_TTL_MINUTES} minutes")
    if strategy not in ("delete", "keep_latest"):
        raise InvalidInput('ttl.strategy must be "delete" or "keep_latest"')
    return ThreadTTL(strategy, float(minutes))  # type: ignore[arg-type]


async def arm(storage: Storage, thread_id: str, ttl: ThreadTTL | None) -> None:
    """Start (or restart) the thread's TTL; nothing when there is none."""
    if ttl is not None:
        await storage.set_thread_ttl(thread_id, ttl.strategy, ttl.minutes, ttl.expires_at)


class ThreadSweeper:
    """Sweeps expired threads every `sweep_interval_minutes` while the server runs."""

    def __init__(self, storage: Storage, runs: RunDispatcher, config: ThreadTTLConfig) -> None:
        self._storage = storage
        self._runs = runs
        self._limit = config.sweep_limit
        self._periodic = Periodic("thread sweep", config.sweep_interval_minutes * 60, self.sweep)

    async def sweep(self) -> int:
        """Sweep the threads due now, at most `checkpointer.ttl.sweep_limit` of them (the
        rest wait for the next sweep); returns how many were swept."""
        swept = 0
        due = await self._storage.due_thread_ttls(timestamp(datetime.now(UTC)), self._limit)
        for thread_id, strategy in due:
            if await self._runs.is_busy(thread_id):
                continue
            if strategy == "delete":
                await self._storage.prune_threads([thread_id], "delete")
            else:
                current = await self._storage.get_thread_ttl(thread_id)
                await self._storage.prune_threads([thread_id], "keep_latest")
                if current is not None:
                    await arm(self._storage, thread_id, ThreadTTL(strategy, current["ttl_minutes"]))
            swept += 1
        if swept:
            logger.info("swept %d expired threads", swept)
        return swept

    def start(self) -> None:
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()
