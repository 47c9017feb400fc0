"""Web search through Tavily's HTTP API, used when `TAVILY_API_KEY` is set.

Plain `urllib`, so the optional online search adds no dependency. The request and response
fields follow Tavily's `POST https://api.tavily.com/search` reference: `query`,
`max_results`, and `results[]` with `title`, `url`, `content`, `score`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

TAVILY_URL = "https://api.tavily.com/search"
TIMEOUT_SECONDS = 20.0


class TavilyError(RuntimeError):
    """Tavily could not be reached or refused the request."""


def tavily_search(query: str, max_results: int, api_key: str) -> list[dict[str, Any]]:
    """Tavily's results for `query`, as the `results` list of its answer."""
    body = json.dumps({"query": query, "max_results": max_results}).encode()
    request = urllib.request.Request(
        TAVILY_URL,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read(500).decode("utf-8", "replace")
        raise TavilyError(f"Tavily answered HTTP {exc.code}: {detail}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise TavilyError(f"Tavily could not be reached: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise TavilyError("Tavily's answer was not JSON") from exc
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise TavilyError("Tavily's answer has no 'results' list")
    return [r for r in results if isinstance(r, dict)]
