"""The reward's documented quirks, on hand-made products."""

from __future__ import annotations

from typing import Any

import pytest

from open_langgraph.envs.webshop import get_reward
from open_langgraph.envs.webshop.normalize import normalize_color


def _product(**overrides: Any) -> dict[str, Any]:
    product = {
        "asin": "B000000001",
        "name": "Acme Cotton Crew Neck T-Shirt",
        "Title": "Acme Cotton Crew Neck T-Shirt",
        "query": "men's t-shirts",
        "product_category": "Clothing \u203a Men \u203a Shirts \u203a T-Shirts",
        "Attributes": ["machine wash", "short sleeve"],
        "BulletPoints": ["Soft cotton jersey"],
        "Description": "A relaxed fit tee.",
    }
    return product | overrides


def _goal(**overrides: Any) -> dict[str, Any]:
    goal = {
        "asin": "B000000001",
        "name": "Acme Cotton Crew Neck T-Shirt",
        "query": "men's t-shirts",
        "product_category": "Clothing \u203a Men \u203a Shirts \u203a T-Shirts",
        "attributes": ["machine wash", "relaxed fit"],
        "goal_options": {"color": "navy blue", "size": "large"},
        "price_upper": 30.0,
    }
    return goal | overrides


def test_perfect_purchase_scores_one() -> None:
    reward, info = get_reward(_goal(), _product(), {"color": "navy blue", "size": "large"}, 20.0)
    assert reward == pytest.approx(1.0)
    assert info["r_att"] == 1.0 and info["r_option"] == 1.0 and info["r_price"] is True


def test_price_over_ceiling_and_missing_options_cost_their_weight() -> None:
    reward, info = get_reward(_goal(), _product(), {}, 31.0)
    assert info["r_price"] is False and info["r_option"] == 0.0
    assert reward == pytest.approx(2 / 5)


def test_synthetic_options_compare_as_name_value_pairs() -> None:
    # ("size", "x-large") becomes "size x large" for the fuzzy match, so a chosen "large"
    # matches it: the original's quirk, kept.
    _, info = get_reward(_goal(goal_options={"size": "x-large"}), _product(), {"s": "large"}, 1.0)
    assert info["r_option"] == 1.0
    # A human goal's plain value list has no such pairs.
    _, info = get_reward(_goal(goal_options=["x-large"]), _product(), {"s": "small"}, 1.0)
    assert info["r_option"] == 0.0


def test_unrelated_product_gets_no_type_reward() -> None:
    other = _product(name="Garden Hose Reel", query="hoses", product_category="Patio \u203a Hoses")
    reward, info = get_reward(_goal(), other, {}, 1.0)
    assert info["r_type"] == 0.0 and info["title_score"] == 0.0 and reward == 0.0


@pytest.mark.parametrize(
    ("value", "color"),
    [("heather grey", "grey"), ("dark heather", "dark"), ("navy blue", "blue"), ("xl", "xl")],
)
def test_colour_normalisation_takes_the_first_vocabulary_hit(value: str, color: str) -> None:
    assert normalize_color(value) == color
