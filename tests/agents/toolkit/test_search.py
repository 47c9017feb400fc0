"""The shared offline search: BM25 over a folder of documents, cached; Tavily when configured."""

from __future__ import annotations

import importlib
import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from langgraph.prebuilt import ToolRuntime

from graphs.toolkit.search import SearchError, search
from graphs.toolkit.search import _tavily as tavily_module

# The package exports the function `search`, which hides the module of the same name.
search_module = importlib.import_module("graphs.toolkit.search")

GARDEN = """# Gardening notes

Intro text about the garden.

## Tomatoes

Tomatoes need full sun and deep watering twice a week.

```python
# Not a heading: a comment inside a code fence about tomatoes
plant("tomato")
```

## Roses

Prune roses in late winter, just before new growth starts.
"""


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "garden.md").write_text(GARDEN)
    (folder / "sub" / "kitchen.txt").write_text("Bread dough rises in a warm kitchen.\n")
    (folder / "image.png").write_bytes(b"\x89PNG not a document")
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(folder))
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    return folder


def test_best_passage_first_with_section_title_and_anchor(docs: Path) -> None:
    results = search("when should I prune roses?", max_results=2)
    assert results[0]["title"] == "Gardening notes: Roses"
    assert results[0]["url"] == "garden.md#roses"
    assert "late winter" in results[0]["content"]
    assert set(results[0]) == {"title", "url", "content", "score"}
    assert results[0]["score"] > 0
    assert all(a["score"] >= b["score"] for a, b in itertools.pairwise(results))


def test_code_fence_comments_are_not_headings(docs: Path) -> None:
    [tomatoes] = search("tomatoes full sun", max_results=1)
    assert tomatoes["title"] == "Gardening notes: Tomatoes"
    assert 'plant("tomato")' in tomatoes["content"]


def test_plain_text_files_in_subfolders_are_searched(docs: Path) -> None:
    [hit] = search("bread dough", max_results=1)
    assert hit["url"] == "sub/kitchen.txt"


def test_a_file_marked_not_searched_is_left_out(docs: Path) -> None:
    (docs / "log.md").write_text(
        "# Measurements\n<!-- search: skip -->\n\nBread dough questions asked: 12.\n"
    )
    assert [hit["url"] for hit in search("bread dough", max_results=5)] == ["sub/kitchen.txt"]


def test_no_match_is_an_empty_list(docs: Path) -> None:
    assert search("quantum chromodynamics") == []


def test_index_is_built_once_and_rebuilt_when_a_file_changes(docs: Path) -> None:
    search("roses")
    first = search_module._indexes[docs.resolve()]
    search("tomatoes")
    assert search_module._indexes[docs.resolve()] is first
    (docs / "new.md").write_text("# Orchids\n\nOrchids like bright indirect light.\n")
    assert search("orchids light", max_results=1)[0]["url"] == "new.md#orchids"
    assert search_module._indexes[docs.resolve()] is not first


def test_default_corpus_is_the_project_docs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLG_SEARCH_DOCS", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    results = search("multitask_strategy enqueue reject rollback", max_results=5)
    assert results
    assert any(r["url"].startswith(("README.md", "docs/")) for r in results)


MANUAL = """# Pump manual

## Setup

### Wiring

Connect the red wire to the pump terminal. Wiring mistakes void the warranty.

## Troubleshooting

If the pump hums, check the wiring first, then the wiring again; the wiring is usually it.
The wiring diagram is on the lid. Wiring, wiring, wiring.

## Warranty

Two years.
""" + "\n\n".join(f"Warranty detail {n}: keep the receipt." for n in range(400))


@pytest.fixture
def manual(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "pump.md").write_text(MANUAL)
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(folder))
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    return folder


def test_a_passage_carries_its_heading_path(manual: Path) -> None:
    [hit] = search("red wire terminal", max_results=1)
    assert hit["title"] == "Pump manual: Setup: Wiring"
    assert hit["url"] == "pump.md#wiring"


def test_a_section_named_for_the_query_beats_passing_mentions(manual: Path) -> None:
    # "Troubleshooting" says "wiring" seven times; the section called "Wiring" still wins.
    results = search("how do I do the wiring?", max_results=2)
    assert [r["url"] for r in results] == ["pump.md#wiring", "pump.md#troubleshooting"]


