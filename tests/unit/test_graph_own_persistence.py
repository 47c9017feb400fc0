"""A graph compiled with its own checkpointer or store is served with the server's, and the
log says so once (langgraph-api refuses to start it; its author may expect their own)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from open_langgraph.config import load_config
from open_langgraph.runtime.graphs import GraphRegistry

GRAPHS = """
from typing import TypedDict
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import StateGraph, START
from langgraph.store.memory import InMemoryStore

class S(TypedDict):
    n: int

def _builder():
    b = StateGraph(S)
    b.add_node("one", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "one")
    return b

own = _builder().compile(checkpointer=MemorySaver(), store=InMemoryStore())
plain = _builder().compile()
"""


def test_a_graph_s_own_checkpointer_and_store_are_replaced_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    (tmp_path / "graphs.py").write_text(GRAPHS)
    config = tmp_path / "langgraph.json"
    config.write_text(
        json.dumps({"graphs": {"own": "./graphs.py:own", "plain": "./graphs.py:plain"}})
    )
    registry = GraphRegistry(load_config(config))
    saver = InMemorySaver()
    with caplog.at_level(logging.WARNING, logger="open_langgraph.runtime.graphs"):
        registry.bind(saver)
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        "graph 'own' was compiled with its own checkpointer (InMemorySaver) and store "
        "(InMemoryStore): the server's are used instead"
    ]
    served = registry._graphs["own"].graph
    assert served is not None
    assert served.checkpointer is saver and served.store is registry.store
