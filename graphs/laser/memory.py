"""LASER's memory buffer: the items the agent opened, kept for a backup purchase.

An item is recorded when it is opened and merged by ``item_id`` as more is learned (features,
reviews, a rationale, a score). The buffer is capped; when full, the lowest-scored item goes
first, then the least recently seen. When the step budget runs out, the backup picks the item
with the best score, else the best price-and-keyword match, else the most recent one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from graphs.laser.state import Candidate
from graphs.laser.views import parse_price

DEFAULT_CAPACITY = 30
_SCORE = re.compile(r"match\s*score\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(?:/\s*10)?", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be for from i in is it looking me my need of on or price than the "
        "to want with dollars lower less under",
    )
)


def parse_score(thought: str) -> float | None:
    """The 'Match score: N/10' a rationale ends with, clamped to 0..10, or None."""
    matches = _SCORE.findall(thought or "")
    if not matches:
        return None
    return max(0.0, min(10.0, float(matches[-1])))


def merge(old: Candidate, new: Mapping[str, Any], step: int, seen: bool) -> Candidate:
    """``old`` updated by ``new``: non-empty fields overwrite, actions are appended without
    duplicates, ``last_seen_step`` moves to ``step`` and ``times_seen`` counts openings."""
    merged: Candidate = dict(old)  # type: ignore[assignment]
    for key, value in new.items():
        if key in ("actions_taken", "times_seen", "last_seen_step"):
            continue
        if value is None or value == "":
            continue
        merged[key] = value  # type: ignore[literal-required]
    actions = list(old.get("actions_taken") or [])
    for action in new.get("actions_taken") or []:
        if action not in actions:
            actions.append(action)
    merged["actions_taken"] = actions
    merged["last_seen_step"] = step
    merged["times_seen"] = int(old.get("times_seen") or 0) + (1 if seen else 0)
    return merged


def _eviction_key(c: Candidate) -> tuple[float, int]:
    score = c.get("score")
    return (float("-inf") if score is None else float(score), int(c.get("last_seen_step") or 0))


def remember(
    memory: Iterable[Candidate],
    update: Mapping[str, Any],
    step: int,
    *,
    seen: bool = False,
    capacity: int = DEFAULT_CAPACITY,
) -> list[Candidate]:
    """A new buffer with ``update`` recorded or merged into its item.

    Args:
        seen: the item was opened now (counts in ``times_seen``).
        capacity: the cap; beyond it the lowest score, then the oldest sighting, is evicted.
    """
    if capacity < 1:
        raise ValueError("memory capacity must be at least 1")
    buffer = [dict(c) for c in memory]
    item_id = update["item_id"]
    index = next((i for i, c in enumerate(buffer) if c["item_id"] == item_id), None)
    if index is None:
        fresh: Candidate = {"item_id": item_id, "actions_taken": [], "times_seen": 0}
        buffer.append(merge(fresh, update, step, seen))
    else:
        buffer[index] = merge(buffer[index], update, step, seen)  # type: ignore[arg-type]
    while len(buffer) > capacity:
        buffer.remove(min(buffer, key=_eviction_key))  # type: ignore[arg-type]
    return buffer  # type: ignore[return-value]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def keyword_match(instruction: str, candidate: Candidate) -> float:
    """Share of the instruction's content words found in the item's title and summaries."""
    wanted = _words(instruction)
    if not wanted:
        return 0.0
    text = " ".join(
        str(candidate.get(k) or "") for k in ("title", "features_summary", "snapshot_excerpt")
    )
    return len(wanted & _words(text)) / len(wanted)


def within_price(candidate: Candidate, max_price: float | None) -> bool:
    price = parse_price(candidate.get("price"))
    return max_price is None or (price is not None and price <= max_price)


def choose_backup(
    memory: list[Candidate], instruction: str, max_price: float | None
) -> tuple[Candidate | None, str]:
    """The item to buy when the budget is spent, and which rule chose it.

    Returns:
        (candidate, rule) with rule "score", "match" or "recency"; (None, "empty") when the
        buffer is empty.
    """
    if not memory:
        return None, "empty"
    scored = [c for c in memory if c.get("score") is not None]
    if scored:
        return max(scored, key=_eviction_key), "score"

    def match(c: Candidate) -> float:
        return (1.0 if within_price(c, max_price) else 0.0) + keyword_match(instruction, c)

    best = max(memory, key=lambda c: (match(c), int(c.get("last_seen_step") or 0)))
    if match(best) > 0:
        return best, "match"
    return max(memory, key=lambda c: int(c.get("last_seen_step") or 0)), "recency"
