"""Shared type aliases of the WebShop environment.

Products and goals stay plain dicts with the original release's keys ("Title", "BulletPoints",
"goal_options", ...) so that catalogs and reference files from the original environment load
without a translation layer.
"""

from __future__ import annotations

from typing import Any, Literal

Product = dict[str, Any]
"""A processed product: the dict the original ``load_products`` builds."""

Goal = dict[str, Any]
"""A goal: asin, instruction_text, attributes, goal_options, price_upper, query, ..."""

GoalKind = Literal["synthetic", "human"]
ObservationMode = Literal["text_rich", "text"]
