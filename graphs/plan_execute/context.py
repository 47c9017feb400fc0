"""Per-run settings of the Plan-then-Execute agent (LangGraph runtime context)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_MAX_REPLANS = 2
"""Re-plans allowed per turn; the next failure after that ends at the Error Handler."""


@dataclass
class Context:
    """Send as the run's `context`, e.g. `{"model": "openai/gpt-4o-mini", "max_replans": 1}`."""

    model: str | None = None
    """A `provider/model` string (see docs/models.md); None means `$OLG_MODEL` or the default."""
    max_replans: int = DEFAULT_MAX_REPLANS
    max_tokens: int | None = None
    """Cap on each reply's tokens (None: the model's default). Structured replies of embedded
    models are still allowed the length their schema needs."""

    def __post_init__(self) -> None:
        """Refuse a bad context when the run starts, not as a type error halfway through."""
        if self.model is not None and (not isinstance(self.model, str) or not self.model.strip()):
            raise ValueError(f"context.model must be a model string, got {self.model!r}")
        if not _is_count(self.max_replans, minimum=0):
            raise ValueError(
                f"context.max_replans must be an integer >= 0, got {self.max_replans!r}"
            )
        if self.max_tokens is not None and not _is_count(self.max_tokens, minimum=1):
            raise ValueError(f"context.max_tokens must be an integer >= 1, got {self.max_tokens!r}")


def _is_count(value: object, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def korea_now() -> datetime:
    """Now in Asia/Seoul.

    Korea has kept UTC+9 without daylight saving since 1988, so a fixed offset is exact when the
    system has no time-zone database (slim containers without tzdata).
    """
    try:
        zone: timezone | ZoneInfo = ZoneInfo("Asia/Seoul")
    except ZoneInfoNotFoundError:
        zone = timezone(timedelta(hours=9), "KST")
    return datetime.now(zone)
