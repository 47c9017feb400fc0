"""The one error a config file can cause, apart from `config.py` so the parsers of single
sections (`store_config.py`) can raise it without importing the whole loader."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import TextIO


class ConfigError(Exception):
    """A config file that cannot be used; the message names the file, key and problem."""

    def __init__(
        self, path: Path | str, key: str, problem: str, *, traceback_of: BaseException | None = None
    ) -> None:
        self.path = str(path)
        self.key = key
        self.problem = problem
        self.traceback_of = traceback_of
        """An exception whose traceback the user needs too: the project's code failed."""
        super().__init__(f"{self.path}: `{key}`: {problem}")


def print_config_error(exc: ConfigError, stream: TextIO | None = None) -> None:
    """`olg: config error: ...` on stderr, after the full traceback of the project's code that
    failed, if it did (a graph's module that raised on import): the line says what to fix, the
    traceback, with every sub-exception of an exception group, shows where."""
    out = stream or sys.stderr
    if exc.traceback_of is not None:
        traceback.print_exception(exc.traceback_of, file=out)
    print(f"olg: config error: {exc}", file=out)