def test_one_long_section_fills_at_most_two_places(manual: Path) -> None:
    results = search("warranty receipt", max_results=5)
    urls = [r["url"] for r in results]
    assert urls.count("pump.md#warranty") == 2
    assert len(results) == 3 and "pump.md#wiring" in urls


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how do I use PostgreSQL?", "docs/server.md#postgresql"),
        ("how do webhooks work?", "docs/server.md#webhooks"),
        ("how do I encrypt data at rest?", "docs/server.md#encryption"),
        ("where are the Prometheus metrics?", "docs/observability.md#prometheus-get-metrics"),
        ("how do I connect LangGraph Studio?", "docs/clients.md#langgraph-studio"),
        ("how do crons work?", "docs/crons.md#crons"),
    ],
)
def test_questions_about_the_project_find_their_section(
    monkeypatch: pytest.MonkeyPatch, query: str, expected: str
) -> None:
    monkeypatch.delenv("OLG_SEARCH_DOCS", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    results = search(query, max_results=3)
    assert results[0]["url"] == expected
    assert all(r["title"] != "Observability: Tests" for r in results)


def test_the_agents_search_tool_gives_each_passage_its_source(docs: Path) -> None:
    from graphs.react_agent.tools import search_tool

    runtime = ToolRuntime(
        state={},
        context=None,
        config={},
        stream_writer=lambda _: None,
        tool_call_id="s1",
        store=None,
    )
    found = search_tool.func("when should I prune roses?", runtime)  # type: ignore[misc]
    assert found.startswith("[1] Gardening notes: Roses (source: garden.md#roses)\n")
    assert "late winter" in found


@pytest.mark.parametrize(
    ("query", "max_results", "message"),
    [
        ("  ", 5, "query is empty"),
        ("roses", 0, "between 1 and 50"),
        ("roses", 51, "between 1 and 50"),
        ("roses", "3", "must be an integer"),
    ],
)
def test_bad_arguments_are_clear_errors(
    docs: Path, query: str, max_results: Any, message: str
) -> None:
    with pytest.raises(SearchError, match=message):
        search(query, max_results=max_results)


def test_missing_or_empty_folder_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path / "nowhere"))
    with pytest.raises(SearchError, match="does not exist"):
        search("roses")
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path / "empty"))
    with pytest.raises(SearchError, match=r"no \.md, \.txt or \.rst documents"):
        search("roses")


class _TavilyStandIn(BaseHTTPRequestHandler):
    """Answers like Tavily's /search and remembers the request, for the HTTP client's test."""

    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"body": body, "auth": self.headers.get("Authorization")})
        if self.headers.get("Authorization") != "Bearer tvly-good":
            self.send_response(401)
            self.end_headers()
            self.wfile.write(b'{"detail": "Unauthorized: missing or invalid API key."}')
            return
        answer = {
            "query": body["query"],
            "results": [
                {"title": "A", "url": "https://a.example", "content": "alpha", "score": 0.9},
                {"title": "B", "url": "https://b.example", "content": "beta", "score": 0.5},
            ],
        }
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(answer).encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def tavily_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _TavilyStandIn)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/search"
    monkeypatch.setattr(tavily_module, "TAVILY_URL", url)
    _TavilyStandIn.requests = []
    yield url
    server.shutdown()


def test_tavily_is_used_when_its_key_is_set(
    tavily_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-good")
    results = search("alpha", max_results=1)
    assert results == [{"title": "A", "url": "https://a.example", "content": "alpha", "score": 0.9}]
    assert _TavilyStandIn.requests[0]["body"] == {"query": "alpha", "max_results": 1}


def test_tavily_refusal_is_a_clear_error(tavily_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-bad")
    with pytest.raises(SearchError, match=r"HTTP 401.*invalid API key"):
        search("alpha")


def test_unreachable_tavily_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-good")
    monkeypatch.setattr(tavily_module, "TAVILY_URL", "http://127.0.0.1:9/search")
    with pytest.raises(SearchError, match="could not be reached"):
        search("alpha")
