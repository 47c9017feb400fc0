"""The first search of an episode, read off the instruction instead of asked of the model.

WebShop instructions name the product and its attributes, then the options to choose on the
item page ("with color: navy, and size: x-large") and the price limit ("and price lower than
40.00 dollars"). The 1.5B model, asked for a query, shortened the product part (dropping "men's"
or "gym workout") and kept the sizes and colors, and its searches found worse items than the
ReAct baseline's near-verbatim ones (issue 18: 4 of 10 goals lost that way). The product part
as written is the query a careful shopper types; options are chosen on the item page, and the
price limit is a filter. Skipping the model here also saves one call per episode. Later
searches (after Back to Search) still come from the model, which then knows what failed.
"""

from __future__ import annotations

import re

QUERY_MAX_CHARS = 200
_LEADS = re.compile(
    r"^\s*(?:find me|i am looking for|i'm looking for|i want to buy|i would like|i want|i need|"
    r"looking for|buy me|get me)\s+",
    re.IGNORECASE,
)
_PRICE = re.compile(
    r",?\s*(?:and\s+)?price\s+(?:lower|less)\s+than\s+\$?\s*([\d,]+(?:\.\d+)?)\s*(?:dollars)?",
    re.IGNORECASE,
)
_OPTION_NAME_WORDS = 3
"""An option type is a word or two ("color", "fit type"): a longer 'with ...:' is not one."""


def instruction_query(instruction: str) -> tuple[str, float | None]:
    """The product part of ``instruction`` as search keywords, and its price limit (or None)."""
    text = " ".join(instruction.split())
    max_price = None
    price = _PRICE.search(text)
    if price is not None:
        try:
            max_price = float(price.group(1).replace(",", ""))
        except ValueError:
            max_price = None
        text = text[: price.start()] + text[price.end() :]
    text = _cut_options(text)
    text = _LEADS.sub("", text).strip(" ,.;")
    if len(text) > QUERY_MAX_CHARS:
        text = text[:QUERY_MAX_CHARS].rsplit(" ", 1)[0]
    return text.lower(), max_price


def _cut_options(text: str) -> str:
    """``text`` up to its option list: the last ' with ' before the first 'name:'."""
    colon = text.find(":")
    if colon < 0:
        return text
    head = text[:colon]
    cut = head.lower().rfind(" with ")
    if cut < 0:
        return text
    name = head[cut + len(" with ") :]
    if not name or len(name.split()) > _OPTION_NAME_WORDS:
        return text
    return text[:cut]
