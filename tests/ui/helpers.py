"""What the UI tests do on the page, by role and label as a person would find things."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess

#: The run statuses the chat view shows (`Status: ...`).
DONE = "Status: Done"
INTERRUPTED = "Status: interrupted"
#: axe-core as the UI build installs it (pinned in ui/package-lock.json).
AXE = Path(__file__).resolve().parents[2] / "ui" / "node_modules" / "axe-core" / "axe.min.js"


def open_chat(page: Page, server: ServerProcess, assistant: str) -> None:
    """The chat view with `assistant` (a graph id) chosen and a new thread."""
    page.goto(f"{server.url}/ui/#/chat?assistant={assistant}")
    expect(page.locator("#assistant-select option:checked")).to_have_text(assistant)


def shown(markdown: str) -> str:
    """The text the page shows for a reply in Markdown: inline `code` without its backticks
    (the words are set in a <code> element instead)."""
    return markdown.replace("`", "")


def current_thread(page: Page) -> str:
    """The id of the thread open in the chat (marked current in the sidebar)."""
    item = page.locator(".thread-item[aria-current=true]")
    expect(item).to_have_count(1)
    thread_id = item.get_attribute("data-thread-id")
    assert thread_id
    return thread_id


def open_thread(page: Page, thread_id: str) -> None:
    """Open a thread from the chat's sidebar."""
    page.locator(f'.thread-item[data-thread-id="{thread_id}"]').click()
    expect(page.locator(".thread-item[aria-current=true]")).to_have_attribute(
        "data-thread-id", thread_id
    )


def send(page: Page, text: str) -> None:
    page.get_by_label("Message", exact=True).fill(text)
    page.get_by_role("button", name="Send", exact=True).click()


def status(page: Page) -> str:
    return page.get_by_role("status").inner_text()


def no_sideways_scroll(page: Page) -> None:
    """The page is no wider than the window, and the header's own content fits in it."""
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, window.innerWidth,"
        " document.querySelector('header.top').scrollWidth,"
        " document.querySelector('header.top').clientWidth]"
    )
    assert widths[0] <= widths[1], widths
    assert widths[2] <= widths[3], widths


def tab_to(page: Page, selector: str, limit: int = 40) -> None:
    """Press Tab until the element matching `selector` has the focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} not reached with {limit} presses of Tab")


def serious_violations(page: Page) -> list[str]:
    """What axe-core finds serious or critical on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(n["target"]) for n in v["nodes"][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
