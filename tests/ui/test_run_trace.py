"""A run's trace in the page (#/trace, opened from the chat's "Trace" link and from a thread's
runs): the timeline of nodes, the scripted model's calls with their token counts, prompt and
reply, the tool call with its arguments and result; the steps with what each changed, and an
edit of the state from one of them; a run held inside a node shown live, then complete; the
view's code fetched only when it is opened; axe-clean; no sideways scroll at phone width."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import (
    DONE,
    INTERRUPTED,
    current_thread,
    no_sideways_scroll,
    open_chat,
    send,
    serious_violations,
)

pytestmark = pytest.mark.e2e


def _trace_of_latest_run(server: ServerProcess, thread_id: str) -> dict:
    [run] = httpx.get(f"{server.url}/threads/{thread_id}/runs", params={"limit": 1}).json()
    response = httpx.get(f"{server.url}/threads/{thread_id}/runs/{run['run_id']}/trace")
    response.raise_for_status()
    return response.json()


def test_a_tool_run_shows_its_nodes_model_calls_with_tokens_and_tool_call(
    page: Page, served: ServerProcess
) -> None:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    open_chat(page, served, "react_agent")
    send(page, "calculate 6 * 7")
    expect(page.get_by_role("status")).to_have_text(DONE)
    thread_id = current_thread(page)
    page.wait_for_load_state("networkidle")
    assert not [url for url in fetched if "/assets/trace-" in url]

    page.get_by_role("link", name="Trace").click()
    timeline = page.get_by_role("list", name="Timeline")
    rows = timeline.locator("li.span")
    expect(rows).to_have_count(6)  # model, its model call, tools, calculator, again
    assert [url for url in fetched if "/assets/trace-" in url]  # fetched on opening
    kinds = [(r.get_attribute("data-kind"), r.get_attribute("data-name")) for r in rows.all()]
    assert [kind for kind, _ in kinds] == ["node", "model", "node", "tool", "node", "model"]
    assert [name for kind, name in kinds if kind == "node"] == ["model", "tools", "model"]

    # The token counts the page shows are the server's record of the scripted model's usage.
    trace = _trace_of_latest_run(served, thread_id)
    models = [s for s in trace["spans"] if s["kind"] == "model"]
    first = rows.nth(1)
    tokens = models[0]["tokens"]
    assert tokens["input"] > tokens["cached"] > 0 and tokens["output"] == 1
    expect(first.locator(".span-facts")).to_contain_text(
        f"{tokens['input']} tokens in ({tokens['cached']} cached), {tokens['output']} out"
    )
    summary = page.locator(".trace-summary")
    expect(summary).to_contain_text("success")
    total_in = sum(m["tokens"]["input"] for m in models)
    expect(summary).to_contain_text("Model calls2 in ")
    expect(summary).to_contain_text(f"{total_in} tokens in")

    first.get_by_text("Prompt and reply").click()
    details = first.locator("details")
    expect(details.locator('.trace-message[data-type="human"]')).to_contain_text("calculate 6 * 7")
    expect(details.locator('.trace-message[data-type="ai"]')).to_contain_text(
        'calculator({"expression":"6 * 7"})'
    )
    tool = rows.nth(3)
    tool.get_by_text("Arguments and result").click()
    expect(tool.locator("details pre").last).to_have_text("42")

    # The steps the run wrote, each with what it changed: the tool's result appended.
    steps = page.locator(".trace-checkpoints > li")
    expect(steps.first).to_be_visible()
    expect(page.locator(".diff").filter(has_text="tool: 42")).to_have_count(1)
    assert serious_violations(page) == []


def current_thread_of_trace(page: Page) -> str:
    return page.url.split("thread=")[1].split("&")[0]


def test_the_state_edited_at_a_step_is_a_new_checkpoint(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "echo_agent")
    send(page, "first")
    expect(page.get_by_role("status")).to_have_text(DONE)
    page.get_by_role("link", name="Trace").click()
    last = page.locator(".trace-checkpoints > li").last
    expect(last).to_contain_text("You said: first")
    last.get_by_text("State, fork or edit from here").click()
    editor = last.get_by_label("State (JSON)")
    editor.fill(editor.input_value().replace("You said: first", "You said: edited"))
    thread_id = current_thread_of_trace(page)
    before = httpx.get(f"{served.url}/threads/{thread_id}/state").json()
    last.get_by_role("button", name="Save as a new checkpoint").click()
    # Saved, the view reads the thread again; the thread's state is the edited one.
    for _ in range(100):
        state = httpx.get(f"{served.url}/threads/{thread_id}/state").json()
        if state["checkpoint"] != before["checkpoint"]:
            break
        page.wait_for_timeout(100)
    assert [m["content"] for m in state["values"]["messages"]] == ["first", "You said: edited"]
    assert state["parent_checkpoint"]["checkpoint_id"] == before["checkpoint"]["checkpoint_id"]


def test_a_held_run_is_traced_live_then_complete(
    page: Page, served: ServerProcess, tmp_path: Path
) -> None:
    release = tmp_path / "release"
    open_chat(page, served, "live_graph")
    try:
        send(page, f"hold until {release}")
        link = page.get_by_role("link", name="Trace")
        expect(link).to_have_attribute("href", re.compile("run="))
        link.click()
        view = page.locator(".trace-view")
        hold = page.locator('li.span[data-name="hold"]')
        expect(hold).to_have_attribute("data-status", "running", timeout=20_000)
        expect(view).to_have_attribute("data-complete", "false")
        expect(hold.locator(".span-facts")).to_contain_text("running for")
        expect(page.locator('li.span[data-name="plan"]')).to_have_attribute(
            "data-status", "success"
        )
    finally:
        release.touch()
    expect(view).to_have_attribute("data-complete", "true", timeout=20_000)
    expect(hold).to_have_attribute("data-status", "success")
    expect(page.locator('li.span[data-name="review"]')).to_have_attribute(
        "data-status", "interrupted"
    )
    expect(page.locator(".trace-summary")).to_contain_text("success, stopped at an interrupt")
    page.get_by_role("link", name="Open in chat").click()
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)


def test_the_trace_fits_a_phone(page: Page, served: ServerProcess) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_chat(page, served, "react_agent")
    send(page, "calculate 2 + 2")
    expect(page.get_by_role("status")).to_have_text(DONE)
    page.get_by_role("link", name="Trace").click()
    expect(page.get_by_role("list", name="Timeline").locator("li.span")).to_have_count(6)
    page.locator("li.span").nth(1).get_by_text("Prompt and reply").click()
    no_sideways_scroll(page)
    assert serious_violations(page) == []
