"""`olg eval report`: results files of two agents become a table in a Markdown page (its prose
kept) and a PNG of the reward per goal; own and backup successes are counted apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.cli import main
from open_langgraph.evals.report import BEGIN, END
from open_langgraph.evals.summary import summarize


def _row(agent: str, goal: int, reward: float, backup: bool, **extra: object) -> dict:
    return {
        "agent": agent,
        "model": "local/qwen2.5-coder-1.5b",
        "catalog": "1k",
        "goals": "synthetic",
        "goal_index": goal,
        "reward": reward,
        "bought": True,
        "backup_fired": backup,
        "steps": 10,
        "llm_calls": 10,
        "prompt_tokens": 1000,
        "cached_prompt_tokens": 750,
        "seconds": 100.0 + goal,
        "error": None,
        **extra,
    }


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_own_and_backup_successes_are_counted_apart() -> None:
    rows = [_row("laser", 0, 1.0, False), _row("laser", 1, 1.0, True), _row("laser", 2, 0.5, True)]
    summary = summarize(rows)
    assert summary["success_rate"] == pytest.approx(200 / 3)
    assert summary["own_success_rate"] == pytest.approx(100 / 3)
    assert summary["backup_success_rate"] == pytest.approx(100 / 3)
    assert summary["cache_reuse_rate"] == 75
    assert summary["median_seconds"] == 101


def test_report_fills_the_page_between_its_markers_and_draws_the_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    laser = _write(
        tmp_path / "laser.jsonl",
        [_row("laser", 0, 1.0, False), _row("laser", 1, 0.5, True)],
    )
    react = _write(
        tmp_path / "react.jsonl",
        [
            _row("react", 0, 0.25, False),
            _row("react", 1, 0.0, False, error="TimeoutError: slow machine"),
        ],
    )
    page = tmp_path / "docs" / "results.md"
    page.parent.mkdir()
    page.write_text(f"# Results\n\nProse stays.\n\n{BEGIN}\nold table\n{END}\n\nMore prose.\n")
    png = tmp_path / "docs" / "reward.png"

    code = main(["eval", "report", str(laser), str(react), "--md", str(page), "--plot", str(png)])

    assert code == 0
    text = page.read_text()
    assert "Prose stays." in text and "More prose." in text and "old table" not in text
    assert (
        "| laser / local/qwen2.5-coder-1.5b | synthetic 0-1 (2) | 75.0 | 50% | 50% | 0% |" in text
    )
    # The errored episode is left out: it is re-run on resume, not scored as a zero.
    assert "| react / local/qwen2.5-coder-1.5b | synthetic 0-0 (1) | 25.0 | 0% |" in text
    assert "![Reward per goal](reward.png)" in text
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "| laser /" in capsys.readouterr().out


def test_report_refuses_a_page_without_markers_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _write(tmp_path / "r.jsonl", [_row("laser", 0, 1.0, False)])
    page = tmp_path / "page.md"
    page.write_text("# A page someone wrote\n")
    assert main(["eval", "report", str(results), "--md", str(page)]) == 2
    assert "no <!-- eval-report:begin -->" in capsys.readouterr().err
    assert page.read_text() == "# A page someone wrote\n"
    assert main(["eval", "report", str(tmp_path / "missing.jsonl")]) == 2
    assert "no results file" in capsys.readouterr().err
