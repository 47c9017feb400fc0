"""Storing how a run ended, in spite of a storage that fails now and then.

The final write of a run (status, output, events, thread) used to be tried once; when it
failed, the waiting client still got the output, while the stored run stayed `running` and
its thread `busy` until a restart. A write is now tried a few times with short pauses (a
locked or momentarily full database often recovers); if it still fails, the run ends `error`
with a `StorageError` saying what was lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

logger = logging.getLogger(__name__)

# Pauses before the second and third attempts; three attempts in all.
RETRY_PAUSES = (0.1, 0.5)


async def retrying(what: str, write: Callable[[], Awaitable[None]]) -> None:
    """Run `write`; when it raises, run it again after a pause, raising the last failure.

    Every write retried here is one transaction or a series of idempotent ones, so running
    it again never stores anything twice.
    """
    for pause in RETRY_PAUSES:
        try:
            await write()
            return
        except Exception as exc:
            logger.warning("%s failed (%s: %s); trying again", what, type(exc).__name__, exc)
        await asyncio.sleep(pause)
    await write()


def storage_error(what: str, exc: BaseException, *, events_lost: int = 0) -> dict[str, Any]:
    """The error a run ends with when `what` (a phrase: "storing its outcome") failed."""
    message = f"the run ended, but {what} failed: {type(exc).__name__}: {exc}"
    if events_lost:
        message += f"; its {events_lost} stream events were not stored"
    return {"error": "StorageError", "message": message}
