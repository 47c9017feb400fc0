"""`GET /ok?check_db=1`: whether this process can serve now, for a readiness probe.

`GET /ok` alone says only that the process answers (a liveness probe: restart it when it does
not). With `check_db=1`, as on LangGraph Platform, the process also asks what it depends on:
its database (`SELECT 1` on a pooled connection, so a pool that cannot hand one out counts as
down) and, in queue mode, Redis (`PING`). Each check gets `CHECK_TIMEOUT_SECONDS`, all run at
once, so the answer comes within that time whatever hangs. The answer is 200
`{"ok": true, "services": {...}}`, or 503 with `detail` naming what did not answer. The
reason (the driver's message) is logged instead, once when a dependency stops answering and
once when it is back, not at every probe; it is not sent, since `/ok` needs no credentials.

Served by the API (`server/routes/meta.py`) and by a worker's metrics port
(`observability/metrics_server.py`), both without authentication, like `/ok`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from open_langgraph.server.responses import JSONResponse

if TYPE_CHECKING:
    from open_langgraph.runtime.bus import EventBus
    from open_langgraph.storage.base import Storage

logger = logging.getLogger(__name__)

#: Seconds each dependency gets to answer (LangGraph Platform's `/ok` allows the same).
CHECK_TIMEOUT_SECONDS = 3.0


@dataclass(frozen=True, slots=True)
class Check:
    #: The key in the answer's `services` (`database`, `redis`).
    service: str
    #: What the detail calls it (`PostgreSQL`, `SQLite`, `Redis`).
    label: str
    ping: Callable[[], Awaitable[Any]]


@dataclass(slots=True)
class Readiness:
    """The checks of one process; empty until its storage is open (then: not ready)."""

    checks: list[Check] = field(default_factory=list)
    #: The services whose failure was logged and whose recovery was not yet.
    _down: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, storage: Storage, bus: EventBus | None) -> Readiness:
        """The database's check, and Redis's when the process has a bus (queue mode)."""
        checks = [Check("database", storage.engine_name, storage.ping)]
        if bus is not None:
            checks.append(Check("redis", "Redis", bus.ping))
        return cls(checks)

    def use(self, other: Readiness) -> None:
        """Take `other`'s checks (a worker's port starts before its storage opens)."""
        self.checks = list(other.checks)

    async def problems(self) -> dict[str, str]:
        """`{service: what is wrong}` for each check that failed; empty when ready."""
        if not self.checks:
            return {"process": "still starting"}
        outcomes = await asyncio.gather(*(_run(check) for check in self.checks))
        problems: dict[str, str] = {}
        for check, (problem, reason) in zip(self.checks, outcomes, strict=True):
            if problem is None:
                if check.service in self._down:
                    self._down.discard(check.service)
                    logger.info("readiness: %s answers again", check.label)
                continue
            problems[check.service] = problem
            if check.service not in self._down:
                self._down.add(check.service)
                logger.warning("readiness: %s: %s (not ready until it answers)", problem, reason)
        return problems

    async def response(self) -> JSONResponse:
        problems = await self.problems()
        services = {
            check.service: "unhealthy" if check.service in problems else "healthy"
            for check in self.checks
        }
        if not problems:
            return JSONResponse({"ok": True, "services": services})
        detail = "not ready: " + "; ".join(problems.values())
        return JSONResponse({"ok": False, "services": services, "detail": detail}, 503)


async def _run(check: Check) -> tuple[str | None, str]:
    """(None, "") when `check` answered in time, else one phrase naming what did not, and
    the reason for the log."""
    try:
        await asyncio.wait_for(check.ping(), CHECK_TIMEOUT_SECONDS)
    except TimeoutError:
        return f"{check.label} did not answer within {CHECK_TIMEOUT_SECONDS:g} s", "timed out"
    except Exception as exc:  # any failure of a dependency means "not ready", never a 500
        reason = f"{type(exc).__name__}: {exc}".strip()
        return f"{check.label} is unreachable ({type(exc).__name__})", reason
    return None, ""
