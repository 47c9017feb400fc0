"""Shared fixtures: the reference data of the original WebShop, read from data/webshop.

The data is part of the repository (see data/webshop/README.md). Missing data is an error,
never a skip, so fidelity can't silently go untested.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from open_langgraph.envs.webshop import WebShopEnv, load_catalog
from open_langgraph.envs.webshop.catalog import Catalog
from tests.fixtures.webshop_data import webshop_data


def reference(name: str) -> Any:
    """Load a reference file (JSON, gzipped JSON or the BM25 TSV) by name."""
    path = webshop_data("reference", name)
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    if name.endswith(".tsv"):
        return [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8")]
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(webshop_data())


@pytest.fixture(scope="session")
def rich_env(catalog: Catalog) -> WebShopEnv:
    return WebShopEnv(catalog, goals="synthetic", observation_mode="text_rich", seed=233)


@pytest.fixture(scope="session")
def text_env(catalog: Catalog) -> WebShopEnv:
    return WebShopEnv(catalog, goals="synthetic", observation_mode="text", seed=233)
