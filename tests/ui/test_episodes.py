"""WebShop episodes in the page: a recording written by the evaluation (`olg eval webshop
--record`, here on the demo catalog with the LASER agent on a fake first-choice model) stepped
through action by action, and the results file as a summary table with its plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from open_langgraph.evals import EvalSettings, run_eval
from tests.agents.laser.fakes import FirstChoiceChatModel
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results and recordings of goals 0 and 1, as the harness writes them."""
    out = tmp_path_factory.mktemp("eval")
    settings = EvalSettings(
        agent="laser",
        model="fake/first-choice",
        n=2,
        out=out / "results.jsonl",
        record_dir=out / "rec",
        progress=False,
    )
    run_eval(settings, model=FirstChoiceChatModel(text="sulfate free shampoo"))
    return out


def test_step_through_a_recorded_episode(
    page: Page, served: ServerProcess, evaluation: Path
) -> None:
    recording = evaluation / "rec" / "laser-synthetic-0.json"
    data = json.loads(recording.read_text())
    actions = [env for step in data["steps"] for env in step["env"]]
    assert len(actions) >= 3  # search, click a result, ..., buy

    page.goto(f"{served.url}/ui/#/episodes")
    page.get_by_label("Episode recording").set_input_files(recording)
    viewer = page.locator(".episode")
    expect(viewer.locator(".instruction")).to_contain_text(data["record"]["instruction"])
    expect(viewer.locator(".step-count")).to_have_text(f"Step 1 of {len(actions)} (Search)")
    expect(viewer.locator(".action code")).to_have_text(actions[0]["action"])
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()

    for i in range(1, len(actions)):
        page.get_by_role("button", name="Next step").click()
        expect(viewer.locator(".step-count")).to_contain_text(f"Step {i + 1} of {len(actions)}")
        expect(viewer.locator(".action code")).to_have_text(actions[i]["action"])
        # The page shown is the one the previous action led to: what the agent saw.
        expect(viewer.get_by_label("Page the agent saw")).to_have_text(
            actions[i - 1]["observation"]
        )
    expect(page.get_by_role("button", name="Next step")).to_be_disabled()
    expect(viewer.locator(".reward")).to_contain_text(f"{actions[-1]['reward']} (episode over)")


def test_results_file_as_summary_table_and_plot(
    page: Page, served: ServerProcess, evaluation: Path
) -> None:
    rows = [json.loads(line) for line in (evaluation / "results.jsonl").read_text().splitlines()]
    score = 100 * sum(r["reward"] for r in rows) / len(rows)
    page.goto(f"{served.url}/ui/#/episodes")
    page.get_by_label("Results file").set_input_files(evaluation / "results.jsonl")
    table = page.locator("table.summary-table")
    expect(table.locator("tr", has_text="Score")).to_contain_text(f"{score:.1f}")
    expect(table.locator("tr", has_text="Episodes")).to_contain_text("2 (0)")
    expect(page.get_by_role("img", name="Reward per goal")).to_be_visible()
    expect(page.locator("svg.plot rect")).to_have_count(2)


def test_a_file_that_is_no_recording_is_refused(
    page: Page, served: ServerProcess, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": 1}')
    page.goto(f"{served.url}/ui/#/episodes")
    page.get_by_label("Episode recording").set_input_files(bad)
    expect(page.get_by_role("alert")).to_contain_text("not an episode recording")
