"""Choosing request headers by name: `http.configurable_headers` and `http.logging_headers`.

Both keys take `{"includes": [...], "excludes": [...]}` (or the singular `include` /
`exclude`), each a list of header names where `*` matches any run of characters (`x-*`,
`*token*`). Names are compared lower-cased. An excluded name is never chosen; with includes,
only a name matching one is; without includes, none is. Only `*` is special, so a pattern
cannot be a costly regular expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` as a regular expression: `*` any run of characters, all else literal."""
    parts = (re.escape(piece) for piece in pattern.lower().split("*"))
    return re.compile(".*".join(parts), re.DOTALL)


@dataclass(frozen=True, slots=True)
class HeaderPatterns:
    """Which header names a key chooses; see the module docstring for the rules."""

    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    def chooses(self, name: str) -> bool:
        """Whether the (lower-case) header `name` is chosen."""
        return _chooses(self, name)


@lru_cache(maxsize=1024)
def _chooses(patterns: HeaderPatterns, name: str) -> bool:
    if any(_compiled(p).fullmatch(name) for p in patterns.excludes):
        return False
    return any(_compiled(p).fullmatch(name) for p in patterns.includes)
