"""LASER's graph state: plain JSON values only, so every step can be checkpointed and replayed.

The WebShop environment is not part of the state; nodes reach it through the run's context
(see ``context.py``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from typing_extensions import TypedDict

LaserStateName = Literal["Search", "Result", "Item", "Stopping"]


class Candidate(TypedDict, total=False):
    """One item in the memory buffer: what the agent learned about it, for a backup purchase."""

    item_id: str
    title: str
    price: str
    url: str
    page: int
    keywords: str
    snapshot_excerpt: str
    rationale: str
    features_summary: str
    reviews_summary: str
    actions_taken: list[str]
    source_state: str
    score: float | None
    last_seen_step: int
    times_seen: int


class LaserState(TypedDict, total=False):
    user_instruction: str
    obs: str
    """The environment's observation after the last action (text_rich)."""
    url: str
    current_laser_state: LaserStateName
    step_count: int
    """State transitions taken so far (each action, valid or not, is one)."""
    thought_history: Annotated[list[dict[str, Any]], operator.add]
    action_history: Annotated[list[dict[str, Any]], operator.add]
    memory_buffer: list[Candidate]
    item_config: dict[str, str]
    """Options chosen for the purchase, option name -> value."""
    route: str
    """Where the last node sends the run next: a LASER state name or "end"."""
    last_action: str
    selected_item: str | None
    info: dict[str, Any]
    """Episode facts: done, reward, reward_info, keywords, max_price, page, invalid_actions,
    backup_fired, last_subpage (the text of the last Description/Features/Reviews page)."""
