"""The site's pages as sequences of visible text segments.

The original rendered Flask templates to HTML and turned the HTML back into text observations
with BeautifulSoup. We build the visible text nodes directly, in document order, each tagged
with what it is (plain text, a button, an option label, a product link); the text observations
and the HTML site are both rendered from this one model, so they cannot drift apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from open_langgraph.envs.webshop.types import Product

SegmentKind = Literal["text", "button", "option", "product"]
PageKind = Literal["search", "results", "item", "sub", "done"]

PRODUCTS_PER_PAGE = 10
SUB_PAGES = ("Description", "Features", "Reviews", "Attributes")
BUY_NOW = "Buy Now"
NEXT_PAGE = "Next >"
PREV_PAGE = "< Prev"
BACK_TO_SEARCH = "Back to Search"
SEARCH = "Search"


class Segment(NamedTuple):
    """One visible text node."""

    text: str
    kind: SegmentKind = "text"
    group: str | None = None
    """For an option label, the option's name ("size"); None otherwise."""
    clicked: bool = False
    """A selected option, or a product already visited in this session."""


@dataclass
class Page:
    """A rendered page: its kind, its URL in the original site's scheme, and its text nodes."""

    kind: PageKind
    url: str
    segments: list[Segment] = field(default_factory=list)
    reward: float | None = None

    def add(self, text: str, kind: SegmentKind = "text", **extra: Any) -> None:
        # Empty strings produce no text node in HTML, and a node that is exactly "\n" was
        # skipped by the original's converter; neither shows up in an observation.
        if text and text != "\n":
            self.segments.append(Segment(text, kind, **extra))


def _header(page: Page, instruction: str) -> None:
    page.add("Instruction:")
    page.add(instruction)
    page.add(BACK_TO_SEARCH, "button")


def search_page(url: str, instruction: str) -> Page:
    """The start page: the instruction and a search box."""
    page = Page("search", url)
    page.add("WebShop")
    page.add("Instruction: ")
    page.add(instruction)
    page.add(SEARCH, "button")
    return page


def results_page(
    url: str,
    instruction: str,
    products: list[Product],
    page_number: int,
    total: int,
    visited: set[str],
) -> Page:
    """One page of search results (``products`` are already this page's ten)."""
    page = Page("results", url)
    _header(page, instruction)
    page.add(f"Page {page_number} (Total results: {total})")
    if page_number > 1:
        page.add(PREV_PAGE, "button")
    if page_number * PRODUCTS_PER_PAGE < total:
        page.add(NEXT_PAGE, "button")
    for p in products:
        page.add(p["asin"], "product", clicked=p["asin"] in visited)
        page.add(p["Title"])
        page.add(p["Price"])
    return page


def item_page(url: str, instruction: str, product: Product, show_attrs: bool = False) -> Page:
    """A product page with its options; an option label counts as clicked when its quoted
    value occurs in the page URL (the original's test, quirks included)."""
    page = Page("item", url)
    _header(page, instruction)
    page.add(PREV_PAGE, "button")
    for name, values in product["options"].items():
        page.add(name)
        for value in values:
            page.add(value, "option", group=name, clicked=f'"{value}"' in url)
    page.add(product["Title"])
    page.add(f"Price: {product['Price']}")
    page.add(f"Rating: {product['Rating']}")
    for sub in SUB_PAGES[:3] + (SUB_PAGES[3:] if show_attrs else ()):
        page.add(sub, "button")
    page.add(BUY_NOW, "button")
    return page


def sub_page(url: str, instruction: str, product: Product, which: str) -> Page:
    """Description, Features, Reviews or Attributes of a product."""
    page = Page("sub", url)
    _header(page, instruction)
    page.add(PREV_PAGE, "button")
    if which == "Description":
        page.add(product["Description"])
    elif which == "Features":
        for bullet in product["BulletPoints"]:
            page.add(f" {bullet}")  # the original page put a space before each feature
    elif which == "Reviews":
        for review in product.get("Reviews") or []:
            page.add(f'"{review.get("title", "")}"')
            page.add(str(review.get("score", "")))
            page.add(str(review.get("body", "")))
    else:
        for attribute in product.get("Attributes") or []:
            page.add(attribute)
    return page


def options_json(options: dict[str, str]) -> str:
    """Options as Flask's ``tojson`` filter printed them: sorted keys, HTML-safe escapes."""
    text = json.dumps(options, sort_keys=True)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")):
        text = text.replace(char, escape)
    return text


def done_page(url: str, asin: str, options: dict[str, str], reward: float) -> Page:
    """The purchase confirmation with the episode's reward."""
    page = Page("done", url, reward=reward)
    for text in ("Thank you for shopping with us!", "Your code: ", "None"):
        page.add(text)
    page.add(" (Paste it in your MTurk interface.)")
    page.add("Purchased")
    page.add("asin")
    page.add(asin)
    page.add("options")
    page.add(options_json(options))
    for label in ("attrs", "category", "query", "product category"):
        page.add(label)
        page.add("None")
    for label in ("Target", "asin", "options", "attrs", "price upper", "instuction text"):
        page.add(label)  # "instuction" [sic]: the original page's spelling
    for label in ("category", "product category", "query", "Goal ", "None", "Reward"):
        page.add(label)
    page.add("Your score (min 0.0, max 1.0)")
    page.add(str(reward))
    page.add("Reward Details ")
    page.add("None")
    return page
