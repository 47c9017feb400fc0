"""README's table of `olg` commands names every command the CLI has, and no other."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from open_langgraph.cli import _parser

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_lists_every_olg_command() -> None:
    parser = _parser()
    [subcommands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    rows = re.findall(r"^\| `olg (\w+)", README.read_text(encoding="utf-8"), re.MULTILINE)
    assert set(rows) == set(subcommands.choices)
