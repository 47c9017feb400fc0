"""The evaluation harness on the demo catalog with a fake model: per-episode metrics, the
labelled summary, resuming from the results file, the ReAct baseline, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.cli import main
from open_langgraph.evals import EvalSettings, format_summary, run_eval
from open_langgraph.evals.harness import read_results
from tests.agents.laser.fakes import FirstChoiceChatModel


def _settings(tmp_path: Path, **overrides) -> EvalSettings:
    values = {"agent": "laser", "model": "fake/first-choice", "n": 2, "out": tmp_path / "r.jsonl"}
    values.update(overrides)
    return EvalSettings(**values)


def test_laser_episodes_are_measured_and_summarised(tmp_path: Path, capsys) -> None:
    summary = run_eval(_settings(tmp_path), model=FirstChoiceChatModel())
    rows = read_results(tmp_path / "r.jsonl")
    assert [r["goal_index"] for r in rows] == [0, 1]
    first = rows[0]
    # Search, open the first result, buy it: three transitions of one call each (the thought
    # rides in the call).
    assert first["steps"] == 3
    assert first["llm_calls"] == 2  # the first search asks the model nothing
    assert first["prompt_tokens"] == 200
    assert first["completion_tokens"] == 20
    assert first["invalid_actions"] == 0
    assert first["backup_fired"] is False
    assert first["bought"] is True
    assert 0 < first["reward"] <= 1
    assert first["success"] == (first["reward"] == 1.0)
    assert first["catalog"] == "demo" and first["goals"] == "synthetic"
    assert summary["label"] == "laser / fake/first-choice on demo, synthetic goals 0-1"
    assert summary["episodes"] == 2
    assert summary["score"] == pytest.approx(50 * sum(r["reward"] for r in rows))
    assert summary["mean_llm_calls"] == 2
    assert "laser synthetic 0-1" in capsys.readouterr().err  # the progress bar
    assert "score" in format_summary(summary)


def test_resume_skips_finished_episodes(tmp_path: Path) -> None:
    run_eval(_settings(tmp_path, n=2), model=FirstChoiceChatModel())
    model = FirstChoiceChatModel()
    summary = run_eval(_settings(tmp_path, n=3), model=model)
    rows = read_results(tmp_path / "r.jsonl")
    assert [r["goal_index"] for r in rows] == [0, 1, 2]  # only goal 2 was run again
    assert summary["episodes"] == 3
    # A torn last line from an interrupted write is ignored and its episode re-run.
    with (tmp_path / "r.jsonl").open("a") as f:
        f.write('{"agent": "laser", "goal_ind')
    summary = run_eval(_settings(tmp_path, start=3, n=1), model=model)
    assert summary["label"].endswith("synthetic goals 3-3")


def test_other_agents_results_in_the_same_file_are_not_reused(tmp_path: Path) -> None:
    run_eval(_settings(tmp_path, n=1), model=FirstChoiceChatModel())
    run_eval(
        _settings(tmp_path, n=1, agent="react", agent_settings={"max_steps": 3}),
        model=FirstChoiceChatModel(),
    )
    agents = [r["agent"] for r in read_results(tmp_path / "r.jsonl")]
    assert agents == ["laser", "react"]


def test_react_baseline_runs_on_the_same_goals(tmp_path: Path) -> None:
    summary = run_eval(
        _settings(tmp_path, agent="react", n=2, concurrency=2, agent_settings={"max_steps": 4}),
        model=FirstChoiceChatModel(),
    )
    rows = read_results(tmp_path / "r.jsonl")
    assert sorted(r["goal_index"] for r in rows) == [0, 1]
    for row in rows:
        assert row["agent"] == "react"
        assert row["llm_calls"] == row["steps"] <= 4
        assert row["invalid_actions"] == 0
    assert summary["label"].startswith("react / fake/first-choice on demo")


def test_concurrent_episodes_keep_separate_sessions(tmp_path: Path) -> None:
    run_eval(_settings(tmp_path, n=4, concurrency=3), model=FirstChoiceChatModel())
    rows = read_results(tmp_path / "r.jsonl")
    by_goal = {r["goal_index"]: r for r in rows}
    assert sorted(by_goal) == [0, 1, 2, 3]
    assert all(r["steps"] == 3 and r["error"] is None for r in rows)
    instructions = {r["instruction"] for r in rows}
    assert len(instructions) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n", "0"], "--n"),
        (["--start", "5000"], "has 370 synthetic goals"),
        (["--concurrency", "0"], "--concurrency"),
        (["--data", "/nonexistent/catalog"], "no such catalog"),
    ],
)
def test_cli_rejects_bad_input_with_a_message(
    tmp_path: Path, capsys, args: list[str], message: str
) -> None:
    code = main(["eval", "webshop", "--out", str(tmp_path / "x.jsonl"), *args])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_cli_reports_an_unknown_model_cleanly(tmp_path: Path, capsys) -> None:
    code = main(["eval", "webshop", "--model", "local/nope", "--out", str(tmp_path / "x.jsonl")])
    assert code == 2
    assert "unknown local model" in capsys.readouterr().err


def test_results_file_lines_are_json_records(tmp_path: Path) -> None:
    run_eval(_settings(tmp_path, n=1), model=FirstChoiceChatModel())
    line = (tmp_path / "r.jsonl").read_text().splitlines()[0]
    record = json.loads(line)
    for key in (
        "reward",
        "success",
        "steps",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "invalid_actions",
        "backup_fired",
        "goal_index",
        "instruction",
        "seconds",
    ):
        assert key in record
