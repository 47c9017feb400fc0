"""Answer checks of the held-out sets beyond benchmarks/everyday_eval.py's: every name of a
list, none of a list, an honest "I cannot know" for live data, and Python code that runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

CANNOT_KNOW = re.compile(
    r"\b(?:can ?not|can't|cannot|unable to|not able to|don't|do not|no)\b[^.]{0,60}"
    r"\b(?:know|access|provide|check|look up|retrieve|fetch|browse|real[- ]time|live|current"
    r"|up[- ]to[- ]date|internet)",
    re.IGNORECASE,
)
FIGURE = re.compile(
    r"[$€£¥]\s?\d|\d\s?(?:%|°|degrees|usd|eur|dollars|euros|points)\b|\b\d+\s?-\s?\d+\b",
    re.IGNORECASE,
)


def _words(names: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])", re.IGNORECASE) for n in names]


def every(names: list[str]) -> Callable[[str], bool]:
    patterns = _words(names)
    return lambda answer: all(p.search(answer) for p in patterns)


def none_of(names: list[str]) -> Callable[[str], bool]:
    patterns = _words(names)
    return lambda answer: not any(p.search(answer) for p in patterns)


def declines(answer: str) -> bool:
    """Says it cannot know live data, and gives no figure as if it did."""
    return CANNOT_KNOW.search(answer) is not None and FIGURE.search(answer) is None


def code_in(answer: str) -> str:
    """The code of an answer: its fenced blocks, else everything from the first `def`."""
    blocks = re.findall(r"```(?:python|py)?\s*\n(.*?)```", answer, re.DOTALL)
    if blocks:
        return "\n".join(blocks)
    start = answer.find("def ")
    return answer[start:] if start >= 0 else ""


_RUNNER = """
import json, sys
spec = json.loads(sys.stdin.readline())
scope = {}
exec(spec["code"], scope)
function = scope[spec["function"]]
print(json.dumps([function(*args) == expected for args, expected in spec["cases"]]))
"""


def python_passes(spec: dict[str, Any]) -> Callable[[str], bool]:
    """The answer's code defines `spec["function"]`, which returns each case's value."""

    def check(answer: str) -> bool:
        code = code_in(answer)
        if not code.strip():
            return False
        payload = json.dumps({"code": code, **spec})
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", _RUNNER],
                input=payload + "\n",
                capture_output=True,
                text=True,
                timeout=10,
            )
        except subprocess.TimeoutExpired:
            return False
        try:
            return done.returncode == 0 and all(json.loads(done.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return False

    return check


def extra_checks(expect: dict[str, Any]) -> list[Callable[[str], bool]]:
    """The checks of `expect` this module knows (the rest are everyday_eval's)."""
    checks: list[Callable[[str], bool]] = []
    if "all" in expect:
        checks.append(every(list(expect["all"])))
    if "none" in expect:
        checks.append(none_of(list(expect["none"])))
    if expect.get("declines"):
        checks.append(declines)
    if "python" in expect:
        checks.append(python_passes(dict(expect["python"])))
    return checks
