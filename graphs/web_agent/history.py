"""The Agent's own actions, told back to it in words.

The prompt shows what was done as a short numbered list ("clicked link "Buy Now"") instead of
the raw tool calls. Refs are not repeated: a ref names an element of the page it was read on
only, and the 1.5B model, shown its earlier calls, copied them, clicking the first page's
`e7` on every page after it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphs.web_agent.context_budget import estimate_tokens

Args = Mapping[str, Any]
_PHRASES: dict[str, Callable[[Args, str], str]] = {
    "browser_navigate": lambda args, what: f"opened {args.get('url', '')}",
    "browser_click": lambda args, what: f"clicked {what}",
    "browser_type": lambda args, what: (
        f'typed "{args.get("text", "")}" into {what}'
        + (" and pressed Enter" if args.get("submit") else "")
    ),
    "browser_select_option": lambda args, what: (
        f"chose {', '.join(map(str, args.get('values') or []))} in {what}"
    ),
    "browser_press_key": lambda args, what: f"pressed {args.get('key', '')}",
    "browser_navigate_back": lambda args, what: "went back",
    "browser_wait_for": lambda args, what: f'waited for "{args.get("text", "")}"',
    "browser_snapshot": lambda args, what: "read the page",
    "extract_data": lambda args, what: f"noted {args.get('name', '')}",
}


def describe(record: Mapping[str, Any]) -> str:
    """One action as a phrase, with how it went."""
    args = record.get("args") or {}
    what = record.get("label") or str(args.get("target", "an element"))
    tool = record.get("tool", "")
    phrase = _PHRASES.get(tool, lambda args, what: f"called {tool}")(args, what)
    if record.get("ok"):
        return phrase
    return f"{phrase}: FAILED ({str(record.get('result') or '')[:160]})"


def actions_block(records: Sequence[Mapping[str, Any]], max_tokens: int) -> str:
    """The newest actions that fit in `max_tokens`, numbered from the first, oldest first."""
    lines: list[str] = []
    used = 0
    for number in range(len(records), 0, -1):
        line = f"{number}. {describe(records[number - 1])}"
        used += estimate_tokens(line) + 1
        if used > max_tokens and lines:
            break
        lines.append(line)
    if not lines:
        return "Actions so far: none.\n"
    skipped = len(records) - len(lines)
    head = f"Actions so far ({skipped} older not shown):" if skipped else "Actions so far:"
    return "\n".join([head, *reversed(lines)]) + "\n"
