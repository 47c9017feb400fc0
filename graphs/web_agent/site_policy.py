"""Where the agent's browser may go: the sites of the task, unless the run names others.

A page the agent reads can tell the model to go anywhere: to the server's own API on
127.0.0.1, a router's admin page, a cloud metadata endpoint, a `file://` URL. So navigation is
limited to an allow-list of origins (`scheme://host[:port]`):

* the run's context `allowed_origins`, when given (`"*"` allows every http(s) site,
  `"https://*.example.com"` the subdomains of one);
* else the origins of the URLs the person wrote: the task and their answers to the
  clarifying questions;
* else (a task naming no URL) the origin of the agent's first navigation, which it chooses
  from the task before it has read any page.

A navigation outside the list is refused before the browser moves, and a click or redirect
that lands outside it is undone (the browser goes back); either way the model gets the refusal
as the tool's error. Non-http(s) URLs (`file:`, `chrome:`, `javascript:`) are always refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

_URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>()\[\]{}]+", re.IGNORECASE)
_DEFAULT_PORTS = {"http": 80, "https": 443}
BLANK_PAGE = "about:blank"


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` of an http(s) URL (default port dropped), else None."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def normalize_entry(entry: str) -> str:
    """An `allowed_origins` entry as compared: `*`, or an origin (a path is ignored)."""
    if entry.strip() == "*":
        return "*"
    origin = origin_of(entry.strip().replace("*.", "wildcard-label.", 1))
    if origin is None:
        raise ValueError(
            f"allowed_origins entries must be http(s) origins such as https://example.com "
            f'or "*", got {entry!r}'
        )
    return origin.replace("wildcard-label.", "*.", 1)


def named_urls(texts: Iterable[str]) -> list[str]:
    """The http(s) URLs written in `texts`, first seen first, trailing punctuation dropped."""
    found: list[str] = []
    for text in texts:
        for match in _URL_IN_TEXT.finditer(text):
            url = match.group(0).rstrip(".,;:!?")
            if origin_of(url) is not None and url not in found:
                found.append(url)
    return found


def named_origins(texts: Iterable[str]) -> list[str]:
    """The origins of the URLs written in `texts`, first seen first."""
    found: list[str] = []
    for url in named_urls(texts):
        origin = origin_of(url)
        if origin is not None and origin not in found:
            found.append(origin)
    return found


@dataclass(frozen=True, slots=True)
class SitePolicy:
    """The origins the browser may load; None: the next navigation chooses the site."""

    origins: tuple[str, ...] | None

    def allows(self, url: str) -> bool:
        if url.strip() == BLANK_PAGE:
            return True
        origin = origin_of(url)
        if origin is None:
            return False
        if self.origins is None or "*" in self.origins:
            return True
        return any(_matches(entry, origin) for entry in self.origins)

    def refusal(self, url: str) -> str | None:
        """Why the browser may not go to `url` (the text the model sees), or None."""
        if self.allows(url):
            return None
        if origin_of(url) is None:
            return f"refused: {url[:200]!r} is not an http(s) address; only web pages may be opened"
        sites = ", ".join(self.origins or ()) or "none"
        return (
            f"refused: {url[:200]} is outside the sites this task may visit ({sites}); "
            "stay on them (the run's context allowed_origins can allow more)"
        )


def _matches(entry: str, origin: str) -> bool:
    if "*." not in entry:
        return entry == origin
    scheme, pattern = entry.split("://", 1)
    suffix = pattern.split("*.", 1)[1]
    got_scheme, host = origin.split("://", 1)
    return got_scheme == scheme and host.endswith("." + suffix)


def site_policy(
    allowed_origins: Sequence[str] | None,
    task: str,
    clarifications: Sequence[Mapping[str, Any]],
    action_history: Sequence[Mapping[str, Any]],
) -> SitePolicy:
    """The run's allow-list, as the module docstring orders the sources."""
    if allowed_origins is not None:
        return SitePolicy(tuple(normalize_entry(entry) for entry in allowed_origins))
    answers = [str(c.get("answer") or "") for c in clarifications]
    named = named_origins([task, *answers])
    if named:
        return SitePolicy(tuple(named))
    for action in action_history:
        if action.get("tool") == "browser_navigate" and action.get("ok"):
            origin = origin_of(str((action.get("args") or {}).get("url", "")))
            if origin is not None:
                return SitePolicy((origin,))
    return SitePolicy(None)
