"""``WebShopEnv``: the WebShop text environment (Yao et al. 2022) as a gym-style object."""

from __future__ import annotations

import random
from typing import Any

from open_langgraph.envs.webshop.catalog import Catalog, load_catalog
from open_langgraph.envs.webshop.goals import build_goals
from open_langgraph.envs.webshop.observations import clickables, render
from open_langgraph.envs.webshop.search import SearchIndex
from open_langgraph.envs.webshop.session import Shop, ShopSession, parse_action
from open_langgraph.envs.webshop.types import Goal, GoalKind, ObservationMode

__all__ = ["WebShopEnv", "parse_action"]


class WebShopEnv:
    """Shop for the goal's product with ``search[...]`` and ``click[...]`` actions.

    Args:
        catalog: a loaded catalog, a path for :func:`load_catalog`, or None for the demo one.
        goals: "synthetic" (generated from product attributes) or "human" instructions.
        observation_mode: "text_rich" (marked-up buttons) or "text" (`` [SEP] ``-joined).
        seed: seeds prices, goal generation and the goal order as the original's 233 did.
        show_attrs: add the Attributes sub-page to item pages.

    Raises:
        ValueError: the catalog yields no goal of the requested kind.
    """

    def __init__(
        self,
        catalog: Catalog | str | None = None,
        goals: GoalKind = "synthetic",
        observation_mode: ObservationMode = "text_rich",
        seed: int = 233,
        show_attrs: bool = False,
    ) -> None:
        if not isinstance(catalog, Catalog):
            catalog = load_catalog(catalog)
        if observation_mode not in ("text_rich", "text"):
            raise ValueError(f"unsupported observation mode {observation_mode!r}")
        self.catalog = catalog
        self.observation_mode: ObservationMode = observation_mode
        self.goals, prices = build_goals(catalog.products, goals, seed)
        if not self.goals:
            raise ValueError(f"{catalog.source} has no {goals} goals")
        self._weights = [g["weight"] for g in self.goals]
        self.rng = random.Random(seed)
        index = SearchIndex(catalog.contents, [p["asin"] for p in catalog.products])
        self.shop = Shop(catalog, index, prices, self.rng, show_attrs)
        self._session: ShopSession | None = None

    @property
    def session(self) -> ShopSession:
        if self._session is None:
            raise RuntimeError("call reset() first")
        return self._session

    @property
    def goal(self) -> Goal:
        """The current episode's goal."""
        return self.session.goal

    @property
    def observation(self) -> str:
        return render(self.session.page, self.observation_mode)

    def draw_goal_index(self) -> int:
        """A goal index drawn by goal weight (rare attributes more often), as the original."""
        return self.rng.choices(range(len(self.goals)), weights=self._weights)[0]

    def reset(self, session: int | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode on goal ``session`` (an index into the shuffled goal list), or on
        a goal drawn by weight when None.

        Returns:
            The search page observation, and info with the goal and its index.
        """
        index = self.draw_goal_index() if session is None else session
        self._session = ShopSession(self.shop, str(index), self.goals[index])
        return self.observation, {"goal": self.goal, "session": index}

    def step(self, action: str) -> tuple[str, float, bool, dict[str, Any]]:
        """Take ``search[keywords]`` or ``click[name]``; anything else, or a click on what the
        page does not offer, changes nothing and earns 0.

        Returns:
            (observation, reward, done, info); on purchase, info["reward_info"] holds the
            reward breakdown.
        """
        session = self.session
        done = session.act(action)
        info: dict[str, Any] = {}
        reward = float(session.reward or 0.0) if done else 0.0
        if done:
            info["reward_info"] = session.reward_info
        return self.observation, reward, done, info

    def get_available_actions(self) -> dict[str, Any]:
        """``{"has_search_bar": bool, "clickables": [names]}`` for the current page."""
        page = self.session.page
        return {
            "has_search_bar": page.kind == "search",
            "clickables": list(clickables(page)),
        }

    def search(self, query: str, k: int = 50) -> list[tuple[str, float]]:
        """BM25 search of the catalog: [(asin, score)], best first."""
        return self.shop.index.search(query, k)
