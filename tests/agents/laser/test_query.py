"""The first search's keywords and price limit, read off WebShop instructions."""

from __future__ import annotations

import pytest

from graphs.laser.query import instruction_query


@pytest.mark.parametrize(
    ("instruction", "keywords", "max_price"),
    [
        (
            "Find me men's shorts with elastic waist, classic fit, short sleeve for gym workout "
            "with color: navy, and size: x-large, and price lower than 40.00 dollars",
            "men's shorts with elastic waist, classic fit, short sleeve for gym workout",
            40.0,
        ),
        (
            "Find me double sided, machine washable decorative pillows with printing technology "
            'with size: 28" x 28", and price lower than 50.00 dollars',
            "double sided, machine washable decorative pillows with printing technology",
            50.0,
        ),
        (
            "Find me dual band streaming media players with quad core, and price lower than "
            "340.00 dollars",
            "dual band streaming media players with quad core",
            340.0,
        ),
        (
            "i am looking for a gluten free, 100% vegan plant based protein shake that is "
            "soy-free, and price lower than 1,250.00 dollars",
            "a gluten free, 100% vegan plant based protein shake that is soy-free",
            1250.0,
        ),
        ("a red mug", "a red mug", None),
        # A colon that does not follow a short option name is kept as written.
        (
            "Find me a poster with a quote that reads: carpe diem",
            "a poster with a quote that reads: carpe diem",
            None,
        ),
    ],
)
def test_product_part_and_price_limit(
    instruction: str, keywords: str, max_price: float | None
) -> None:
    assert instruction_query(instruction) == (keywords, max_price)


def test_long_instructions_are_cut_at_a_word() -> None:
    keywords, _ = instruction_query("Find me " + "very " * 60 + "long mug")
    assert len(keywords) <= 200
    assert keywords.endswith("very")
