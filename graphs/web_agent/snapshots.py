"""Page snapshots as the Agent sees them.

Playwright MCP snapshots are YAML accessibility trees. Two parts of each line carry nothing the
agent can act on: `- /url: ...` children of links (the agent clicks the link's ref, never its
URL) and `[cursor=pointer]` markers. Dropping them shrank a WebShop result page from about
1,165 to 944 estimated tokens (docs/agents/web_agent.md).
"""

from __future__ import annotations

import re

_PAGE_URL = re.compile(r"^- Page URL: (\S+)", re.M)
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
