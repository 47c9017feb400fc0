"""`checkpointer.ttl.sweep_limit`: one sweep deletes at most that many expired threads, the
rest go at the next sweeps (real SQLite storage)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from open_langgraph.config import ThreadTTLConfig
from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.services.thread_ttl import ThreadSweeper, timestamp
from open_langgraph.storage.sqlite import SqliteStorage


class _Idle:
    """A dispatcher with no run on any thread: every expired thread may be swept."""

    async def is_busy(self, thread_id: str) -> bool:
        return False


async def test_a_sweep_takes_at_most_sweep_limit_threads(tmp_path: Path) -> None:
    async with SqliteStorage.from_path(tmp_path / "olg.db") as storage:
        past = timestamp(datetime.now(UTC) - timedelta(minutes=1))
        threads = [str(uuid.uuid4()) for _ in range(5)]
        for thread_id in threads:
            await storage.create_thread(thread_id=thread_id, metadata={}, if_exists="raise")
            await storage.set_thread_ttl(thread_id, "delete", 1.0, past)
        dispatcher = cast(RunDispatcher, cast(Any, _Idle()))
        sweeper = ThreadSweeper(storage, dispatcher, ThreadTTLConfig(sweep_limit=2))
        assert [await sweeper.sweep() for _ in range(4)] == [2, 2, 1, 0]
        assert [await storage.get_thread(t) for t in threads] == [None] * 5
