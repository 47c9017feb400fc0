"""Turning the original release's raw product records into the environment's products.

Mirrors what the original ``load_products`` does to ``items_shuffle*.json`` records: titles,
price tags, lower-cased option values with "/" shown as " | ", attributes, reviews, and the
instruction fields goal generation reads. Keeping the same keys lets the pages, reward and goal
code read either a raw release or a pre-processed ``documents.jsonl`` catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from open_langgraph.envs.webshop.types import Product

_DROPPED_KEYS = frozenset(
    {
        "product_information",
        "brand",
        "brand_url",
        "list_price",
        "availability_quantity",
        "availability_status",
        "total_reviews",
        "total_answered_questions",
        "seller_id",
        "seller_name",
        "fulfilled_by_amazon",
        "fast_track_message",
        "aplus_present",
        "small_description_old",
    }
)
_NOT_A_DIGIT = re.compile(r"[^\d.]")


def parse_pricing(pricing: str | None) -> tuple[list[float], str]:
    """Parse a raw price string ("$12.99", "$5.00 - $9.50") into bounds and a price tag.

    Products with no price are shown at $100.0, as in the original.
    """
    if not pricing:
        return [100.0], "$100.0"
    bounds = [float(Decimal(_NOT_A_DIGIT.sub("", part))) for part in pricing.split("$")[1:]]
    if len(bounds) == 1:
        return bounds, f"${bounds[0]}"
    return bounds[:2], f"${bounds[0]} to ${bounds[1]}"


def _options(
    customization: Mapping[str, Any] | str | None,
) -> tuple[dict[str, list[str]], dict[str, str | None]]:
    options: dict[str, list[str]] = {}
    option_to_image: dict[str, str | None] = {}
    if not customization or isinstance(customization, str):
        return options, option_to_image
    for name, contents in customization.items():
        if contents is None:
            continue
        values = []
        for content in contents:
            value = content["value"].strip().replace("/", " | ").lower()
            values.append(value)
            option_to_image[value] = content.get("image")
        options[name.lower()] = values
    return options, option_to_image


def process_raw_products(
    raw: Iterable[dict[str, Any]],
    attributes: Mapping[str, dict[str, Any]],
    human_instructions: Mapping[str, list[dict[str, Any]]] | None = None,
    reviews: Mapping[str, tuple[list[dict[str, Any]], Any]] | None = None,
    num_products: int | None = None,
) -> list[Product]:
    """Process raw release records, skipping bad and duplicate ASINs as the original does.

    Args:
        raw: records of ``items_shuffle*.json`` (assumed already shuffled).
        attributes: ``items_ins_v2*.json``: ASIN -> attributes, instruction, ...
        human_instructions: ``items_human_ins.json``: ASIN -> human instruction records.
        reviews: ASIN -> (reviews, average rating), from the optional reviews file.
        num_products: keep only the first N raw records (the original's ``num_products``).
    """
    products: list[Product] = []
    seen: set[str] = set()
    for index, record in enumerate(raw):
        if num_products is not None and index >= num_products:
            break
        asin = record["asin"]
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        p = {k: v for k, v in record.items() if k not in _DROPPED_KEYS}
        p["Title"] = p["name"]
        p["Description"] = p["full_description"]
        product_reviews, rating = (reviews or {}).get(asin, ([], "N.A."))
        p["Reviews"] = [_review(r) for r in product_reviews]
        p["Rating"] = rating
        small = p["small_description"]
        p["BulletPoints"] = small if isinstance(small, list) else [small]
        p["pricing"], p["Price"] = parse_pricing(p.get("pricing"))
        p["options"], p["option_to_image"] = _options(p.get("customization_options"))
        info = attributes.get(asin, {})
        p["Attributes"] = info.get("attributes", ["DUMMY_ATTR"])
        if human_instructions and asin in human_instructions:
            p["instructions"] = human_instructions[asin]
        p["instruction_text"] = info.get("instruction")
        p["instruction_attributes"] = info.get("instruction_attributes")
        p["MainImage"] = p["images"][0]
        p["query"] = p["query"].lower().strip()
        products.append(p)
    return products


def _review(review: dict[str, Any]) -> dict[str, Any]:
    review = dict(review)
    if "score" not in review:
        review["score"] = review.pop("stars")
    review["body"] = review.pop("review") if "review" in review else ""
    return review


def search_text(product: Product) -> str:
    """The text the original indexed for a product (its ``documents.jsonl`` "contents")."""
    option_text = ", and ".join(
        f"{name}: {', '.join(values)}" for name, values in product.get("options", {}).items()
    )
    parts = [product["Title"], product["Description"], product["BulletPoints"][0], option_text]
    return " ".join(parts).lower()
