"""Background work the server repeats on an interval while it runs (sweeps, pruning)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)


class Periodic:
    """Calls `work` every `interval_seconds` from `start` until `stop`.

    A failing round is logged and tried again at the next interval: a sweep that hits a
    locked database must not end the sweeping for the life of the server.
    """

    def __init__(
        self, name: str, interval_seconds: float, work: Callable[[], Awaitable[object]]
    ) -> None:
        self._name = name
        self._interval = interval_seconds
        self._work = work
        self._task: asyncio.Task[None] | None = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                await self._work()
            except Exception:
                logger.exception("%s failed; trying again in %g s", self._name, self._interval)

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=f"olg-{self._name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
