"""Loading a WebShop catalog: an original release directory, a ``documents.jsonl(.gz)`` index
file, or the bundled demo catalog when no path is given.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_langgraph.envs.webshop.products import process_raw_products, search_text
from open_langgraph.envs.webshop.types import Product

DEMO_DIR = Path(__file__).parent / "demo"


@dataclass
class Catalog:
    """Products in index order, with the text each one is searched by."""

    products: list[Product]
    """Processed products; their order is the search index's document order (ties break on it)."""
    contents: list[str]
    """Search text per product, aligned with ``products``."""
    source: str = ""
    """Where the catalog was loaded from, for messages."""
    by_asin: dict[str, Product] = field(init=False)

    def __post_init__(self) -> None:
        if len(self.products) != len(self.contents):
            raise ValueError("products and contents must be aligned")
        self.by_asin = {p["asin"]: p for p in self.products}

    def __len__(self) -> int:
        return len(self.products)


class CatalogError(ValueError):
    """The path holds no catalog this module can read."""


def _open_text(path: Path) -> Any:
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open()


def _read_json(path: Path) -> Any:
    with _open_text(path) as f:
        return json.load(f)


def _iter_documents(path: Path) -> Iterator[dict[str, Any]]:
    with _open_text(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _first(directory: Path, *patterns: str) -> Path | None:
    for pattern in patterns:
        found = sorted(directory.glob(pattern))
        if found:
            return found[0]
    return None


def _attach_instructions(products: list[Product], directory: Path) -> None:
    # Index files carry human instructions but not the synthetic ones; the original read
    # both from the attribute files, so take them from there when the directory has them.
    ins_path = _first(directory, "items_ins_v2*.json")
    human_path = _first(directory, "items_human_ins*.json")
    attributes = _read_json(ins_path) if ins_path else {}
    human = _read_json(human_path) if human_path else {}
    for p in products:
        info = attributes.get(p["asin"])
        if info is not None:
            p["instruction_text"] = info.get("instruction")
            p["instruction_attributes"] = info.get("instruction_attributes")
            if "Attributes" not in p:
                p["Attributes"] = info.get("attributes", ["DUMMY_ATTR"])
        if p["asin"] in human and "instructions" not in p:
            p["instructions"] = human[p["asin"]]


def _load_documents(path: Path, num_products: int | None) -> Catalog:
    products: list[Product] = []
    contents: list[str] = []
    for doc in _iter_documents(path):
        if num_products is not None and len(products) >= num_products:
            break
        products.append(doc["product"])
        contents.append(doc.get("contents") or search_text(doc["product"]))
    _attach_instructions(products, path.parent)
    return Catalog(products, contents, source=str(path))


def _load_release(directory: Path, items: Path, num_products: int | None) -> Catalog:
    ins_path = _first(directory, "items_ins_v2*.json")
    human_path = _first(directory, "items_human_ins*.json")
    reviews_path = _first(directory, "*reviews*.json")
    reviews = None
    if reviews_path:
        reviews = {r["asin"]: (r["reviews"], r["average_rating"]) for r in _read_json(reviews_path)}
    products = process_raw_products(
        _read_json(items),
        _read_json(ins_path) if ins_path else {},
        _read_json(human_path) if human_path else None,
        reviews,
        num_products,
    )
    return Catalog(products, [search_text(p) for p in products], source=str(directory))


def load_catalog(path: str | Path | None = None, *, num_products: int | None = None) -> Catalog:
    """Load a catalog.

    Args:
        path: a ``documents.jsonl``/``.jsonl.gz`` file; a directory holding one (plus optional
            ``items_ins_v2*.json`` and ``items_human_ins*.json`` for goals); a directory of the
            original release files (``items_shuffle*.json``, ``items_ins_v2*.json``,
            ``items_human_ins.json``, optional reviews); a directory with a ``catalog/``
            sub-directory of either kind; or None for the bundled demo catalog.
        num_products: keep only the first N products, like the original's ``num_products``.

    Raises:
        CatalogError: the path holds nothing recognisable.
    """
    target = DEMO_DIR if path is None else Path(path)
    if target.is_file():
        return _load_documents(target, num_products)
    if not target.is_dir():
        raise CatalogError(f"no such catalog file or directory: {target}")
    documents = _first(target, "*documents*.jsonl.gz", "*documents*.jsonl")
    if documents:
        return _load_documents(documents, num_products)
    items = _first(target, "items_shuffle*.json")
    if items:
        return _load_release(target, items, num_products)
    if (target / "catalog").is_dir():
        return load_catalog(target / "catalog", num_products=num_products)
    raise CatalogError(
        f"{target} holds neither documents.jsonl(.gz) nor items_shuffle*.json release files"
    )
