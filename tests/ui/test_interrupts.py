"""Interrupts as forms: react_agent_hitl's tool review approved, edited and rejected in the page,
and the chat plus approval done with the keyboard alone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, INTERRUPTED, open_chat, send, tab_to

pytestmark = pytest.mark.e2e


def _review(page: Page):
    form = page.get_by_role("form", name="Review the tool calls")
    expect(form).to_be_visible()
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    return form


def test_approving_a_tool_call_runs_it(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 6 * 7")
    form = _review(page)
    expect(form.get_by_role("group", name="Tool call 1: calculator")).to_be_visible()
    expect(form.get_by_label("Arguments (edit them, then choose Edit)")).to_have_value(
        '{\n  "expression": "6 * 7"\n}'
    )
    form.get_by_role("radio", name="Approve").check()
    form.get_by_role("button", name="Submit decision").click()
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says 42. That is the answer."
    )
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(form).to_have_count(0)


def test_editing_a_tool_call_runs_the_edited_arguments(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 6 * 7")
    form = _review(page)
    form.get_by_label("Arguments (edit them, then choose Edit)").fill('{"expression": "6 * 8"}')
    form.get_by_role("radio", name="Edit").check()
    form.get_by_role("button", name="Submit decision").click()
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says 48. That is the answer."
    )


def test_rejecting_a_tool_call_tells_the_model_and_never_runs_it(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 6 * 7")
    form = _review(page)
    form.get_by_role("radio", name="Reject").check()
    form.get_by_label("Rejection message").fill("No arithmetic today.")
    form.get_by_role("button", name="Submit decision").click()
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The tool call failed: No arithmetic today."
    )
    expect(page.get_by_role("status")).to_have_text(DONE)
    assert "42" not in log.inner_text()


def test_chat_and_approval_by_keyboard_alone(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/chat")
    expect(page.get_by_label("Assistant")).not_to_have_value("")
    # Choose the assistant from its select with the arrow keys.
    tab_to(page, "#assistant-select")
    for _ in range(5):
        if page.locator("#assistant-select option:checked").inner_text() == "react_agent_hitl":
            break
        page.keyboard.press("ArrowDown")
    expect(page.locator("#assistant-select option:checked")).to_have_text("react_agent_hitl")
    tab_to(page, "#chat-input")
    page.keyboard.type("calculate 20 + 22")
    page.keyboard.press("Enter")
    form = _review(page)
    # The form takes the focus; Tab reaches its submit button, Enter submits (Approve is the
    # default choice).
    expect(form.get_by_role("radio", name="Approve")).to_be_focused()
    tab_to(page, "form.interrupt button[type=submit]")
    page.keyboard.press("Enter")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says 42. That is the answer."
    )
    # A follow-up question, still from the keyboard.
    tab_to(page, "#chat-input")
    page.keyboard.type("thanks")
    page.keyboard.press("Enter")
    expect(log.locator(".msg.ai .text").last).to_contain_text("You asked: thanks.")
