"""The Agent's own actions, told back to it in words.

The prompt shows what was done as a short numbered list ("clicked link "Buy Now"") instead of
the raw tool calls. Refs are not repeated: a ref names an element of the page it was read on
only, and the 1.5B model, shown its earlier calls, copied them, clicking the first page's
`e7` on every page after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphs.web_agent.context_budget import estimate_tokens


def describe(record: Mapping[str, Any]) -> str:
    """One action as a phrase, with how it went."""
    args = record.get("args") or {}
    what = record.get("label") or str(args.get("target", "an element"))
    tool = record.get("tool", "")
    if tool == "browser_navigate":
        phrase = f"opened {args.get('url', '')}"
    elif tool == "browser_click":
        phrase = f"clicked {what}"
    elif tool == "browser_type":
        enter = " and pressed Enter" if args.get("submit") else ""
        phrase = f'typed "{args.get("text", "")}" into {what}{enter}'
    elif tool == "browser_select_option":
        phrase = f"chose {', '.join(map(str, args.get('values') or []))} in {what}"
    elif tool == "browser_press_key":
        phrase = f"pressed {args.get('key', '')}"
    elif tool == "browser_navigate_back":
        phrase = "went back"
    elif tool == "browser_wait_for":
        phrase = f'waited for "{args.get("text", "")}"'
    elif tool == "extract_data":
        phrase = f"noted {args.get('name', '')}"
    elif tool == "browser_snapshot":
        phrase = "read the page"
    else:
        phrase = f"called {tool}"
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
