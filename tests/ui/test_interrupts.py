"""Interrupts as forms: react_agent_hitl's tool review approved, edited, rejected, answered
(respond) and ended in the page, the chat plus approval done with the keyboard alone, and
web_agent's clarify question, plan approval and quit confirmation answered in the page."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import (
    DONE,
    INTERRUPTED,
    current_thread,
    open_chat,
    send,
    serious_violations,
    shown,
    tab_to,
)

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
    reply = log.locator(".msg.ai .text").last
    expect(reply).to_have_text(
        shown("The calculator call failed: User rejected the tool call for `calculator` ")
        + "with reason: No arithmetic today."
    )
    expect(reply.locator("code")).to_have_text("calculator")
    expect(page.get_by_role("status")).to_have_text(DONE)
    assert "42" not in log.inner_text()


def test_responding_answers_for_the_tool(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 6 * 7")
    form = _review(page)
    form.get_by_label("Your response").fill("about forty")
    expect(form.get_by_role("radio", name="Respond")).to_be_checked()
    form.get_by_role("button", name="Submit decision").click()
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says about forty. That is the answer."
    )
    expect(page.get_by_role("status")).to_have_text(DONE)


def test_ending_the_review_then_asking_again(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 6 * 7")
    form = _review(page)
    form.get_by_role("button", name="End the review").click()
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(form).to_have_count(0)
    thread_id = current_thread(page)
    assert httpx.get(f"{served.url}/threads/{thread_id}").json()["status"] == "idle"
    # The next turn goes on: the model is told the ended call never ran.
    send(page, "calculate 1 + 1")
    _review(page).get_by_role("button", name="Submit decision").click()
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says 2. That is the answer."
    )
    values = httpx.get(f"{served.url}/threads/{thread_id}/state").json()["values"]
    results = [m["content"] for m in values["messages"] if m["type"] == "tool"]
    assert results == ["2"]


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


def test_web_agent_clarify_and_plan_approval_are_answered_in_the_page(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "web_agent")
    send(page, "Buy the sulfate free shampoo in 32 fl oz")

    # Clarify: the question with what the agent tells the person, answered in free text.
    form = page.get_by_role("form", name="Answer the agent")
    expect(form.get_by_role("heading", name="The agent asks")).to_be_visible()
    expect(form).to_contain_text("I need the shop's address.")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    answer = form.get_by_label("Which shop should I use? Please give its address.")
    expect(answer).to_be_focused()
    answer.fill("http://shop.example/fixed_0")
    form.get_by_role("button", name="Send answer").click()

    # The resumed run planned with that answer and asks to approve the plan, shown as steps.
    expect(form.get_by_role("heading", name="Approve the plan?")).to_be_visible()
    steps = form.get_by_role("list", name="Plan").get_by_role("listitem")
    expect(steps).to_have_text(
        [
            "Open the shop and search for the shampoo",
            "Open the item, choose 32 fl oz, note its name and price",
            "Buy it",
        ]
    )
    # "No" with feedback re-plans with it.
    form.get_by_label("Run this plan? Answer yes, or no with what to change.").fill(
        "no, check the home page first"
    )
    form.get_by_role("button", name="Send answer").click()
    expect(steps.first).to_have_text("Check the shop's home page first")
    expect(steps).to_have_count(4)
    assert serious_violations(page) == []

    # Neither yes nor no asks whether to quit: Yes ends the run before the browser opens.
    form.get_by_label("Run this plan? Answer yes, or no with what to change.").fill("hmm")
    form.get_by_role("button", name="Send answer").click()
    expect(form).to_contain_text("Quit without running it?")
    form.get_by_role("button", name="Yes").click()
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(form).to_have_count(0)

    thread_id = current_thread(page)
    values = httpx.get(f"{served.url}/threads/{thread_id}/state").json()["values"]
    assert values["clarifications"] == [
        {
            "question": "Which shop should I use? Please give its address.",
            "answer": "http://shop.example/fixed_0",
        }
    ]
    assert values["plan_feedback"] == "check the home page first"
    assert values["outcome"] == "quit"
    runs = httpx.get(f"{served.url}/threads/{thread_id}/runs").json()
    # The first run and the three answered with text stopped at the next question, the last
    # (Yes) finished: each ended `success`, as on the Platform (`interrupted` is cancelled).
    assert [run["status"] for run in runs] == ["success"] * 5
