"""The page's tool review against `create_agent` graphs gated by LangChain's
`HumanInTheLoopMiddleware`, in both of its modes: `hitl_batched` (one request per model turn,
answered with `{"decisions": [...]}`) and `hitl_per_call` (one `tool_approval` interrupt per
call, each answered by interrupt id, its allowed decisions in `response_schema`).

The calculator allows every decision; `delete_file` only approve and reject
(tests/ui/scripted_agents.py). Each decision must finish the run with what the model was told.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import (
    DONE,
    INTERRUPTED,
    current_thread,
    open_chat,
    send,
    serious_violations,
    shown,
)

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("agent", ["hitl_batched", "hitl_per_call"])]


def _review(
    page: Page, served: ServerProcess, agent: str, request: str = "calculate 6 * 7"
) -> Locator:
    """The review form `agent` shows for `request`, asked in a new chat."""
    open_chat(page, served, agent)
    send(page, request)
    form = page.get_by_role("form", name="Review the tool calls")
    expect(form).to_be_visible()
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    return form


def _submit(form: Locator) -> None:
    form.get_by_role("button", name="Submit decision").click()


def _last_reply(page: Page) -> Locator:
    return page.get_by_role("log", name="Conversation").locator(".msg.ai .text").last


def _finished(page: Page, served: ServerProcess, reply: str) -> dict:
    """The run ended with `reply`, the form is gone and the thread waits for nothing."""
    expect(_last_reply(page)).to_have_text(reply)
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(page.get_by_role("form", name="Review the tool calls")).to_have_count(0)
    thread_id = current_thread(page)
    state = httpx.get(f"{served.url}/threads/{thread_id}/state").json()
    assert (state["next"], state["interrupts"]) == ([], [])
    return state


def _tool_results(state: dict) -> list[tuple[str, str, str]]:
    return [
        (m["name"], m["content"], m["status"])
        for m in state["values"]["messages"]
        if m["type"] == "tool"
    ]


def test_approve_runs_the_call(page: Page, served: ServerProcess, agent: str) -> None:
    form = _review(page, served, agent)
    group = form.get_by_role("group", name="Tool call 1: calculator")
    expect(group).to_contain_text("Tool execution requires approval")
    expect(group.get_by_role("radio")).to_have_count(4)
    expect(group.get_by_role("radio", name="Approve")).to_be_checked()
    _submit(form)
    state = _finished(page, served, "The calculator says 42. That is the answer.")
    assert _tool_results(state) == [("calculator", "42", "success")]


def test_edit_runs_the_edited_arguments(page: Page, served: ServerProcess, agent: str) -> None:
    form = _review(page, served, agent)
    # Changing the arguments chooses Edit.
    form.get_by_label("Arguments (edit them, then choose Edit)").fill('{"expression": "6 * 8"}')
    expect(form.get_by_role("radio", name="Edit")).to_be_checked()
    _submit(form)
    _finished(page, served, "The calculator says 48. That is the answer.")


def test_arguments_that_are_not_an_object_are_refused_in_the_page(
    page: Page, served: ServerProcess, agent: str
) -> None:
    form = _review(page, served, agent)
    form.get_by_label("Arguments (edit them, then choose Edit)").fill("[1, 2]")
    _submit(form)
    expect(form.get_by_role("alert")).to_have_text(
        'Tool call 1: calculator: the edited arguments must be a JSON object ({"name": value, ...})'
    )
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)


def test_reject_tells_the_model_why(page: Page, served: ServerProcess, agent: str) -> None:
    form = _review(page, served, agent)
    form.get_by_label("Rejection message (optional)").fill("No arithmetic today.")
    expect(form.get_by_role("radio", name="Reject")).to_be_checked()
    _submit(form)
    reason = "User rejected the tool call for `calculator` with reason: No arithmetic today."
    state = _finished(page, served, shown(f"The calculator call failed: {reason}"))
    expect(_last_reply(page).locator("code")).to_have_text("calculator")
    assert _tool_results(state) == [("calculator", reason, "error")]


def test_respond_answers_for_the_tool(page: Page, served: ServerProcess, agent: str) -> None:
    form = _review(page, served, agent)
    form.get_by_role("radio", name="Respond").check()
    _submit(form)
    # An empty response is refused before anything is sent.
    expect(form.get_by_role("alert")).to_have_text(
        "Tool call 1: calculator: write the answer to give the agent, or choose another decision"
    )
    form.get_by_label("Your response").fill("forty-two, by heart")
    _submit(form)
    # The calculator never ran: its result is the person's answer.
    state = _finished(page, served, "The calculator says forty-two, by heart. That is the answer.")
    assert _tool_results(state) == [("calculator", "forty-two, by heart", "success")]


def test_ending_the_review_runs_nothing_and_leaves_the_thread_idle(
    page: Page, served: ServerProcess, agent: str
) -> None:
    form = _review(page, served, agent)
    form.get_by_role("button", name="End the review").click()
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(form).to_have_count(0)
    thread_id = current_thread(page)
    state = httpx.get(f"{served.url}/threads/{thread_id}/state").json()
    assert (state["next"], state["interrupts"]) == ([], [])
    assert _tool_results(state) == []
    assert httpx.get(f"{served.url}/threads/{thread_id}").json()["status"] == "idle"
    # The thread takes the next message.
    send(page, "thanks")
    expect(_last_reply(page)).to_have_text(
        "You asked: thanks. This answer arrives one word at a time, as tokens do."
    )


def test_each_call_offers_only_its_allowed_decisions(
    page: Page, served: ServerProcess, agent: str
) -> None:
    form = _review(page, served, agent, "calculate 6 * 7 and delete notes.txt")
    calculator = form.get_by_role("group", name="Tool call 1: calculator")
    deleting = form.get_by_role("group", name="Tool call 2: delete_file")
    expect(calculator.get_by_role("radio")).to_have_count(4)
    expect(deleting.get_by_role("radio")).to_have_count(2)
    expect(deleting.get_by_role("radio", name="Approve")).to_be_visible()
    expect(deleting.get_by_role("radio", name="Reject")).to_be_visible()
    # No way to edit or answer for a call that allows neither: its arguments are shown only.
    expect(deleting.get_by_role("textbox")).to_have_count(1)  # the rejection message
    expect(deleting.get_by_label("Arguments of tool call 2")).to_contain_text('"path": "notes.txt"')
    assert serious_violations(page) == []

    deleting.get_by_role("radio", name="Reject").check()
    _submit(form)
    rejected = "User rejected the tool call for `delete_file` with id "
    expect(_last_reply(page)).to_contain_text(
        shown(f"The calculator says 42. The delete_file call failed: {rejected}")
    )
    expect(_last_reply(page).locator("code")).to_have_text("delete_file")
    expect(page.get_by_role("status")).to_have_text(DONE)
