"""What each LASER state shows the model, read from the environment's page model.

The prompts use compact views (ids, titles, prices, options) rather than the raw observation,
so a page fits a small model's context; the raw observation still goes into the state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.envs.webshop.pages import BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE, Page

TITLE_CHARS = 110
SUBPAGE_CHARS = 700
_PRICE = re.compile(r"\$?\s*([0-9][0-9,]*(?:\.[0-9]+)?)")
_RESULT_HEADER = re.compile(r"Page (\d+) \(Total results: (\d+)\)")


@dataclass
class ResultItem:
    item_id: str
    title: str
    price: str
    visited: bool


@dataclass
class ResultsView:
    page: int = 1
    total: int = 0
    items: list[ResultItem] = field(default_factory=list)
    has_next: bool = False


@dataclass
class ItemView:
    item_id: str
    title: str
    price: str
    rating: str
    options: dict[str, list[str]] = field(default_factory=dict)
    """Option type (as the page names it) -> the values offered, in page order."""
    chosen: dict[str, str] = field(default_factory=dict)


def current_page(env: WebShopEnv) -> Page:
    return env.session.page


def results_view(page: Page) -> ResultsView:
    view = ResultsView()
    segments = page.segments
    for i, seg in enumerate(segments):
        header = _RESULT_HEADER.fullmatch(seg.text) if seg.kind == "text" else None
        if header:
            view.page, view.total = int(header.group(1)), int(header.group(2))
        elif seg.kind == "button" and seg.text == NEXT_PAGE:
            view.has_next = True
        elif seg.kind == "product":
            title = segments[i + 1].text if i + 1 < len(segments) else ""
            price = segments[i + 2].text if i + 2 < len(segments) else ""
            view.items.append(ResultItem(seg.text, title, price, seg.clicked))
    return view


def item_view(env: WebShopEnv) -> ItemView:
    session = env.session
    asin = str(session.asin)
    product = env.catalog.by_asin[asin]
    options: dict[str, list[str]] = {}
    for seg in session.page.segments:
        if seg.kind == "option" and seg.group is not None:
            options.setdefault(seg.group, []).append(seg.text)
    return ItemView(
        item_id=asin,
        title=product["Title"],
        price=str(product["Price"]),
        rating=str(product.get("Rating", "")),
        options=options,
        chosen=dict(session.options),
    )


def subpage_text(page: Page) -> str:
    """The body of a Description/Features/Reviews page (what follows its ``< Prev`` button)."""
    body: list[str] = []
    started = False
    for seg in page.segments:
        if started:
            body.append(seg.text.strip())
        elif seg.kind == "button" and seg.text == PREV_PAGE:
            started = True
    return clip(" ".join(t for t in body if t), SUBPAGE_CHARS)


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def parse_price(text: str | None) -> float | None:
    """The lowest dollar amount in a price text ("$10.99 to $15.99" -> 10.99)."""
    if not text:
        return None
    values = [float(m.group(1).replace(",", "")) for m in _PRICE.finditer(text)]
    return min(values) if values else None


RESULT_CHOICES = 3
"""How many results of a page the Result state may open next: the first ones not opened yet.

The search ranks better than the 1.5B model picks: on synthetic goals 0-8 of the 1k catalog,
with the target ranked first four times, the model opened the results ranked 4, 10, 4 and 8
in four episodes (issue 18). A short window in rank order keeps the choice, and its thought,
where the ranking is good, and halves the results prompt."""


def result_choices(
    view: ResultsView, opened: set[str] | frozenset[str] = frozenset(), limit: int = RESULT_CHOICES
) -> list[ResultItem]:
    """The first ``limit`` results of the page in rank order that were not opened yet (clicked
    on the page, or in ``opened``); every result when all were, so one can be reopened."""
    fresh = [i for i in view.items if not i.visited and i.item_id not in opened]
    return (fresh or view.items)[:limit]


def render_results(view: ResultsView, choices: list[ResultItem] | None = None) -> str:
    """The page's results the model may open (``choices``; all when None), in rank order."""
    shown = view.items if choices is None else choices
    lines = [f"Results page {view.page} ({view.total} results in total):"]
    for item in shown:
        seen = " (already opened)" if item.visited else ""
        lines.append(f"- {item.item_id}: {clip(item.title, TITLE_CHARS)} | {item.price}{seen}")
    if len(shown) < len(view.items):
        lines.append(
            f"These are the best-ranked results not opened yet ({len(shown)} of "
            f"{len(view.items)} on this page)."
        )
    lines.append("A next page exists." if view.has_next else "This is the last page.")
    return "\n".join(lines)


def render_item(view: ItemView, last_subpage: str = "") -> str:
    lines = [f"Item {view.item_id}: {view.title}", f"Price: {view.price}"]
    if view.rating:
        lines.append(f"Rating: {view.rating}")
    for name, values in view.options.items():
        lines.append(f"Options for {name}: {', '.join(values)}")
    if not view.options:
        lines.append("This item has no options to choose.")
    if last_subpage:
        lines.append(last_subpage)
    return "\n".join(lines)


__all__ = [
    "BACK_TO_SEARCH",
    "NEXT_PAGE",
    "PREV_PAGE",
    "ItemView",
    "ResultItem",
    "ResultsView",
    "clip",
    "current_page",
    "item_view",
    "parse_price",
    "render_item",
    "render_results",
    "results_view",
    "subpage_text",
]
