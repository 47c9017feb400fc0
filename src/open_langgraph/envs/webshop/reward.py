"""The WebShop reward (Yao et al. 2022, section 3.1), reproduced with the original's quirks.

    r = r_type * (|U_att ∩ Y_att| + |U_opt ∩ Y_opt| + 1[y_price <= u_price])
                 / (|U_att| + |U_opt| + 1)

Attributes count as matched when a fuzzy token-set ratio against one of the product's
attributes exceeds 85, or when the attribute occurs in the title, features or description.
Goal options count when a chosen option's fuzzy ratio exceeds 85; colours are normalised
first. ``r_type`` drops to 0.5 / 0.1 / 0 as the purchased product's
query, category and title nouns drift from the goal product's.
"""

from __future__ import annotations

from typing import Any, Literal, overload

from thefuzz import fuzz

from open_langgraph.envs.webshop.normalize import COLOR_SET, normalize_color
from open_langgraph.envs.webshop.tagging import nouns
from open_langgraph.envs.webshop.types import Goal, Product

_FUZZY_THRESHOLD = 85
_CATEGORY_SEPARATOR = "\u203a"  # between the levels of a product category


def type_reward(product: Product, goal: Goal) -> dict[str, Any]:
    """Whether the purchased product is the same kind of thing as the goal product."""
    query_match = product["query"] == goal["query"]
    bought_category = {x.strip() for x in product["product_category"].split(_CATEGORY_SEPARATOR)}
    goal_category = {x.strip() for x in goal["product_category"].split(_CATEGORY_SEPARATOR)}
    category_match = len(bought_category & goal_category) >= 2

    bought_nouns = nouns(product["name"])
    goal_nouns = nouns(goal["name"])
    # The denominator counts repeated nouns while the overlap is a set: the original's quirk,
    # which is why a product scored against its own title can get less than 1.
    if not goal_nouns:
        title_score = 0.2
    else:
        title_score = len(set(bought_nouns) & set(goal_nouns)) / len(goal_nouns)

    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {
        "r_type": r_type,
        "query_match": query_match,
        "category_match": category_match,
        "title_score": title_score,
    }


def _in_text(value: str, product: Product) -> bool:
    return (
        value in product["Title"].lower()
        or value in " ".join(product["BulletPoints"]).lower()
        or value in product["Description"].lower()
    )


def attribute_reward(product: Product, goal: Goal) -> tuple[float, int]:
    """Fraction and number of goal attributes the product has."""
    matches = 0
    for wanted in goal["attributes"]:
        if any(
            fuzz.token_set_ratio(have, wanted) > _FUZZY_THRESHOLD for have in product["Attributes"]
        ) or _in_text(wanted, product):
            matches += 1
    return matches / len(goal["attributes"]), matches


def _normalize_goal_option(option: str | tuple[str, str]) -> str | tuple[str, str]:
    # A (name, value) pair is "normalised" by tuple membership, so only a value that *is* a
    # vocabulary colour maps to it; any other pair stays a pair and is fuzzy-matched as its
    # string form "('color', 'navy blue')". This is the original's behaviour, kept on purpose.
    if isinstance(option, str):
        return normalize_color(option)
    for color in COLOR_SET:
        if color in option:
            return color
    return option


def option_reward(
    goal_options: list[str] | list[tuple[str, str]], chosen: dict[str, str]
) -> tuple[float | None, int]:
    """Fraction (None without goal options) and number of goal options matched by a choice.

    Args:
        goal_options: option values (human goals) or (name, value) pairs (synthetic goals,
            whose options the original passed as ``dict.items()``).
        chosen: the options picked on the item page, name -> value.
    """
    picked = [normalize_color(v) for v in chosen.values()]
    wanted = [_normalize_goal_option(o) for o in goal_options]
    matches = 0
    for goal_option in wanted:
        # thefuzz stringifies non-strings itself; pairs go through str() the same way.
        if any(fuzz.token_set_ratio(p, goal_option) > _FUZZY_THRESHOLD for p in picked):
            matches += 1
    return (matches / len(wanted) if wanted else None), matches


@overload
def get_reward(
    goal: Goal,
    product: Product,
    options: dict[str, str],
    price: float,
    verbose: Literal[True] = ...,
) -> tuple[float, dict[str, Any]]: ...
@overload
def get_reward(
    goal: Goal, product: Product, options: dict[str, str], price: float, verbose: Literal[False]
) -> float: ...
def get_reward(
    goal: Goal, product: Product, options: dict[str, str], price: float, verbose: bool = True
) -> tuple[float, dict[str, Any]] | float:
    """Score buying ``product`` at ``price`` with ``options`` against ``goal``.

    Args:
        goal: a goal dict; synthetic goals carry ``goal_options`` as a name -> value dict
            (only the values count), human goals as a list of values.
        product: the purchased product.
        options: the options chosen on the item page, option name -> value.
        price: the price the product was sold at (see ``generate_prices``).
        verbose: also return the sub-scores, as the original's ``verbose=True``.

    Returns:
        ``(reward, breakdown)`` with the original's keys (r_type, r_att, w_att, query_match,
        category_match, title_score, and r_option/w_option, r_price/w_price when defined),
        or the reward alone when ``verbose`` is false.
    """
    type_info = type_reward(product, goal)
    r_price = (price <= goal["price_upper"]) if goal["price_upper"] > 0 else None
    r_att, n_att = attribute_reward(product, goal)
    raw_options = goal["goal_options"]
    goal_options = list(raw_options.items()) if isinstance(raw_options, dict) else raw_options
    r_option, n_option = option_reward(goal_options, options)

    denominator = len(goal["attributes"]) + len(raw_options) + 1
    r_type: float = type_info["r_type"]
    reward = (n_att + n_option + bool(r_price)) / denominator * r_type
    if not verbose:
        return reward
    info: dict[str, Any] = {
        "r_type": type_info["r_type"],
        "r_att": r_att,
        "w_att": len(goal["attributes"]) / denominator,
        "query_match": type_info["query_match"],
        "category_match": type_info["category_match"],
        "title_score": type_info["title_score"],
    }
    if r_option is not None:
        info["r_option"] = r_option
        info["w_option"] = len(raw_options) / denominator
    if r_price is not None:
        info["r_price"] = r_price
        info["w_price"] = 1 / denominator
    return reward, info
