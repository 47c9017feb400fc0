"""The chat laid out as a chat app: the composer stays in view under a long transcript, replies
render as Markdown (code highlighted, HTML sanitised), copy buttons copy, a phone-width page
never scrolls sideways (the threads slide in behind a button), dark mode follows the system and
the toggle, the sidebar's thread status stays current, the token is masked, and the chat opens
on `react_agent`."""

from __future__ import annotations

import re

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
)

pytestmark = pytest.mark.e2e

LONG_URL = "https://example.com/" + "a" * 160 + "/" + "b" * 60 + "?q=" + "c" * 40
#: A reply in Markdown: what the echo agent says back is "You said: " and this.
MARKDOWN = f"""markdown test

## A heading

Some **bold** text, `inline code` and a [link](https://example.com/docs).

```python
def greet(name: str) -> str:
    return f"hello {{name}}"  # a comment
```

<script>window.__ran = true</script><img src="x" onerror="window.__ran = true">

A long address: {LONG_URL}

```
{"x" * 200}
```

| column | another column | a third | and a fourth | and a fifth one | sixth |
|---|---|---|---|---|---|
| {"wide cell " * 6} | 2 | 3 | 4 | 5 | 6 |
"""


def _reply(page: Page):
    return page.get_by_role("log", name="Conversation").locator(".msg.ai").last


def _markdown_reply(page: Page, served: ServerProcess):
    open_chat(page, served, "echo_agent")
    send(page, MARKDOWN)
    expect(page.get_by_role("status")).to_have_text(DONE)
    reply = _reply(page)
    expect(reply.get_by_role("heading", name="A heading")).to_be_visible()
    return reply


def test_the_composer_stays_in_view_under_a_long_transcript(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "echo_agent")
    composer = page.get_by_label("Message", exact=True)
    for turn in range(3):
        send(page, f"turn {turn}\n" + "\n".join(f"line {i}" for i in range(40)))
        expect(page.get_by_role("status")).to_have_text(DONE)
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg")).to_have_count(6)
    # The conversation is far taller than the window; the page itself does not scroll, the
    # composer and the Send button stay in view and the newest reply is shown.
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert page.evaluate("document.querySelector('.transcript').scrollHeight > 2 * innerHeight")
    expect(composer).to_be_in_viewport()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_in_viewport()
    expect(log.locator(".msg.ai").last.get_by_text("line 39")).to_be_in_viewport()

    # Scrolled back to read, the composer is still there, and a button brings the end back.
    page.locator(".transcript").evaluate("el => el.scrollTo(0, 0)")
    expect(log.locator(".msg.human").first).to_be_in_viewport()
    expect(composer).to_be_in_viewport()
    jump = page.get_by_role("button", name="Jump to latest")
    expect(jump).to_be_visible()
    jump.click()
    expect(log.locator(".msg.ai").last.get_by_text("line 39")).to_be_in_viewport()
    expect(jump).to_be_hidden()


def test_markdown_renders_with_highlighted_code_and_no_script(
    page: Page, served: ServerProcess
) -> None:
    reply = _markdown_reply(page, served)
    expect(reply.locator("strong")).to_have_text("bold")
    expect(reply.locator("p code")).to_have_text("inline code")
    link = reply.get_by_role("link", name="link", exact=True)
    expect(link).to_have_attribute("href", "https://example.com/docs")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")

    # The Python block is highlighted: its keywords, strings and comments are marked.
    code = reply.locator(".code-block", has_text="def greet").locator("code")
    expect(code).to_have_class(re.compile(r"\bhljs\b.*\blanguage-python\b"))
    expect(code.locator(".hljs-keyword").first).to_have_text("def")
    expect(code.locator(".hljs-comment")).to_have_text("# a comment")
    expect(code.locator(".hljs-string").first).to_contain_text("hello")
    expect(reply.locator(".code-block", has_text="def greet").locator(".code-lang")).to_have_text(
        "python"
    )

    # The script and the event handler were removed before they reached the page.
    expect(reply.locator("script")).to_have_count(0)
    assert reply.locator("img").get_attribute("onerror") is None
    assert page.evaluate("window.__ran") is None
    # The person's own message is shown as they typed it, not rendered.
    human = page.get_by_role("log", name="Conversation").locator(".msg.human .text").last
    expect(human).to_contain_text("```python")
    expect(human).to_contain_text("<script>window.__ran = true</script>")


