"""What the UI tests do on the page, by role and label as a person would find things."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess

#: The run statuses the chat view shows (`Status: ...`).
DONE = "Status: Done"
INTERRUPTED = "Status: interrupted"


def open_chat(page: Page, server: ServerProcess, assistant: str) -> None:
    """The chat view with `assistant` (a graph id) chosen and a new thread."""
    page.goto(f"{server.url}/ui/#/chat?assistant={assistant}")
    expect(page.locator("#assistant-select option:checked")).to_have_text(assistant)


def send(page: Page, text: str) -> None:
    page.get_by_label("Message", exact=True).fill(text)
    page.get_by_role("button", name="Send").click()


def status(page: Page) -> str:
    return page.get_by_role("status").inner_text()


def tab_to(page: Page, selector: str, limit: int = 40) -> None:
    """Press Tab until the element matching `selector` has the focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} not reached with {limit} presses of Tab")
