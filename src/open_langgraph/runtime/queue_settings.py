"""Queue mode's settings, importable without PostgreSQL or Redis installed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class QueueSettings:
    redis_url: str
    lease_seconds: float = 5.0
    """How long a run stays a silent worker's: a dead worker's runs resume elsewhere after
    at most this (plus one reaper pass, a third of it)."""
    max_attempts: int = 3
    """Attempts of a run whose workers keep dying before it ends `error` (`WorkerLost`)."""
    grace_seconds: float = 30.0
    """On SIGTERM, how long a worker lets its runs finish before handing them back."""
    poll_seconds: float = 1.0
    """How often waiting processes look in the database when the bus says nothing."""