def test_copy_buttons_copy_a_code_block_and_a_message(page: Page, served: ServerProcess) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served.url)
    reply = _markdown_reply(page, served)
    block = reply.locator(".code-block", has_text="def greet")
    block.get_by_role("button", name="Copy").click()
    expect(block.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == 'def greet(name: str) -> str:\n    return f"hello {name}"  # a comment'

    # A message's copy button gives its Markdown source.
    reply.get_by_role("button", name="Copy message").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("You said: markdown test\n\n## A heading")
    assert "```python\ndef greet" in copied


def test_phone_width_never_scrolls_sideways(phone: Page, served: ServerProcess) -> None:
    page = phone
    open_chat(page, served, "echo_agent")
    # The threads are behind a button, not beside the conversation.
    sidebar = page.locator("#chat-sidebar")
    # exact: a listed thread whose first message mentions threads is a button too
    toggle = page.get_by_role("button", name="Threads", exact=True)
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    no_sideways_scroll(page)

    send(page, MARKDOWN)
    expect(page.get_by_role("status")).to_have_text(DONE)
    reply = _reply(page)
    expect(
        reply.get_by_role("link", name=re.compile(r"^https:\/\/example\.com\/a+"))
    ).to_be_visible()
    no_sideways_scroll(page)
    # The long address and the long code line wrap inside the reply; the wide table scrolls
    # within its own box. Nothing sticks out of the conversation.
    overflowing = page.evaluate(
        """() => {
          const box = document.querySelector('.transcript').getBoundingClientRect();
          return [...document.querySelectorAll('.msg, .msg a, .msg pre, .table-wrap')]
            .filter((el) => el.getBoundingClientRect().right > box.right + 0.5)
            .map((el) => el.className || el.tagName);
        }"""
    )
    assert overflowing == []
    expect(page.get_by_label("Message", exact=True)).to_be_in_viewport()

    # The button slides the threads in; choosing one closes them again.
    thread_id = page.evaluate("new URLSearchParams(location.hash.split('?')[1]).get('thread')")
    toggle.click()
    expect(sidebar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("searchbox", name="Search threads")).to_be_focused()
    no_sideways_scroll(page)
    page.locator(f'.thread-item[data-thread-id="{thread_id}"]').click()
    expect(sidebar).to_be_hidden()
    # Escape closes them too.
    toggle.click()
    expect(sidebar).to_be_visible()
    page.keyboard.press("Escape")
    expect(sidebar).to_be_hidden()
    expect(toggle).to_be_focused()

    # The other views fit as well.
    for view in ("threads", "assistants", "episodes"):
        page.get_by_role("link", name=re.compile(view, re.IGNORECASE)).click()
        expect(page.locator("main > section")).to_have_count(1)
        no_sideways_scroll(page)


def _background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.documentElement).backgroundColor")


def test_dark_mode_follows_the_system_and_the_toggle_is_remembered(
    page: Page, served: ServerProcess
) -> None:
    page.emulate_media(color_scheme="light")
    open_chat(page, served, "echo_agent")
    toggle = page.get_by_role("button", name="Dark mode")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    light = _background(page)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = _background(page)
    assert dark != light
    assert page.evaluate("localStorage.getItem('olg.ui.theme')") == "dark"

    # Remembered over a reload, even on a system that prefers light.
    page.reload()
    expect(page.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "true")
    assert _background(page) == dark
    # Pressed again: light, remembered too.
    page.get_by_role("button", name="Dark mode").click()
    expect(page.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "false")
    assert _background(page) == light

    # With no choice made, the page follows the system's preference.
    page.evaluate("localStorage.removeItem('olg.ui.theme')")
    page.emulate_media(color_scheme="dark")
    page.reload()
    expect(page.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "true")
    assert _background(page) == dark


def _listed(page: Page, thread_id: str):
    return page.locator(f'.thread-item[data-thread-id="{thread_id}"]')


