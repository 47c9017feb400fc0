"""Tables in search results reach the model as named cells, long ones as the rows that match
the query; the row the question needs is never among the ones left out."""

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
        "Which variable sets how long a worker's claim lasts?",
        runtime=type("Runtime", (), {"context": None, "config": {}})(),
    )
    assert "variable: `OLG_LEASE_SECONDS`; meaning: how long a worker's claim lasts" in found
    assert "more rows of this table not shown" in found
    assert "OLG_HOST" not in found
