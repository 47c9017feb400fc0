"""The web agent with the scripted shopper as its model, for a live `olg serve` in tests."""

from __future__ import annotations

from graphs.web_agent.graph import build_graph
from tests.agents.web_agent.scripted import ShopperModel

graph = build_graph(model=ShopperModel())