def test_a_threads_status_in_the_sidebar_stays_current(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 7 * 191")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    thread_id = current_thread(page)
    item = _listed(page, thread_id)
    expect(item).to_have_attribute("data-status", "interrupted")
    expect(item.locator(".thread-status")).to_have_text("interrupted")
    expect(item.locator(".thread-label")).to_have_text("calculate 7 * 191")

    # Approved in the page: once the run ends, the thread is idle in the list too.
    form = page.get_by_role("form", name="Review the tool calls")
    form.get_by_role("button", name="Submit decision").click()
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(item).to_have_attribute("data-status", "idle")
    expect(item.locator(".thread-status")).to_have_text("idle")

    # A second thread waits for a review, then is answered elsewhere (the API): the list says
    # so as soon as the page changes thread.
    page.get_by_role("button", name="New thread", exact=True).click()
    send(page, "calculate 3 + 977")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    other = current_thread(page)
    expect(_listed(page, other)).to_have_attribute("data-status", "interrupted")
    resumed = httpx.post(
        f"{served.url}/threads/{other}/runs/wait",
        json={
            "assistant_id": "react_agent_hitl",
            "command": {"resume": {"decisions": [{"type": "approve"}]}},
        },
        timeout=30,
    )
    assert resumed.status_code == 200, resumed.text
    _listed(page, thread_id).click()
    expect(_listed(page, other)).to_have_attribute("data-status", "idle")
    expect(_listed(page, thread_id)).to_have_attribute("data-status", "idle")

    # The search box filters the list by the first message (the server is shared with other
    # tests: the expressions are this test's own).
    search = page.get_by_role("searchbox", name="Search threads")
    search.fill("3 + 977")
    expect(page.locator(".thread-item")).to_have_count(1)
    expect(page.locator(".thread-item .thread-label")).to_have_text("calculate 3 + 977")
    search.fill("no thread says this")
    expect(page.locator(".thread-item")).to_have_count(0)
    expect(page.locator(".thread-items")).to_contain_text("No threads match.")


def test_the_token_is_masked_until_shown(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/")
    page.get_by_role("button", name="Token").click()
    dialog = page.get_by_role("dialog")
    token = dialog.get_by_label("Token")
    expect(token).to_have_attribute("type", "password")
    token.fill("secret-key")
    show = dialog.get_by_role("button", name="Show")
    expect(show).to_have_attribute("aria-pressed", "false")
    show.click()
    expect(token).to_have_attribute("type", "text")
    expect(show).to_have_attribute("aria-pressed", "true")
    expect(token).to_have_value("secret-key")
    show.click()
    expect(token).to_have_attribute("type", "password")
    token.fill("")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def test_the_chat_opens_on_react_agent(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/")
    expect(page.locator("#assistant-select option:checked")).to_have_text("react_agent")
    # The address names it, so a reload keeps it.
    expect(page).to_have_url(re.compile(r"#/chat\?assistant=react_agent$"))


def test_tool_calls_can_be_hidden_and_the_choice_is_remembered(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "react_agent")
    send(page, "calculate 6 * 7")
    expect(page.get_by_role("status")).to_have_text(DONE)
    log = page.get_by_role("log", name="Conversation")
    call = log.locator("details.tool-call")
    answer = log.get_by_text("The calculator says 42. That is the answer.")
    toggle = page.get_by_role("checkbox", name="Tool calls")
    expect(toggle).to_be_checked()
    expect(call).to_be_visible()

    # Unticked: only what was said; the answer stays.
    toggle.uncheck()
    expect(call).to_be_hidden()
    expect(log.locator("details.tool-result")).to_be_hidden()
    expect(answer).to_be_visible()
    page.reload()
    expect(page.get_by_role("checkbox", name="Tool calls")).not_to_be_checked()
    expect(log.get_by_text("The calculator says 42. That is the answer.")).to_be_visible()
    expect(log.locator("details.tool-call")).to_be_hidden()
    page.get_by_role("checkbox", name="Tool calls").check()
    expect(log.locator("details.tool-call")).to_be_visible()
