"""The command that installs one of the package's extras, as it works where `olg` runs.

An error that says `pip install 'open-langgraph[postgres]'` is wrong in a checkout, where the
project is installed editable into `.venv` and that command would fetch a release from PyPI
over it: there the command is pip of the running interpreter on the checkout itself.
"""

from __future__ import annotations

import shlex
import sys
from functools import cache
from pathlib import Path

_PROJECT = "open-langgraph"


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
