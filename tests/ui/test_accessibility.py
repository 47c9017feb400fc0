"""axe-core (the pinned npm package the UI build installs) on the four main views, each with
content in it: no serious or critical violations."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, INTERRUPTED, open_chat, send, serious_violations

pytestmark = pytest.mark.e2e

RECORDING = (
    Path(__file__).resolve().parents[1]
    / "evals"
    / "recordings"
    / "laser-qwen1.5b-1k-synthetic-0.json"
)


def test_chat_with_a_pending_approval(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 1 + 1")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    page.locator("details.tool-call summary").first.click()
    assert serious_violations(page) == []


def test_threads_with_a_thread_open(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "echo_agent")
    send(page, "for the threads view")
    expect(page.get_by_role("status")).to_have_text(DONE)
    thread_id = page.get_by_label("Thread").input_value()
    page.goto(f"{served.url}/ui/#/threads?thread={thread_id}")
    expect(page.locator(".checkpoint-state pre")).to_contain_text("for the threads view")
    assert serious_violations(page) == []


def test_assistants_with_graph_and_schema_form(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/assistants")
    page.get_by_role("button", name="react_agent_hitl (react_agent_hitl)", exact=False).click()
    expect(page.get_by_role("img", name="Graph of react_agent_hitl")).to_be_visible()
    assert serious_violations(page) == []


def test_episodes_with_a_recording_open(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/episodes")
    page.get_by_label("Episode recording").set_input_files(RECORDING)
    expect(page.locator(".step-count")).to_contain_text("Step 1 of")
    assert serious_violations(page) == []
