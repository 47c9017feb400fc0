"""Threads in the page: search, a thread's checkpoints, its state at one of them, and "fork from
here" from an earlier checkpoint, which adds a branch the history then shows."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, current_thread, open_chat, send

pytestmark = pytest.mark.e2e


def test_fork_from_an_earlier_checkpoint_adds_a_branch(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "echo_agent")
    send(page, "first")
    expect(page.get_by_role("status")).to_have_text(DONE)
    send(page, "second")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai").nth(1)).to_contain_text("You said: second")
    thread_id = current_thread(page)

    page.get_by_role("link", name="Threads").click()
    search = page.get_by_role("search", name="Search threads")
    search.get_by_label("Metadata (JSON)").fill('{"graph_id": "echo_agent"}')
    search.get_by_label("Status").select_option("idle")
    search.get_by_role("button", name="Search").click()
    page.get_by_role("button", name=re.compile(f"^{thread_id[:8]} · idle")).click()

    history = page.locator("ol.history")
    # Two runs of one step each: input, loop before the reply, loop after it; twice.
    expect(history.locator("li")).to_have_count(6)
    expect(history.locator("li.branch")).to_have_count(0)
    # The state after the first reply, before the second message.
    history.get_by_role("button", name=re.compile(r"^Step 1 · loop")).click()
    state = page.locator(".checkpoint-state pre")
    expect(state).to_contain_text("You said: first")
    expect(state).not_to_contain_text("second")

    fork = page.get_by_role("form", name="Fork from this checkpoint")
    fork.get_by_label("Message for the new branch").fill("another path")
    fork.get_by_role("button", name="Fork from here").click()

    # The new branch starts at the forked checkpoint's child; the latest state is on it.
    expect(history.locator("li")).to_have_count(9)
    branch = history.locator("li.branch")
    expect(branch).to_have_count(1)
    expect(branch).to_contain_text("Step 2 · input")
    expect(state).to_contain_text("You said: another path")
    expect(state).not_to_contain_text("second")
    # The original branch is still there: its last checkpoint (the older step 4) has the
    # second reply.
    history.get_by_role("button", name=re.compile(r"^Step 4 · loop")).last.click()
    expect(state).to_contain_text("You said: second")


def test_a_bad_metadata_filter_is_refused_in_the_page(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/threads")
    search = page.get_by_role("search", name="Search threads")
    search.get_by_label("Metadata (JSON)").fill("{not json")
    search.get_by_role("button", name="Search").click()
    expect(page.get_by_role("alert")).to_have_text("Metadata must be a JSON object.")
