"""Prices and goals are identical to the original environment's for seed 233."""

from __future__ import annotations

from open_langgraph.envs.webshop.catalog import Catalog
from open_langgraph.envs.webshop.goals import build_goals

from .conftest import reference


def test_synthetic_goals_and_order_identical(catalog: Catalog) -> None:
    goals, _ = build_goals(catalog.products, "synthetic", seed=233)
    expected = reference("ref_synthetic_goals_1k_seed233.json.gz")
    assert len(goals) == len(expected) == 6910
    assert goals == expected


def test_human_goals_identical(catalog: Catalog) -> None:
    goals, _ = build_goals(catalog.products, "human", seed=233)
    assert goals == reference("ref_human_goals_1k_seed233.json")


def test_prices_identical(catalog: Catalog) -> None:
    _, prices = build_goals(catalog.products, "synthetic", seed=233)
    assert prices == reference("ref_product_prices_seed233.json")


def test_other_seed_changes_ranged_prices(catalog: Catalog) -> None:
    _, prices = build_goals(catalog.products, "synthetic", seed=1)
    expected = reference("ref_product_prices_seed233.json")
    ranged = [p["asin"] for p in catalog.products if len(p["pricing"]) > 1]
    assert ranged and any(prices[a] != expected[a] for a in ranged)
    fixed = [p["asin"] for p in catalog.products if len(p["pricing"]) == 1]
    assert all(prices[a] == expected[a] for a in fixed)
