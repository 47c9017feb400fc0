"""Search for agents: BM25 over a local folder of documents offline, Tavily when configured.

Without `TAVILY_API_KEY` an agent still has a search tool that works with no network: BM25
over `$OLG_SEARCH_DOCS` (a folder, searched recursively for .md/.txt/.rst files) or, by
default, this project's own `docs/` and `README.md`. The ranking reuses the Lucene-style BM25
of the WebShop environment (k1=0.9, b=0.4, English stemming and stop words), twice: once over
each passage's text and once over its heading path, the second counted `HEADING_WEIGHT` times,
because a section named for the question ("PostgreSQL") is the answer far more often than a
passage that mentions the word in passing. Question words ("how do I use ...") are dropped from
the query first: they are not Lucene stop words, and in docs written as how-tos they matched
every "Use" and "How it works" heading.

An index is built once per folder and kept; it is rebuilt when a file in the folder is added,
removed or modified (checked by size and mtime on each search, which costs one `stat` a file).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypedDict

from graphs.toolkit.search._documents import Passage, document_files, passages
from graphs.toolkit.search._focus import focus_tables
from graphs.toolkit.search._results import ShownResult, format_results
from graphs.toolkit.search._tavily import TavilyError, tavily_search
from open_langgraph.envs.webshop.lucene import EnglishAnalyzer
from open_langgraph.envs.webshop.search import SearchIndex

DOCS_ENV_VAR = "OLG_SEARCH_DOCS"
TAVILY_KEY_ENV_VAR = "TAVILY_API_KEY"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
MAX_RESULTS_LIMIT = 50
HEADING_WEIGHT = 1.5
PER_SECTION = 2
_QUESTION_TEXT = """how do does did i you we my me what which who whom where when why can could
should would use using used please tell show find want need way"""
QUESTION_WORDS = frozenset(_QUESTION_TEXT.split())


class SearchResult(TypedDict):
    title: str
    url: str
    content: str
    score: float


class SearchError(RuntimeError):
    """The search cannot run: a bad argument, no documents to search, or Tavily failed."""


def web_search_configured() -> bool:
    """Whether `search` goes to the web (Tavily) rather than the local documents."""
    return bool(os.environ.get(TAVILY_KEY_ENV_VAR, "").strip())


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
    """BM25 indexes over the text and the heading paths of some files' passages, and the file
    versions they were built from."""

    fingerprint: tuple[tuple[str, int, int], ...]
    passages: list[Passage]
    text_index: SearchIndex | None
    heading_index: SearchIndex | None

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        if self.text_index is None or self.heading_index is None:
            return []
        terms = query_terms(query)
        everything = len(self.passages)
        scores: dict[int, float] = {}
        for index, weight in ((self.text_index, 1.0), (self.heading_index, HEADING_WEIGHT)):
            for i, score in index.search(terms, k=everything):
                scores[int(i)] = scores.get(int(i), 0.0) + weight * score
        # Best first; equal scores keep document order. At most `PER_SECTION` passages of one
        # section, so a long section does not push every other candidate out of the answer.
        ranked: list[tuple[int, float]] = []
        per_section: dict[str, int] = {}
        for i, score in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
            url = self.passages[i].url
            if per_section.get(url, 0) < PER_SECTION and len(ranked) < max_results:
                per_section[url] = per_section.get(url, 0) + 1
                ranked.append((i, score))
        return [
            SearchResult(
                title=self.passages[i].title,
                url=self.passages[i].url,
                content=self.passages[i].content,
                score=round(score, 4),
            )
            for i, score in ranked
        ]


def interleaved(rankings: list[list[SearchResult]], limit: int) -> list[SearchResult]:
    """The rankings' results taken in turn (first of each, then second of each, ...), each
    passage once, at most `limit`: every ranking's best result makes the cut."""
    seen: set[tuple[str, str]] = set()
    merged: list[SearchResult] = []
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking):
                key = (ranking[rank]["url"], ranking[rank]["content"])
                if key not in seen:
                    seen.add(key)
                    merged.append(ranking[rank])
    return merged[:limit]


def shown(results: list[SearchResult], query: str) -> str:
    """`results` as the model reads them: numbered, with sources, and each table cut to the
    rows that match `query` (`_focus.py`)."""
    terms = query_terms(query)
    return format_results(
        ShownResult(r["title"], r["url"], focus_tables(r["content"], terms, _analyzer()))
        for r in results
    )


@cache
def _analyzer() -> EnglishAnalyzer:
    """The search's own stemming, so a table row matches the query as a passage does."""
    return EnglishAnalyzer()


def query_terms(query: str) -> str:
    """The query without its question words; a query of question words only is kept whole, so
    it still searches."""
    return " ".join(w for w in _words(query) if w.lower() not in QUESTION_WORDS) or query


def _words(query: str) -> list[str]:
    return re.findall(r"[\w$.\-]+", query)


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
        ids = [f"{i:0{width}d}" for i in range(len(found))]
        text_index = SearchIndex([p.content for p in found], ids) if found else None
        heading_index = (
            SearchIndex([" ".join(p.headings) or p.title for p in found], ids) if found else None
        )
        built = DocumentIndex(fingerprint, found, text_index, heading_index)
        _indexes[folder] = built
        return built
