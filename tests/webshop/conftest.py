"""Shared fixtures: the reference data of the original WebShop, read from ../shared/webshop.

The data is not part of the repository; CI always has it beside the clone. Missing data is an
error, never a skip, so fidelity can't silently go untested.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from open_langgraph.envs.webshop import WebShopEnv, load_catalog
from open_langgraph.envs.webshop.catalog import Catalog

SHARED = Path(__file__).parents[2].parent / "shared" / "webshop"
REFERENCE = SHARED / "reference"


def reference(name: str) -> Any:
    """Load a reference file (JSON, gzipped JSON or the BM25 TSV) by name."""
    path = REFERENCE / name
    if not path.exists():
        raise FileNotFoundError(
            f"WebShop reference data missing: {path}. The fidelity tests need the shared "
            "data directory beside the repository (../shared/webshop)."
        )
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    if name.endswith(".tsv"):
        return [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8")]
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    if not (SHARED / "catalog").is_dir():
        raise FileNotFoundError(f"WebShop catalog missing: {SHARED / 'catalog'}")
    return load_catalog(SHARED)


@pytest.fixture(scope="session")
def rich_env(catalog: Catalog) -> WebShopEnv:
    return WebShopEnv(catalog, goals="synthetic", observation_mode="text_rich", seed=233)


@pytest.fixture(scope="session")
def text_env(catalog: Catalog) -> WebShopEnv:
    return WebShopEnv(catalog, goals="synthetic", observation_mode="text", seed=233)
