"""The one error a config file can cause, apart from `config.py` so the parsers of single
sections (`store_config.py`) can raise it without importing the whole loader."""

from __future__ import annotations

from pathlib import Path


class ConfigError(Exception):
    """A config file that cannot be used; the message names the file, key and problem."""

    def __init__(self, path: Path | str, key: str, problem: str) -> None:
        self.path = str(path)
        self.key = key
        self.problem = problem
        super().__init__(f"{self.path}: `{key}`: {problem}")
