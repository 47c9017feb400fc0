"""Loading catalogs: original release files, documents.jsonl(.gz), the demo, bad paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.envs.webshop import CatalogError, WebShopEnv, load_catalog
from open_langgraph.envs.webshop.products import parse_pricing, search_text

RAW = [
    {
        "asin": "B0RAW00001",
        "name": "Trail Runner Shoe",
        "full_description": "Light shoe.",
        "small_description": ["Rubber sole ", "Mesh upper"],
        "pricing": "$20.00 - $30.50",
        "images": ["https://img/1.jpg"],
        "product_category": "Shoes \u203a Running",
        "category": "fashion",
        "query": " Running Shoes ",
        "customization_options": {
            "Color": [{"value": "Black/White", "image": "https://img/b.jpg"}, {"value": "Red"}],
            "Size": None,
        },
        "brand": "dropped",
    },
    {"asin": "B0RAW00001", "name": "duplicate"},
    {"asin": "nan", "name": "bad asin"},
    {
        "asin": "B0RAW00002",
        "name": "Plain Mug",
        "full_description": "",
        "small_description": "Holds coffee",
        "pricing": "",
        "images": ["https://img/2.jpg"],
        "product_category": "Kitchen \u203a Mugs",
        "category": "garden",
        "query": "mugs",
        "customization_options": "",
    },
]
INSTRUCTIONS = {
    "B0RAW00001": {
        "attributes": ["rubber sole"],
        "instruction": "Find me running shoes with rubber sole",
        "instruction_attributes": ["rubber sole"],
    }
}


def _release(directory: Path) -> Path:
    (directory / "items_shuffle_2.json").write_text(json.dumps(RAW))
    (directory / "items_ins_v2_2.json").write_text(json.dumps(INSTRUCTIONS))
    return directory


def test_release_files_are_processed_like_the_original(tmp_path: Path) -> None:
    catalog = load_catalog(_release(tmp_path))
    assert [p["asin"] for p in catalog.products] == ["B0RAW00001", "B0RAW00002"]
    shoe, mug = catalog.products
    assert shoe["options"] == {"color": ["black | white", "red"]}
    assert shoe["option_to_image"] == {"black | white": "https://img/b.jpg", "red": None}
    assert (shoe["pricing"], shoe["Price"]) == ([20.0, 30.5], "$20.0 to $30.5")
    assert shoe["query"] == "running shoes" and "brand" not in shoe
    assert shoe["Attributes"] == ["rubber sole"] and mug["Attributes"] == ["DUMMY_ATTR"]
    assert (mug["pricing"], mug["Price"], mug["BulletPoints"]) == (
        [100.0],
        "$100.0",
        ["Holds coffee"],
    )
    assert catalog.contents[0] == search_text(shoe)
    assert catalog.contents[0].endswith("color: black | white, red")


def test_release_catalog_yields_goals(tmp_path: Path) -> None:
    env = WebShopEnv(load_catalog(_release(tmp_path)))
    assert sorted(g["instruction_text"].split(", and price")[0] for g in env.goals) == [
        "Find me running shoes with rubber sole with color: black | white",
        "Find me running shoes with rubber sole with color: red",
    ]


def test_documents_file_and_num_products(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    source = load_catalog(_release(raw))
    path = tmp_path / "documents.jsonl"
    path.write_text(
        "\n".join(json.dumps({"id": p["asin"], "product": p}) for p in source.products) + "\n"
    )
    catalog = load_catalog(path, num_products=1)
    assert len(catalog) == 1 and catalog.contents == source.contents[:1]


@pytest.mark.parametrize(
    ("raw", "bounds"), [("$5", [5.0]), ("$1,299.99", [1299.99]), (None, [100.0])]
)
def test_parse_pricing(raw: str | None, bounds: list[float]) -> None:
    assert parse_pricing(raw)[0] == bounds


def test_demo_catalog_is_the_default() -> None:
    catalog = load_catalog()
    assert len(catalog) == 100
    assert len(WebShopEnv(catalog, goals="human").goals) == 10
    assert len(WebShopEnv(catalog).goals) > 100


def test_unreadable_paths_raise(tmp_path: Path) -> None:
    with pytest.raises(CatalogError):
        load_catalog(tmp_path)
    with pytest.raises(CatalogError):
        load_catalog(tmp_path / "missing")
