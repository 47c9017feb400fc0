"""One shopper's session: the original site's navigation rules, without HTTP.

Both the gym-style environment and the HTML site drive a ``ShopSession``: a search, or a click
on one of the current page's clickables, moves it to a new ``Page``. The rules follow the
original server, including its URL-based page detection and the reset of chosen options
whenever results are shown again.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from open_langgraph.envs.webshop import pages
from open_langgraph.envs.webshop.catalog import Catalog
from open_langgraph.envs.webshop.observations import clickables
from open_langgraph.envs.webshop.pages import Page, Segment
from open_langgraph.envs.webshop.reward import get_reward
from open_langgraph.envs.webshop.search import SearchIndex
from open_langgraph.envs.webshop.types import Goal, Product

BASE_URL = "http://127.0.0.1:3000"
SEARCH_RETURN_N = 50
_PAGE_NAMES = ("search_results", "item_page", "item_sub_page", "done")
_ACTION = re.compile(r"(.+)\[(.+)\]")


def parse_action(action: str) -> tuple[str, str | None]:
    """Split ``"click[Buy Now]"`` into ``("click", "Buy Now")``; no brackets -> (action, None)."""
    match = _ACTION.match(action)
    if match is None:
        return action, None
    return match.group(1), match.group(2)


@dataclass
class Shop:
    """What every session shares: the catalog, its index, its prices and attribute map."""

    catalog: Catalog
    index: SearchIndex
    prices: dict[str, float]
    rng: random.Random = field(default_factory=random.Random)
    show_attrs: bool = False
    attribute_to_asins: dict[str, set[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.attribute_to_asins = {}
        for p in self.catalog.products:
            for a in p.get("Attributes") or []:
                self.attribute_to_asins.setdefault(a, set()).add(p["asin"])

    def top_products(self, keywords: list[str]) -> list[Product]:
        """The original's result list: BM25 top 50, or a filter for its special keywords
        ``<r>`` (random 50), ``<a> attribute``, ``<c> category``, ``<q> query``."""
        products = self.catalog.products
        head = keywords[0] if keywords else ""
        if head == "<r>":
            return self.rng.sample(products, k=min(SEARCH_RETURN_N, len(products)))
        if head == "<a>":
            asins = self.attribute_to_asins.get(" ".join(keywords[1:]).strip(), set())
            return [p for p in products if p["asin"] in asins]
        if head == "<c>":
            category = keywords[1].strip() if len(keywords) > 1 else ""
            return [p for p in products if p["category"] == category]
        if head == "<q>":
            query = " ".join(keywords[1:]).strip()
            return [p for p in products if p["query"] == query]
        hits = self.index.search(" ".join(keywords), k=SEARCH_RETURN_N)
        by_asin = self.catalog.by_asin
        return [by_asin[asin] for asin, _ in hits if asin in by_asin]


def page_name(url: str | None) -> str | None:
    """Which page a URL shows, by the first page name it contains (the original's test)."""
    if url is None:
        return None
    return next((name for name in _PAGE_NAMES if name in url), "")


class ShopSession:
    """The navigation state of one session id, with its goal."""

    def __init__(self, shop: Shop, session_id: str, goal: Goal) -> None:
        self.shop = shop
        self.session_id = session_id
        self.goal = goal
        self.keywords: list[str] = []
        self.page_number = 1
        self.asin: str | None = None
        self.visited: set[str] = set()
        self.options: dict[str, str] = {}
        self.reward: float | None = None
        self.reward_info: dict[str, Any] | None = None
        self.page = self.start()

    @property
    def instruction(self) -> str:
        return str(self.goal["instruction_text"])

    def start(self) -> Page:
        """Back to the search page, forgetting keywords, product, visits and options."""
        self.keywords, self.page_number, self.asin = [], 1, None
        self.visited, self.options = set(), {}
        self.page = pages.search_page(f"{BASE_URL}/{self.session_id}", self.instruction)
        return self.page

    def search(self, query: str) -> Page:
        """Run a search (``query`` as typed, lower-cased by the caller) and show page one."""
        return self._results(query.split(" "), 1)

    def _results(self, keywords: list[str], page_number: int) -> Page:
        self.keywords, self.page_number = keywords, page_number
        self.asin, self.options = None, {}
        top = self.shop.top_products(keywords)
        start = (page_number - 1) * pages.PRODUCTS_PER_PAGE
        url = f"{BASE_URL}/search_results/{self.session_id}/{'+'.join(keywords)}/{page_number}"
        self.page = pages.results_page(
            url,
            self.instruction,
            top[start : start + pages.PRODUCTS_PER_PAGE],
            page_number,
            len(top),
            self.visited,
        )
        return self.page

    def _item(self, name: str, target: Segment) -> Page:
        if target.kind == "product":
            self.asin = name.upper()
            self.visited.add(self.asin)
        elif target.kind == "option" and target.group is not None:
            self.options[target.group.lower()] = name
        assert self.asin is not None, "an item page needs a product"
        url = (
            f"{BASE_URL}/item_page/{self.session_id}/{self.asin}/{'+'.join(self.keywords)}/"
            f"{self.page_number}/{json.dumps(self.options)}"
        )
        product = self.shop.catalog.by_asin[self.asin]
        self.page = pages.item_page(url, self.instruction, product, self.shop.show_attrs)
        return self.page

    def _sub(self, name: str) -> Page:
        which = next(s for s in pages.SUB_PAGES if s.lower() == name)
        url = (
            f"{BASE_URL}/item_sub_page/{self.session_id}/{self.asin}/{'+'.join(self.keywords)}/"
            f"{self.page_number}/{which}/{self.options}"
        )
        product = self.shop.catalog.by_asin[str(self.asin)]
        self.page = pages.sub_page(url, self.instruction, product, which)
        return self.page

    def _buy(self) -> Page:
        asin = str(self.asin)
        product = self.shop.catalog.by_asin[asin]
        price = self.shop.prices.get(asin, 100.0)
        self.reward, self.reward_info = get_reward(
            self.goal, product, self.options, price, verbose=True
        )
        url = f"{BASE_URL}/done/{self.session_id}/{asin}/{self.options}"
        self.page = pages.done_page(url, asin, self.options, self.reward)
        return self.page

    def click(self, name: str, target: Segment) -> bool:
        """Follow the clickable ``name`` (lower-cased) of the current page.

        Returns:
            True when this click bought the product (the episode's end).
        """
        current = page_name(self.page.url)
        if name == pages.BUY_NOW.lower():
            self._buy()
            return True
        if name == pages.BACK_TO_SEARCH.lower():
            self.start()
        elif name == pages.NEXT_PAGE.lower() and current == "search_results":
            self._results(self.keywords, self.page_number + 1)
        elif name == pages.PREV_PAGE.lower() and current == "search_results":
            self._results(self.keywords, self.page_number - 1)
        elif name == pages.PREV_PAGE.lower() and current == "item_sub_page":
            self._item(name, target)
        elif name == pages.PREV_PAGE.lower() and current == "item_page":
            self._results(self.keywords, self.page_number)
        elif name in (s.lower() for s in pages.SUB_PAGES):
            self._sub(name)
        else:
            self._item(name, target)
        return False

    def act(self, action: str) -> bool:
        """Apply ``search[keywords]`` or ``click[name]`` (case-insensitive argument).

        Anything else, a click on what the page does not offer, or a click on the search
        button itself changes nothing, as in the original.

        Returns:
            True when the action bought the product.
        """
        name, arg = parse_action(action)
        arg = arg.lower() if arg is not None else None
        if name == "search" and arg:
            self.search(arg)
            return False
        targets = clickables(self.page)
        if name == "click" and arg is not None and arg in targets and arg != "search":
            return self.click(arg, targets[arg])
        return False
