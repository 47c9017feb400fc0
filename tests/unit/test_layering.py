"""Imports point down: the HTTP layer may use services, never the other way round."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "src" / "open_langgraph"
BELOW_HTTP = ["auth", "services", "runtime", "storage", "models", "envs"]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("layer", BELOW_HTTP)
def test_layers_below_the_server_do_not_import_it(layer: str):
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            m for m in _imports(path) if m.startswith("open_langgraph.server")
        )
        for path in (PACKAGE / layer).rglob("*.py")
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_the_runtime_does_not_import_services():
    for path in (PACKAGE / "runtime").rglob("*.py"):
        assert not [m for m in _imports(path) if m.startswith("open_langgraph.services")], path


def test_the_server_package_does_not_import_the_agents_toolkit():
    """The agents' tools live beside them in graphs/toolkit: the server ships without them."""
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            m for m in _imports(path) if m.startswith("graphs.toolkit")
        )
        for path in PACKAGE.rglob("*.py")
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}
    assert not (PACKAGE / "tools").exists(), "the agents' tools belong in graphs/toolkit"
