"""Page snapshots as the Agent sees them.

Playwright MCP snapshots are YAML accessibility trees. Two parts of each line carry nothing the
agent can act on: `- /url: ...` children of links (the agent clicks the link's ref, never its
URL) and `[cursor=pointer]` markers. Dropping them shrank a WebShop result page from about
1,165 to 944 estimated tokens (docs/agents/web_agent.md).
"""

from __future__ import annotations

import re

_PAGE_URL = re.compile(r"^- Page URL: (\S+)", re.M)
# An element line of the accessibility tree: `- link "Buy Now" [ref=e12]`, `- textbox [ref=e3]`.
_ELEMENT = re.compile(
    r"^\s*- (\w+)( \"(?:[^\"\\]|\\.)*\")?(?: \[[^\]]*\])*? \[ref=([\w-]+)\]", re.M
)
_URL_LINE = re.compile(r"^\s*- /url: .*\n?", re.M)
_CURSOR = re.compile(r" \[cursor=pointer\]")


def split_snapshot(text: str) -> tuple[str, str]:
    """(page URL, the YAML of the page) from a `browser_snapshot` result."""
    match = _PAGE_URL.search(text)
    url = match.group(1) if match else ""
    body = text.split("### Snapshot", 1)[-1] if "### Snapshot" in text else text
    body = body.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[-1]
    return url, body.removesuffix("```").strip()


def compact(snapshot: str) -> str:
    """The snapshot without link URLs and cursor markers."""
    return _CURSOR.sub("", _URL_LINE.sub("", snapshot))


def elements(snapshot: str) -> dict[str, str]:
    """Every ref of the page with what it is (`link "Buy Now"`, `textbox`), in page order."""
    return {m.group(3): f"{m.group(1)}{m.group(2) or ''}" for m in _ELEMENT.finditer(snapshot)}


def refs_with_roles(snapshot: str, roles: frozenset[str]) -> list[str]:
    """The refs of the page's elements of these ARIA roles, in page order."""
    return [m.group(3) for m in _ELEMENT.finditer(snapshot) if m.group(1) in roles]
