"""Prices and goals, drawn in the original's random-call order.

The original seeds Python's ``random`` with 233, draws a price for every product with a price
range (uniform between its bounds), then walks the products drawing each goal's price ceiling
(two of the next four multiples of ten above the price, keeping the larger), and finally
re-seeds with 233 and shuffles the goal list. Doing the same calls in the same order on one
``random.Random`` reproduces its goals, prices and goal order exactly.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

from open_langgraph.envs.webshop.types import Goal, GoalKind, Product

PRICE_CEILINGS = [10.0 * i for i in range(1, 100)]
NO_CEILING = 1000000


def generate_prices(products: list[Product], rng: random.Random) -> dict[str, float]:
    """The price each product sells at: its single price, or uniform within its range."""
    prices: dict[str, float] = {}
    for p in products:
        pricing = p["pricing"]
        if not pricing:
            prices[p["asin"]] = 100.0
        elif len(pricing) == 1:
            prices[p["asin"]] = pricing[0]
        else:
            prices[p["asin"]] = rng.uniform(*pricing[:2])
    return prices


def _price_ceiling(price: float, rng: random.Random) -> tuple[float, str]:
    candidates = [c for c in PRICE_CEILINGS if c > price][:4]
    if len(candidates) < 2:
        return NO_CEILING, ""
    _, upper = sorted(rng.sample(candidates, 2))
    return upper, f", and price lower than {upper:.2f} dollars"


def synthetic_goals(
    products: list[Product], prices: dict[str, float], rng: random.Random
) -> list[Goal]:
    """One goal per option combination of each product with a synthetic instruction."""
    goals: list[Goal] = []
    attribute_counts: dict[str, int] = defaultdict(int)
    for p in products:
        instruction = p.get("instruction_text")
        if instruction is None:
            continue
        attributes = p["instruction_attributes"]
        upper, price_text = _price_ceiling(prices[p["asin"]], rng)
        names = sorted(p["options"])
        for combination in itertools.product(*(p["options"][n] for n in names)):
            goal_options = dict(zip(names, combination, strict=True))
            option_text = ", and ".join(f"{k}: {v}" for k, v in goal_options.items())
            option_text = f" with {option_text}" if option_text else ""
            goals.append(
                {
                    "asin": p["asin"],
                    "category": p["category"],
                    "query": p["query"],
                    "name": p["Title"],
                    "product_category": p["product_category"],
                    "instruction_text": f"{instruction}{option_text}{price_text}",
                    "attributes": attributes,
                    "price_upper": upper,
                    "goal_options": goal_options,
                }
            )
            for a in attributes:
                attribute_counts[a] += 1
    # Rare attributes weigh more when goals are sampled by weight.
    for g in goals:
        g["weight"] = sum(1.0 / attribute_counts[a] for a in g["attributes"]) / len(g["attributes"])
    return goals


def human_goals(
    products: list[Product], prices: dict[str, float], rng: random.Random
) -> list[Goal]:
    """One goal per human-written instruction that names at least one attribute."""
    goals: list[Goal] = []
    for p in products:
        for record in p.get("instructions") or []:
            attributes = record["instruction_attributes"]
            if not attributes:
                continue
            upper, price_text = _price_ceiling(prices[p["asin"]], rng)
            goals.append(
                {
                    "asin": p["asin"],
                    "category": p["category"],
                    "query": p["query"],
                    "name": p["name"],
                    "product_category": p["product_category"],
                    "instruction_text": record["instruction"].strip(".") + price_text,
                    "attributes": attributes,
                    "price_upper": upper,
                    "goal_options": record["instruction_options"],
                    "weight": 1,
                }
            )
    return goals


def build_goals(
    products: list[Product], kind: GoalKind, seed: int = 233
) -> tuple[list[Goal], dict[str, float]]:
    """Prices and the shuffled goal list of ``kind``, as the original draws them for ``seed``."""
    rng = random.Random(seed)
    prices = generate_prices(products, rng)
    make = synthetic_goals if kind == "synthetic" else human_goals
    goals = make(products, prices, rng)
    rng.seed(seed)
    rng.shuffle(goals)
    return goals, prices
