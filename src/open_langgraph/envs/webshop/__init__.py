"""WebShop (Yao et al. 2022): a simulated web shop for language agents, re-implemented to run
offline from PyPI packages with the original's observations, search and reward."""

from __future__ import annotations

from open_langgraph.envs.webshop.catalog import Catalog, CatalogError, load_catalog
from open_langgraph.envs.webshop.env import WebShopEnv
from open_langgraph.envs.webshop.reward import get_reward

__all__ = ["Catalog", "CatalogError", "WebShopEnv", "get_reward", "load_catalog"]
