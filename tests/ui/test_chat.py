"""Chat in the page: the echo agent, and the ReAct agent on a scripted model whose reply streams
a word at a time (`messages-tuple`), tool calls folded; the page's first paint is measured."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.fixtures.server import ServerProcess
from tests.ui.conftest import CHROMIUM
from tests.ui.helpers import DONE, current_thread, open_chat, open_thread, send

pytestmark = pytest.mark.e2e

# Records, in the page, the text of the last assistant message each time the log changes.
WATCH_TOKENS = """() => {
  window.__seen = [];
  const log = document.querySelector('[role=log]');
  new MutationObserver(() => {
    const all = log.querySelectorAll('.msg.ai .text');
    const last = all[all.length - 1];
    if (last) window.__seen.push(last.textContent);
  }).observe(log, {childList: true, subtree: true, characterData: true});
}"""


def test_chat_with_echo_agent_in_a_new_then_reopened_thread(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "echo_agent")
    send(page, "hello from the page")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai")).to_have_text(re.compile("You said: hello from the page"))
    expect(page.get_by_role("status")).to_have_text(DONE)
    send(page, "second turn")
    expect(log.locator(".msg.ai").nth(1)).to_contain_text("You said: second turn")

    # A reload comes back to the thread (the address names it), drawn from storage.
    thread = current_thread(page)
    page.reload()
    expect(log.locator(".msg")).to_have_count(4)
    assert current_thread(page) == thread
    # The thread is listed; opened again from the sidebar it shows both turns.
    page.get_by_role("button", name="New thread", exact=True).click()
    expect(log.locator(".msg")).to_have_count(0)
    open_thread(page, thread)
    expect(log.locator(".msg")).to_have_count(4)
    expect(log.locator(".msg.human").first).to_contain_text("hello from the page")


def test_react_agent_reply_streams_token_by_token_with_the_tool_call_folded(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "react_agent")
    page.evaluate(WATCH_TOKENS)
    send(page, "what is streaming")
    reply = "You asked: what is streaming. This answer arrives one word at a time, as tokens do."
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_have_text(reply)
    expect(page.get_by_role("status")).to_have_text(DONE)
    seen = [s for s in page.evaluate("window.__seen") if s]
    partial = {s for s in seen if s != reply}
    # The text grew in place: several strict prefixes of the reply were on screen before it.
    assert len(partial) >= 5, seen
    assert all(reply.startswith(s) for s in partial), seen

    send(page, "calculate 6 * 7")
    expect(log.locator(".msg.ai .text").last).to_have_text(
        "The calculator says 42. That is the answer."
    )
    call = log.locator("details.tool-call").last
    expect(call.locator("summary")).to_have_text("Tool call: calculator")
    arguments = call.get_by_role("table", name="Arguments of calculator")
    expect(arguments).not_to_be_visible()  # folded until opened
    call.locator("summary").click()
    # A few plain arguments read as a table of name and value.
    expect(arguments.get_by_role("row")).to_have_count(1)
    expect(arguments.get_by_role("rowheader")).to_have_text("expression")
    expect(arguments.get_by_role("cell")).to_have_text("6 * 7")
    expect(log.locator("details.tool-result summary").last).to_have_text("Tool result: calculator")


def test_errors_are_shown_in_the_page(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent")
    # A tool error goes back to the model, and the result is marked in the page.
    send(page, "calculate 1 / 0")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_contain_text("calculator refused '1 / 0'")
    expect(log.locator("details.tool-result summary").last).to_have_text(
        "Tool result: calculator (error)"
    )
    # A run that fails shows its error as an alert, and the status says so.
    send(page, "fail, please")
    expect(page.get_by_role("alert")).to_contain_text("the scripted model was asked to fail")
    expect(page.get_by_role("status")).to_have_text("Status: error")


def test_cancel_stops_a_streaming_run(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent")
    send(page, "a question to cut short")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text").last).to_contain_text("You asked:")
    page.get_by_role("button", name="Cancel run").click()
    expect(page.get_by_role("status")).to_have_text("Status: Cancelled")
    expect(page.get_by_role("button", name="Cancel run")).to_be_disabled()
    # The run stopped before its reply was complete, and the thread is free for the next one.
    assert not log.inner_text().endswith("as tokens do.")
    send(page, "next")
    expect(log.locator(".msg.ai .text").last).to_contain_text("You asked: next.")
    expect(page.get_by_role("status")).to_have_text(DONE)


def test_first_paint_of_ui_from_a_cold_browser(
    playwright: Playwright, served: ServerProcess
) -> None:
    """Measured and printed (the issue asks for under 1 s), not asserted."""
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
    )
    try:
        page = browser.new_page()
        page.goto(f"{served.url}/", wait_until="load")
        assert page.url.endswith("/ui/")
        expect(page.get_by_role("heading", name="Chat")).to_be_visible()
        paint = page.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
        )
        nav = page.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
        print(
            f"\nfirst contentful paint of /ui: {paint:.0f} ms "
            f"(DOM content loaded {nav['domContentLoadedEventEnd']:.0f} ms, "
            f"load {nav['loadEventEnd']:.0f} ms)"
        )
        assert paint is not None
        page.screenshot(path=str(_output() / "test_first_paint.png"))
    finally:
        browser.close()


def _output():
    from tests.ui.conftest import OUTPUT

    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT


@pytest.mark.timeout(300)
def test_the_page_says_while_the_embedded_model_loads(page: Page, served: ServerProcess) -> None:
    """A first run on an embedded model waits for its load: the page names it meanwhile
    (the server's `custom` stage messages) and clears it once the model answers."""
    open_chat(page, served, "small_model")
    page.evaluate(
        """() => {
          window.__stages = [];
          const stage = document.querySelector('.stage');
          new MutationObserver(() => window.__stages.push(stage.textContent)).observe(
            stage, {childList: true, subtree: true, characterData: true});
        }"""
    )
    send(page, "hello")
    # A real model load and a few tokens: seconds when idle, far more on loaded cores.
    expect(page.get_by_role("status")).to_have_text(DONE, timeout=180_000)
    stages = page.evaluate("window.__stages")
    assert any("loading local/smollm2-135m" in text for text in stages), stages
    expect(page.locator(".stage")).to_have_text("")
