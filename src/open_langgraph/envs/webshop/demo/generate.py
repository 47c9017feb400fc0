"""Regenerate the demo catalog: ``python -m open_langgraph.envs.webshop.demo.generate``.

One hundred invented products (ten kinds, ten each) written in the original release's format:
``documents.jsonl.gz`` (processed products and their search text), ``items_ins_v2_demo.json``
(attributes and a synthetic instruction per product) and ``items_human_ins_demo.json`` (a few
hand-written style instructions). Generation is seeded, so the files are reproducible.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

from open_langgraph.envs.webshop.products import search_text

HERE = Path(__file__).parent
# Categories are written "A > B" here and stored with the original separator, U+203A.
_CATEGORY_SEPARATOR = "\u203a"

# (category, query, product category, nouns, attributes, options)
_Kind = tuple[str, str, str, list[str], list[str], dict[str, list[str]]]
_KINDS: list[_Kind] = [
    (
        "beauty",
        "shampoo",
        "Beauty & Personal Care > Hair Care > Shampoo & Conditioner > Shampoos",
        ["Shampoo", "Hair Wash", "Cleansing Shampoo"],
        ["sulfate free", "paraben free", "dry hair", "natural ingredients", "cruelty free"],
        {"size": ["8 fl oz", "16 fl oz", "32 fl oz"]},
    ),
    (
        "grocery",
        "snack bars",
        "Grocery & Gourmet Food > Snacks & Sweets > Bars > Granola Bars",
        ["Snack Bars", "Protein Bars", "Granola Bars"],
        ["gluten free", "low sugar", "high protein", "non gmo", "plant based"],
        {"flavor name": ["peanut butter", "dark chocolate", "almond"]},
    ),
    (
        "fashion",
        "men's t-shirts",
        "Clothing, Shoes & Jewelry > Men > Clothing > Shirts > T-Shirts",
        ["T-Shirt", "Crew Neck Tee", "Cotton Shirt"],
        ["short sleeve", "machine wash", "classic fit", "cotton jersey", "relaxed fit"],
        {"color": ["black", "navy blue", "heather grey"], "size": ["medium", "large", "x-large"]},
    ),
    (
        "fashion",
        "women's running shoes",
        "Clothing, Shoes & Jewelry > Women > Shoes > Athletic > Running",
        ["Running Shoes", "Sneakers", "Trail Runners"],
        ["rubber sole", "lightweight", "breathable mesh", "arch support", "non slip"],
        {"color": ["white", "pink", "black"], "size": ["7", "8", "9"]},
    ),
    (
        "garden",
        "throw pillow covers",
        "Home & Kitchen > Bedding > Decorative Pillows, Inserts & Covers > Throw Pillow Covers",
        ["Pillow Cover", "Cushion Case", "Throw Pillow Cover"],
        ["double sided", "machine washable", "hidden zipper", "living room", "soft velvet"],
        {"size": ['18" x 18"', '20" x 20"'], "color": ["sage green", "mustard yellow"]},
    ),
    (
        "electronics",
        "wireless earbuds",
        "Electronics > Headphones, Earbuds & Accessories > Earbuds",
        ["Wireless Earbuds", "Bluetooth Headphones", "Earphones"],
        ["noise cancelling", "long battery life", "water resistant", "fast charging", "usb c"],
        {"color": ["black", "white"]},
    ),
    (
        "garden",
        "coffee tables",
        "Home & Kitchen > Furniture > Living Room Furniture > Tables",
        ["Coffee Table", "Cocktail Table", "Center Table"],
        ["solid wood", "easy assembly", "storage space", "living room", "mid century"],
        {},
    ),
    (
        "grocery",
        "coffee beans",
        "Grocery & Gourmet Food > Beverages > Coffee > Whole Coffee Beans",
        ["Coffee Beans", "Whole Bean Coffee", "Espresso Beans"],
        ["dark roast", "fair trade", "usda organic", "single origin", "medium roast"],
        {"size": ["12 ounce", "2 pound"]},
    ),
    (
        "beauty",
        "face moisturizer",
        "Beauty & Personal Care > Skin Care > Face > Moisturizers",
        ["Face Moisturizer", "Day Cream", "Facial Lotion"],
        ["sensitive skin", "fragrance free", "hyaluronic acid", "oil free", "spf 30"],
        {"size": ["1.7 ounce", "3.4 ounce"]},
    ),
    (
        "electronics",
        "phone chargers",
        "Cell Phones & Accessories > Chargers & Power Adapters",
        ["Phone Charger", "Wall Charger", "Charging Block"],
        ["fast charging", "usb c", "compact design", "dual port", "overheat protection"],
        {"color": ["white", "black"]},
    ),
]
_BRANDS = [
    "Alderbrook",
    "Brightfield",
    "Cobalt & Pine",
    "Dunmore",
    "Everlane Works",
    "Foxglove",
    "Greyhaven",
    "Harbor Lane",
    "Ironwood",
    "Juniper Row",
]
_ADJECTIVES = ["Premium", "Classic", "Everyday", "Deluxe", "Essential"]


def _product(index: int, kind: _Kind, rng: random.Random) -> dict[str, Any]:
    category, query, product_category, nouns, attributes, options = kind
    brand = _BRANDS[(index // len(_KINDS)) % len(_BRANDS)]
    noun = rng.choice(nouns)
    chosen = rng.sample(attributes, 3)
    title = f"{brand} {rng.choice(_ADJECTIVES)} {noun}, {chosen[0].title()}, {chosen[1].title()}"
    low = round(rng.uniform(5, 120), 2)
    pricing = [low, round(low * rng.uniform(1.1, 1.6), 2)] if index % 4 == 0 else [low]
    price_tag = f"${pricing[0]}" if len(pricing) == 1 else f"${pricing[0]} to ${pricing[1]}"
    bullets = [f"{a.capitalize()}: made to last, tested by the {brand} team. " for a in chosen]
    description = (
        f"The {brand} {noun.lower()} is {chosen[0]} and {chosen[1]}. "
        f"A dependable pick for anyone shopping for {query}."
    )
    asin = f"DM{index:08d}"
    image = f"https://example.invalid/webshop-demo/{asin}.jpg"
    product = {
        "asin": asin,
        "name": title,
        "Title": title,
        "full_description": description,
        "Description": description,
        "small_description": bullets,
        "BulletPoints": bullets,
        "pricing": pricing,
        "Price": price_tag,
        "category": category,
        "query": query,
        "product_category": product_category.replace(">", _CATEGORY_SEPARATOR),
        "images": [image],
        "MainImage": image,
        "options": {k: list(v) for k, v in options.items()},
        "option_to_image": {v: None for values in options.values() for v in values},
        "Attributes": chosen,
        "Reviews": [],
        "Rating": "N.A.",
        "average_rating": "",
        "customization_options": "",
    }
    return product


def build() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """The demo products, their attribute/instruction file and human instruction file."""
    rng = random.Random(20240601)
    products, ins, human = [], {}, {}
    for index in range(100):
        kind = _KINDS[index % len(_KINDS)]
        p = _product(index, kind, rng)
        products.append(p)
        wanted = p["Attributes"][:2]
        ins[p["asin"]] = {
            "attributes": p["Attributes"],
            "instruction": f"Find me {wanted[0]}, {wanted[1]} {p['query']}",
            "instruction_attributes": wanted,
        }
        if index % 10 == 3:
            option = [values[0] for values in p["options"].values()][:1]
            human[p["asin"]] = [
                {
                    "asin": p["asin"],
                    "instruction": f"i need {p['query']} that are {wanted[0]}.",
                    "attributes": p["Attributes"],
                    "options": option,
                    "instruction_attributes": [wanted[0]],
                    "instruction_options": option,
                }
            ]
    return products, ins, human


def main() -> None:
    products, ins, human = build()
    # mtime=0 keeps the compressed file byte-identical across regenerations.
    path = HERE / "documents.jsonl.gz"
    with gzip.GzipFile(path, "wb", mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf-8") as f:
        for p in products:
            f.write(json.dumps({"id": p["asin"], "contents": search_text(p), "product": p}) + "\n")
    (HERE / "items_ins_v2_demo.json").write_text(json.dumps(ins, indent=1))
    (HERE / "items_human_ins_demo.json").write_text(json.dumps(human, indent=1))


if __name__ == "__main__":
    main()
