"""Search for agents: BM25 over a local folder of documents offline, Tavily when configured.

Without `TAVILY_API_KEY` an agent still has a search tool that works with no network: BM25
over `$OLG_SEARCH_DOCS` (a folder, searched recursively for .md/.txt/.rst files) or, by
default, this project's own `docs/` and `README.md`. The ranking reuses the Lucene-style BM25
of the WebShop environment (k1=0.9, b=0.4, English stemming and stop words).

An index is built once per folder and kept; it is rebuilt when a file in the folder is added,
removed or modified (checked by size and mtime on each search, which costs one `stat` a file).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from open_langgraph.envs.webshop.search import SearchIndex
from open_langgraph.tools.documents import Passage, document_files, passages
from open_langgraph.tools.tavily import TavilyError, tavily_search

DOCS_ENV_VAR = "OLG_SEARCH_DOCS"
TAVILY_KEY_ENV_VAR = "TAVILY_API_KEY"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
MAX_RESULTS_LIMIT = 50


class SearchResult(TypedDict):
    title: str
    url: str
    content: str
    score: float


class SearchError(RuntimeError):
    """The search cannot run: a bad argument, no documents to search, or Tavily failed."""


def search(query: str, max_results: int = 5) -> list[SearchResult]:
    """The best `max_results` documents for `query`, best first.

    Tavily when `TAVILY_API_KEY` is set, else BM25 over `$OLG_SEARCH_DOCS` or the project's
    docs. An empty list means nothing matched.

    Raises:
        SearchError: empty query, `max_results` outside 1..50, nothing to search, Tavily failed.
    """
    if not isinstance(query, str) or not query.strip():
        raise SearchError("the search query is empty")
    if isinstance(max_results, bool) or not isinstance(max_results, int):
        raise SearchError(f"max_results must be an integer, got {max_results!r}")
    if not 1 <= max_results <= MAX_RESULTS_LIMIT:
        raise SearchError(f"max_results must be between 1 and {MAX_RESULTS_LIMIT}")
    api_key = os.environ.get(TAVILY_KEY_ENV_VAR, "").strip()
    if api_key:
        return _search_tavily(query, max_results, api_key)
    return local_search(query, max_results)


def local_search(
    query: str, max_results: int = 5, folder: Path | None = None
) -> list[SearchResult]:
    """BM25 over `folder` (default: `$OLG_SEARCH_DOCS`, else the project's docs)."""
    index = _index_for(folder or _default_folder())
    return index.search(query, max_results)


def _search_tavily(query: str, max_results: int, api_key: str) -> list[SearchResult]:
    try:
        found = tavily_search(query, max_results, api_key)
    except TavilyError as exc:
        raise SearchError(str(exc)) from exc
    return [
        SearchResult(
            title=str(item.get("title") or ""),
            url=str(item.get("url") or ""),
            content=str(item.get("content") or ""),
            score=float(item.get("score") or 0.0),
        )
        for item in found[:max_results]
    ]


def _default_folder() -> Path | None:
    """`$OLG_SEARCH_DOCS`, or None for the project's docs/ plus README.md."""
    configured = os.environ.get(DOCS_ENV_VAR, "").strip()
    if not configured:
        return None
    folder = Path(configured).expanduser()
    if not folder.exists():
        raise SearchError(f"{DOCS_ENV_VAR}={configured!r} does not exist")
    return folder.resolve()


def _sources(folder: Path | None) -> list[tuple[Path, Path]]:
    """(file, the folder its url is relative to) for every document to index."""
    if folder is not None:
        base = folder if folder.is_dir() else folder.parent
        return [(file, base) for file in document_files(folder)]
    sources = [(file, PROJECT_ROOT) for file in document_files(PROJECT_ROOT / "docs")]
    readme = PROJECT_ROOT / "README.md"
    if readme.is_file():
        sources.insert(0, (readme, PROJECT_ROOT))
    return sources


@dataclass
class DocumentIndex:
    """A BM25 index over the passages of some files, and the file versions it was built from."""

    fingerprint: tuple[tuple[str, int, int], ...]
    passages: list[Passage]
    index: SearchIndex | None

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        if self.index is None:
            return []
        return [
            SearchResult(
                title=self.passages[int(i)].title,
                url=self.passages[int(i)].url,
                content=self.passages[int(i)].content,
                score=round(score, 4),
            )
            for i, score in self.index.search(query, k=max_results)
        ]


_indexes: dict[Path | None, DocumentIndex] = {}
_lock = threading.Lock()


def _fingerprint(sources: list[tuple[Path, Path]]) -> tuple[tuple[str, int, int], ...]:
    stats = []
    for file, _ in sources:
        stat = file.stat()
        stats.append((str(file), stat.st_size, stat.st_mtime_ns))
    return tuple(stats)


def _index_for(folder: Path | None) -> DocumentIndex:
    sources = _sources(folder)
    if not sources:
        where = folder or PROJECT_ROOT / "docs"
        raise SearchError(
            f"no .md, .txt or .rst documents to search in {where}; "
            f"point {DOCS_ENV_VAR} at a folder of documents"
        )
    fingerprint = _fingerprint(sources)
    with _lock:
        cached = _indexes.get(folder)
        if cached is not None and cached.fingerprint == fingerprint:
            return cached
        found: list[Passage] = []
        for file, base in sources:
            found.extend(passages(file, file.relative_to(base).as_posix()))
        # Ids are zero-padded positions, so equal scores keep document order.
        width = len(str(len(found)))
        index = (
            SearchIndex(
                [f"{p.title}\n{p.content}" for p in found],
                [f"{i:0{width}d}" for i in range(len(found))],
            )
            if found
            else None
        )
        built = DocumentIndex(fingerprint, found, index)
        _indexes[folder] = built
        return built
