"""The functions each LASER state offers, as tool schemas restricted to what the page allows.

Item ids are an enum of the ids on the results page and each purchase option is an enum of the
values the item page offers, so a grammar-constrained model can only produce valid actions and
a hosted model's call can be checked against the same schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphs.laser.views import ItemView, ResultItem, ResultsView

Tool = dict[str, Any]
KEYWORDS_MAX_CHARS = 80
THOUGHT_MAX_CHARS = 200
THOUGHT = "thought"
MATCH_SCORE = "match_score"
DECISION_ARGS = (THOUGHT, MATCH_SCORE)
"""Arguments every call of a state carries besides the action's own: why (and, on an item
page, how well it fits). One call per step thinks and acts, as in LASER's function calls."""
_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
_THOUGHT_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": THOUGHT_MAX_CHARS,
    "description": "one short sentence: why this action, given the instruction",
}
_SCORE_SCHEMA = {
    "type": "integer",
    "minimum": 0,
    "maximum": 10,
    "description": "how well this item fits the instruction, 0 (not at all) to 10 (exactly)",
}


def _tool(
    name: str,
    description: str,
    parameters: Mapping[str, Any] | None = None,
    *,
    scored: bool = False,
) -> Tool:
    """A state function; its arguments start with the thought (and the match score when
    `scored`), so the model reasons before it fills the action's own arguments."""
    params = dict(parameters or _NO_ARGS)
    first: dict[str, Any] = {THOUGHT: _THOUGHT_SCHEMA}
    if scored:
        first[MATCH_SCORE] = _SCORE_SCHEMA
    properties = {**first, **params.get("properties", {})}
    required = [*first, *params.get("required", [])]
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def search_tools() -> list[Tool]:
    return [
        _tool(
            "Search",
            "Search the shop. keywords: a short query naming the product and its key features. "
            "max_price: the price limit from the instruction, or null.",
            {
                "type": "object",
                "properties": {
                    "keywords": {"type": "string", "minLength": 1, "maxLength": KEYWORDS_MAX_CHARS},
                    "max_price": {"type": ["number", "null"]},
                },
                "required": ["keywords", "max_price"],
            },
        )
    ]


def result_tools(view: ResultsView, choices: list[ResultItem] | None = None) -> list[Tool]:
    """Open one of ``choices`` (default: every result of the page), page on, or search again.
    `Next` is offered only once an item of this page has been opened: the 1.5B model
    otherwise paged through results without opening anything, and the backup bought blind."""
    tools: list[Tool] = []
    ids = [item.item_id for item in (view.items if choices is None else choices)]
    if ids:
        tools.append(
            _tool(
                "select_item",
                "Open the item with this id to inspect it.",
                {
                    "type": "object",
                    "properties": {"item_id": {"type": "string", "enum": ids}},
                    "required": ["item_id"],
                },
            )
        )
    if view.has_next and (not ids or any(item.visited for item in view.items)):
        tools.append(_tool("Next", "Show the next page of results."))
    tools.append(_tool("Back_to_Search", "Go back to the search page to search again."))
    return tools


def option_argument(name: str) -> str:
    """A tool-argument name for a page option type ("size" -> "size", "color / style" ->
    "color_style"); hosted APIs accept only ``[A-Za-z0-9_-]`` names."""
    arg = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")
    return arg or "option"


def option_arguments(view: ItemView) -> dict[str, str]:
    """Tool-argument name -> the page's option type, unique per argument."""
    names: dict[str, str] = {}
    for option in view.options:
        arg = option_argument(option)
        while arg in names or arg in DECISION_ARGS:
            arg += "_"
        names[arg] = option
    return names


def buy_now_tool(view: ItemView) -> Tool:
    args = option_arguments(view)
    properties = {arg: {"type": "string", "enum": view.options[opt]} for arg, opt in args.items()}
    return _tool(
        "Buy_Now",
        "Buy this item, choosing for every option type the value the instruction asks for.",
        {"type": "object", "properties": properties, "required": list(properties)},
        scored=True,
    )


SUBPAGES = ("Description", "Features", "Reviews")


def item_tools(view: ItemView, *, may_read: bool = True) -> list[Tool]:
    """Buy, read a subpage, or go back. With `may_read` False (a subpage of this item was
    read already) only buying or going back is left: the 1.5B model otherwise read the same
    description ten times, scoring it 10/10, and never bought."""
    reading = [
        _tool("Description", "Read the item's description.", scored=True),
        _tool("Features", "Read the item's feature list.", scored=True),
        _tool("Reviews", "Read the item's reviews.", scored=True),
    ]
    back = _tool("Prev", "Go back to the results page: this item does not fit.", scored=True)
    return [buy_now_tool(view), *(reading if may_read else []), back]


def tool_names(tools: list[Tool]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def find_tool(tools: list[Tool], name: str) -> Tool | None:
    return next((t for t in tools if t["function"]["name"] == name), None)


def check_call(tools: list[Tool], name: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The call's arguments if ``name(**args)`` is valid for these tools, else None.

    Hosted models are not grammar-constrained, so their calls are held to the same schema:
    known tool, required arguments present, enum values from the page, keywords non-empty.
    """
    tool = find_tool(tools, name)
    if tool is None or not isinstance(args, Mapping):
        return None
    schema = tool["function"]["parameters"]
    properties: dict[str, Any] = schema.get("properties", {})
    clean: dict[str, Any] = {}
    for key, prop in properties.items():
        if key in DECISION_ARGS:  # read by the caller; a hosted model may leave them out
            continue
        if key not in args:
            if key in schema.get("required", []) and "null" not in _types(prop):
                return None
            clean[key] = None
            continue
        value = args[key]
        if "enum" in prop:
            match = _enum_match(prop["enum"], value)
            if match is None:
                return None
            value = match
        elif "string" in _types(prop):
            if not isinstance(value, str) or not value.strip():
                return None
            value = value.strip()[: prop.get("maxLength", len(value))]
        elif "number" in _types(prop):
            value = _number_or_none(value)
        clean[key] = value
    return clean


def _types(prop: Mapping[str, Any]) -> list[str]:
    kind = prop.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _enum_match(values: list[Any], value: Any) -> Any:
    if value in values:
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        return next((v for v in values if str(v).lower() == lowered), None)
    return None


def _number_or_none(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().lstrip("$"))
        except ValueError:
            return None
    return None
