"""Tool specs with varied JSON schemas (enums, bounded ints, arrays, nested and optional fields)
used by the real-model tests; written as OpenAI specs so the exact schema is known."""

from __future__ import annotations

from typing import Any


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


SEARCH = _fn(
    "search",
    "Search the shop for products.",
    {"query": {"type": "string", "maxLength": 40}},
    ["query"],
)
CLICK = _fn(
    "click",
    "Open the product page of one of the items listed on the page.",
    {"item_id": {"type": "string", "enum": ["B07X1", "B09K3", "B0C55", "B01ZZ"]}},
    ["item_id"],
)
BUY = _fn(
    "buy",
    "Buy the open product.",
    {
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "size": {"enum": ["S", "M", "L", "XL"]},
        "gift_wrap": {"type": "boolean"},
    },
    ["quantity", "size"],
)
WEATHER = _fn(
    "get_weather",
    "Current weather for a city.",
    {
        "city": {"type": "string", "maxLength": 30},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    ["city", "unit"],
)
EVENT = _fn(
    "create_event",
    "Add an event to the calendar.",
    {
        "title": {"type": "string", "minLength": 1, "maxLength": 40},
        "day": {"enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
        "attendees": {
            "type": "array",
            "items": {"type": "string", "maxLength": 20},
            "maxItems": 3,
        },
    },
    ["title", "day"],
)
CALC = _fn(
    "calculate",
    "Apply an arithmetic operation to two numbers.",
    {
        "op": {"enum": ["add", "sub", "mul", "div"]},
        "a": {"type": "number"},
        "b": {"type": "number"},
    },
    ["op", "a", "b"],
)
FILTER = _fn(
    "filter_products",
    "Filter the product list.",
    {
        "filters": {
            "type": "object",
            "properties": {
                "color": {"enum": ["red", "blue", "black"]},
                "max_price": {"type": ["number", "null"]},
            },
            "required": ["color"],
        },
        "sort": {"enum": ["price", "rating"]},
    },
    ["filters"],
)
EMAIL = _fn(
    "send_email",
    "Send a short email.",
    {
        "to": {"type": "string", "maxLength": 40},
        "subject": {"type": "string", "maxLength": 40},
        "priority": {"type": "integer", "minimum": 0, "maximum": 2},
    },
    ["to", "subject"],
)

SHOP = [SEARCH, CLICK, BUY]
ALL = [SEARCH, CLICK, BUY, WEATHER, EVENT, CALC, FILTER, EMAIL]
