"""Offline replay: a recorded episode re-runs identically without a model, and any decision
that differs from the recording makes the replay fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.cli import main
from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.evals import EvalSettings, ReplayMismatch, replay_file, run_eval
from open_langgraph.evals.replay import replay
from tests.agents.laser.fakes import FirstChoiceChatModel
from tests.fixtures.webshop_data import webshop_data

# First result for the instruction's own words ("sulfate free, paraben free shampoo"), the
# first search LASER makes without a model call: goal 0's target itself.
FIRST = "DM00000080"


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A LASER episode on goal 0 of the demo catalog, recorded by the harness."""
    model = FirstChoiceChatModel(text="sulfate free shampoo")
    settings = EvalSettings(
        agent="laser",
        model="fake/first-choice",
        n=1,
        out=tmp_path / "r.jsonl",
        record_dir=tmp_path / "rec",
    )
    run_eval(settings, model=model)
    return tmp_path / "rec" / "laser-synthetic-0.json"


def _edit(path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    edited = path.with_name("edited.json")
    edited.write_text(json.dumps(data))
    return edited


def test_recording_holds_deltas_model_io_and_env_steps(recorded: Path) -> None:
    data = json.loads(recorded.read_text())
    assert [s["node"] for s in data["steps"]] == ["Search", "Result", "Item", "Stopping"]
    result = data["steps"][1]
    assert result["delta"]["current_laser_state"] == "Result"
    # One call per step: the thought rides in the call. No Next before an item was opened.
    assert [c["input"]["tools"] for c in result["model_calls"]] == [
        ["select_item", "Back_to_Search"],
    ]
    assert result["model_calls"][0]["output"]["tool_calls"][0]["name"] == "select_item"
    assert result["env"][0]["action"] == f"click[{FIRST}]"
    assert FIRST in result["env"][0]["observation"] or "Price:" in result["env"][0]["observation"]


def test_replay_reproduces_the_episode_without_a_model(recorded: Path, capsys) -> None:
    report = replay_file(recorded)
    assert report.steps == 4
    assert report.model_calls == 2  # the first search asks the model nothing
    assert report.reward == json.loads(recorded.read_text())["record"]["reward"]
    assert main(["replay", str(recorded)]) == 0
    assert "identically" in capsys.readouterr().out


def test_replay_fails_when_a_decision_differs(recorded: Path, capsys) -> None:
    def pick_another_item(data: dict) -> None:
        call = data["steps"][1]["model_calls"][0]["output"]["tool_calls"][0]
        call["args"]["item_id"] = "DM00000030"

    edited = _edit(recorded, pick_another_item)
    with pytest.raises(ReplayMismatch, match="step 1 \\(Result\\): env differs"):
        replay_file(edited)
    assert main(["replay", str(edited)]) == 1
    assert "differs from the recording" in capsys.readouterr().err


def test_replay_fails_when_the_graph_asks_a_different_question(recorded: Path) -> None:
    def change_prompt(data: dict) -> None:
        data["steps"][1]["model_calls"][0]["input"]["messages"][0]["content"] = "old prompt"

    with pytest.raises(ReplayMismatch, match="model call 0: input differs"):
        replay_file(_edit(recorded, change_prompt))


def test_replay_fails_when_the_recording_runs_out(recorded: Path) -> None:
    def drop_last_call(data: dict) -> None:
        data["steps"][2]["model_calls"].pop()

    with pytest.raises(ReplayMismatch, match="the recording has only 1 calls"):
        replay_file(_edit(recorded, drop_last_call))


def test_replay_rejects_files_that_are_not_recordings(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["replay", str(bad)]) == 2
    assert "not an episode recording" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "no such recording" in capsys.readouterr().err


QWEN_RECORDING = Path(__file__).parent / "recordings" / "laser-qwen1.5b-1k-synthetic-0.json"


def test_recorded_qwen_episode_on_the_1k_catalog_still_replays() -> None:
    """A real Qwen2.5-Coder-1.5B episode from the evaluation: prompts, schemas, routing and
    the environment must still turn its recorded decisions into the same episode."""
    data = json.loads(QWEN_RECORDING.read_text())
    env = WebShopEnv(webshop_data(), goals="synthetic", seed=data["record"]["seed"])
    report = replay(data, env=env)
    assert report.steps == len(data["steps"])
    assert report.reward == data["record"]["reward"]
