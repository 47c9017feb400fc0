"""Tables in search results reach the model as named cells, long ones as the rows that match
the query; the row the question needs is never among the ones left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.prebuilt import ToolRuntime

from graphs.react_agent import tools as react_tools
from graphs.toolkit.search import SearchResult, interleaved
from graphs.toolkit.search._focus import focus_tables
from open_langgraph.envs.webshop.lucene import EnglishAnalyzer

SETTINGS = [
    ("OLG_PORT", "port the server listens on", "8123"),
    ("OLG_HOST", "address the server binds", "127.0.0.1"),
    ("OLG_LOG_LEVEL", "how much the log says", "INFO"),
    ("OLG_WORKERS", "worker children to start", "0"),
    ("OLG_LEASE_SECONDS", "how long a worker's claim lasts", "5"),
    ("OLG_MODEL_THREADS", "threads an embedded model computes with", "1"),
    ("OLG_MAX_ATTEMPTS", "attempts before a run fails", "3"),
]
TABLE = "\n".join(
    [
        "Settings of the server:",
        "",
        "| variable | meaning | default |",
        "| --- | --- | --- |",
        *(f"| `{name}` | {meaning} | `{default}` |" for name, meaning, default in SETTINGS),
        "",
        "Every setting has a flag too.",
    ]
)


def test_a_long_table_keeps_the_matching_rows_in_order_as_named_cells() -> None:
    focused = focus_tables(TABLE, "worker threads embedded model", EnglishAnalyzer(), keep=2)
    lines = focused.split("\n")
    assert lines[:2] == ["Settings of the server:", ""]
    assert lines[2:5] == [
        "- variable: `OLG_WORKERS`; meaning: worker children to start; default: `0`",
        "- variable: `OLG_MODEL_THREADS`; meaning: threads an embedded model computes with; "
        "default: `1`",
        "(5 more rows of this table not shown)",
    ]
    assert lines[-2:] == ["", "Every setting has a flag too."]
    assert "OLG_PORT" not in focused


def test_short_tables_and_tables_no_row_matches_are_kept_whole() -> None:
    analyzer = EnglishAnalyzer()
    for focused in (
        focus_tables(TABLE, "threads", analyzer, keep=len(SETTINGS)),
        focus_tables(TABLE, "pelican", analyzer, keep=2),
    ):
        assert "not shown" not in focused
        assert all(f"`{name}`" in focused for name, _, _ in SETTINGS)
        assert "- variable: `OLG_PORT`; meaning: port the server listens on; default: `8123`" in (
            focused
        )
    assert focus_tables("No table here.\n\nJust prose.", "prose", analyzer) == (
        "No table here.\n\nJust prose."
    )
    headless = "| a | b |\n| c | d |"
    assert focus_tables(headless, "a", analyzer) == headless


def test_the_search_tool_shows_the_row_a_question_needs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "settings.md").write_text(f"# Settings\n\n{TABLE}\n")
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path))
    found = react_tools.search_tool.func(
        "Which variable sets how long a worker's claim lasts?", runtime=runtime_asked()
    )
    assert "variable: `OLG_LEASE_SECONDS`; meaning: how long a worker's claim lasts" in found
    assert "more rows of this table not shown" in found
    assert "OLG_HOST" not in found


def runtime_asked(*human: str) -> ToolRuntime:
    """What the tool node hands a tool: the conversation so far (`human` messages) and no
    context."""
    return ToolRuntime(
        state={"messages": [HumanMessage(text) for text in human]},
        context=None,
        config={},
        stream_writer=lambda _: None,
        tool_call_id="s1",
        store=None,
    )


def test_the_users_question_is_searched_beside_the_models_query(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A small model's query drops the words that find the answer; the question has them."""
    (tmp_path / "lease.md").write_text("# Leases\n\nA claim lasts 5 seconds unless renewed.\n")
    (tmp_path / "workers.md").write_text("# Workers\n\nA worker process executes runs.\n")
    (tmp_path / "other.md").write_text("# Other\n\nA worker has a lease duration.\n")
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path))
    monkeypatch.setenv("MAX_SEARCH_RESULTS", "2")
    question = "How many seconds does a claim last by default?"
    found = react_tools.search_tool.func("worker", runtime=runtime_asked("Hi", question))
    titles = [line.split(" (source")[0] for line in found.splitlines() if line.startswith("[")]
    assert titles == ["[1] Leases", "[2] Workers"]  # the question's best, then the query's
    alone = react_tools.search_tool.func("worker", runtime=runtime_asked())
    assert "Leases" not in alone
    same = react_tools.search_tool.func(question, runtime=runtime_asked(question))
    assert same.count("[1]") == 1 and "Leases" in same.split("\n")[0]


def test_interleaving_takes_each_rankings_best_first_and_each_passage_once() -> None:
    def result(name: str) -> SearchResult:
        return SearchResult(title=name, url=f"doc://{name}", content=name, score=1.0)

    a, b, c, d = (result(name) for name in "abcd")
    assert interleaved([[a, b, c], [b, d]], 3) == [a, b, d]
    assert interleaved([[a], []], 3) == [a]
    assert interleaved([], 3) == []
