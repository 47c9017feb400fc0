"""Long tables in search results reach the model as their header and the rows that match the
query; the row the question needs is never among the ones left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphs.react_agent import tools as react_tools
from open_langgraph.envs.webshop.lucene import EnglishAnalyzer
from open_langgraph.tools.passage_focus import focus_tables

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


def test_a_long_table_keeps_its_header_and_the_matching_rows_in_order() -> None:
    focused = focus_tables(TABLE, "threads embedded model", EnglishAnalyzer(), keep=2)
    lines = focused.split("\n")
    assert lines[:4] == ["Settings of the server:", "", *TABLE.split("\n")[2:4]]
    assert "OLG_MODEL_THREADS" in lines[4]
    assert "(6 more rows of this table not shown)" in lines  # only the matching row kept
    assert lines[-2:] == ["", "Every setting has a flag too."]
    assert "OLG_PORT" not in focused


def test_tables_are_kept_whole_when_short_or_when_no_row_matches() -> None:
    analyzer = EnglishAnalyzer()
    assert focus_tables(TABLE, "threads", analyzer, keep=len(SETTINGS)) == TABLE
    assert focus_tables(TABLE, "pelican", analyzer, keep=2) == TABLE
    assert focus_tables("No table here.\n\nJust prose.", "prose", analyzer) == (
        "No table here.\n\nJust prose."
    )


def test_the_search_tool_shows_the_row_a_question_needs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "settings.md").write_text(f"# Settings\n\n{TABLE}\n")
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(tmp_path))
    found = react_tools.search_tool.func(
        "Which variable sets how long a worker's claim lasts?",
        runtime=type("Runtime", (), {"context": None, "config": {}})(),
    )
    assert "`OLG_LEASE_SECONDS` | how long a worker's claim lasts | `5`" in found
    assert "more rows of this table not shown" in found
    assert "OLG_HOST" not in found
