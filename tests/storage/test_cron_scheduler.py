"""The cron scheduler on a controllable clock, over real storage (SQLite and PostgreSQL):
once per due time, in the cron's timezone, until its end time, across a restart, and with
two schedulers racing for the same due times."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from open_langgraph.services.cron_schedule import next_due
from open_langgraph.services.cron_scheduler import CronScheduler
from open_langgraph.storage.base import Storage, utc_now
from open_langgraph.storage.cron_base import CronStorage, timestamp
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.sqlite import SqliteStorage

T0 = datetime(2030, 1, 7, 11, 59, 30, tzinfo=UTC)  # a Monday, in winter


class Clock:
    """The time the scheduler sees, moved by the test."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def at(self, moment: datetime) -> Clock:
        self.now = moment
        return self


class Firings:
    """Records each firing (with the clock's time), as a run would be created."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.times: list[datetime] = []

    async def __call__(self, cron: dict[str, Any]) -> None:
        self.times.append(self.clock.now)


async def add_cron(
    crons: CronStorage,
    now: datetime,
    schedule: str = "* * * * *",
    *,
    timezone: str | None = None,
    end_time: datetime | None = None,
) -> str:
    cron_id = str(uuid.uuid4())
    created = utc_now()
    await crons.create_cron(
        {
            "cron_id": cron_id,
            "assistant_id": "a1",
            "thread_id": None,
            "on_run_completed": "delete",
            "end_time": None if end_time is None else timestamp(end_time),
            "schedule": schedule,
            "timezone": timezone,
            "created_at": created,
            "updated_at": created,
            "user_id": None,
            "payload": {},
            "next_run_date": timestamp(next_due(schedule, timezone, now)),
            "metadata": {},
            "enabled": True,
            "user": None,
        }
    )
    return cron_id


async def run_clock(
    scheduler: CronScheduler, clock: Clock, start: datetime, end: datetime, step: float
) -> None:
    """Tick every `step` seconds of the clock from `start` to `end`."""
    moment = start
    while moment <= end:
        clock.at(moment)
        await scheduler.tick()
        moment += timedelta(seconds=step)


def minute(n: int) -> datetime:
    """n minutes after noon, the first due time after T0."""
    return datetime(2030, 1, 7, 12, 0, tzinfo=UTC) + timedelta(minutes=n)


@contextlib.asynccontextmanager
async def reopened(
    storage: Storage, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[CronStorage]:
    """Another storage object over the same database: another process, or a restart."""
    if isinstance(storage, SqliteStorage):
        async with SqliteStorage.from_path(tmp_path / "olg.db") as other:
            yield other
        return
    async with PostgresStorage.from_url(request.getfixturevalue("postgres_url")) as other:
        yield other


@pytest.fixture
def crons(storage: Storage) -> CronStorage:
    assert isinstance(storage, CronStorage)
    return storage


async def test_a_one_minute_schedule_fires_once_a_minute(crons: CronStorage):
    clock = Clock(T0)
    fired = Firings(clock)
    await add_cron(crons, T0)
    scheduler = CronScheduler(crons, fired, clock=clock)
    await run_clock(scheduler, clock, T0, minute(5) + timedelta(seconds=7), step=7)
    assert len(fired.times) == 6  # 12:00 ... 12:05
    for n, at in enumerate(fired.times):
        assert minute(n) <= at < minute(n) + timedelta(seconds=7)


async def test_a_schedule_is_read_in_its_timezone(crons: CronStorage):
    # 09:00 in New York is 14:00 UTC in January (EST, UTC-5).
    clock = Clock(T0)
    fired = Firings(clock)
    await add_cron(crons, T0, "0 9 * * *", timezone="America/New_York")
    scheduler = CronScheduler(crons, fired, clock=clock)
    nine_ny = datetime(2030, 1, 7, 14, 0, tzinfo=UTC)
    for moment in (nine_ny - timedelta(hours=5), nine_ny - timedelta(seconds=1)):
        clock.at(moment)
        assert await scheduler.tick() == 0
    clock.at(nine_ny + timedelta(seconds=2))
    assert await scheduler.tick() == 1
    assert await scheduler.tick() == 0
    (cron,) = await crons.search_crons(
        assistant_id=None,
        thread_id=None,
        enabled=None,
        metadata=None,
        limit=1,
        offset=0,
        sort_by="created_at",
        sort_order="desc",
    )
    assert datetime.fromisoformat(cron["next_run_date"]) == nine_ny + timedelta(days=1)


async def test_a_cron_stops_at_its_end_time(crons: CronStorage):
    clock = Clock(T0)
    fired = Firings(clock)
    await add_cron(crons, T0, end_time=minute(2) + timedelta(seconds=30))
    scheduler = CronScheduler(crons, fired, clock=clock)
    await run_clock(scheduler, clock, T0, minute(6), step=10)
    assert [at.replace(second=0) for at in fired.times] == [minute(0), minute(1), minute(2)]


async def test_a_restart_between_two_firings_neither_misses_nor_doubles(
    storage: Storage, crons: CronStorage, request: pytest.FixtureRequest, tmp_path: Path
):
    clock = Clock(T0)
    fired = Firings(clock)
    await add_cron(crons, T0)
    before = CronScheduler(crons, fired, clock=clock)
    await run_clock(before, clock, T0, minute(0) + timedelta(seconds=20), step=5)
    assert len(fired.times) == 1
    # The process stops at 12:00:20 and a new one starts on the same database.
    async with reopened(storage, request, tmp_path) as again:
        after = CronScheduler(again, fired, clock=clock)
        await run_clock(after, clock, minute(0) + timedelta(seconds=25), minute(1), step=5)
        assert len(fired.times) == 2  # 12:00 was not fired again; 12:01 was
        # Down from 12:01:30 to 12:04:30: one firing for the missed times, then on schedule.
        await run_clock(after, clock, minute(4) + timedelta(seconds=30), minute(5), step=10)
    assert fired.times[2:] == [minute(4) + timedelta(seconds=30), minute(5)]


async def test_two_schedulers_racing_fire_each_due_time_once(
    storage: Storage, crons: CronStorage, request: pytest.FixtureRequest, tmp_path: Path
):
    clock = Clock(T0)
    fired = Firings(clock)
    for _ in range(5):
        await add_cron(crons, T0)
    async with reopened(storage, request, tmp_path) as other:
        schedulers = [
            CronScheduler(crons, fired, clock=clock),
            CronScheduler(other, fired, clock=clock),
        ]
        for moment in (minute(0), minute(0) + timedelta(seconds=2), minute(1), minute(2)):
            clock.at(moment)
            counts = await asyncio.gather(*(s.tick() for s in schedulers for _ in range(3)))
            assert sum(counts) == (5 if moment.second == 0 else 0), moment
    assert len(fired.times) == 15
