"""A dropped connection mid-stream: the page (served through a proxy whose connections the test
cuts) reconnects with `Last-Event-ID` and ends with the whole reply exactly once, every token
in order, neither lost nor repeated, and the run finished. A page reloaded mid-run follows the
run when the thread is opened again."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, current_thread, open_chat, open_thread, send
from tests.ui.proxy import CuttableProxy
from tests.ui.scripted_agents import counting

pytestmark = pytest.mark.e2e

# Records, in the page, every text each assistant message element shows, numbering the
# elements in the order they appear: the streamed one first, then those redrawn from the
# stored state after the run.
WATCH_ELEMENTS = """() => {
  window.__shown = [];
  const serial = new WeakMap();
  let next = 0;
  const log = document.querySelector('[role=log]');
  new MutationObserver(() => {
    for (const el of log.querySelectorAll('.msg.ai')) {
      if (!serial.has(el)) serial.set(el, next++);
      const n = serial.get(el);
      const text = el.querySelector('.text')?.textContent ?? '';
      const last = window.__shown.findLast((s) => s[0] === n);
      if (!last || last[1] !== text) window.__shown.push([n, text]);
    }
  }).observe(log, {childList: true, subtree: true, characterData: true});
}"""


def streamed_texts(page: Page) -> list[str]:
    """The texts the first assistant message element showed, in order (see WATCH_ELEMENTS)."""
    return [text for n, text in page.evaluate("window.__shown") if n == 0]


@pytest.fixture
def proxy(served: ServerProcess) -> Iterator[CuttableProxy]:
    proxy = CuttableProxy(served.port)
    proxy.start()
    yield proxy
    proxy.close()


def test_stream_survives_dropped_connections_without_losing_or_repeating_tokens(
    page: Page, served: ServerProcess, proxy: CuttableProxy
) -> None:
    # The page comes through the proxy too, so its API calls (same origin) do.
    page.goto(f"{proxy.url}/ui/#/chat?assistant=react_agent")
    expect(page.locator("#assistant-select option:checked")).to_have_text("react_agent")
    page.evaluate(WATCH_ELEMENTS)
    reply = counting(40)
    send(page, "count to 40")
    streamed = page.get_by_role("log", name="Conversation").locator(".msg.ai .text")

    expect(streamed).to_contain_text("Counting: 1 2 3 4 5")
    assert proxy.cut() > 0
    expect(streamed).to_contain_text(" 20 ", timeout=20_000)
    assert proxy.cut() > 0

    expect(streamed).to_have_text(reply, timeout=30_000)
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(page.locator(".error")).to_have_count(0)

    shown = page.evaluate("window.__shown")
    live = streamed_texts(page)
    # The streamed element grew token by token through both cuts, each text a prefix of the
    # reply (a lost token or a repeated one would break that), and reached the whole reply
    # before the page redrew the thread from storage.
    assert all(reply.startswith(text) for text in live), live
    assert live[-1] == reply, live
    assert len(live) >= 20, live
    assert all(text == reply for n, text in shown if n > 0), shown

    # The SDK rejoined the run's stream after each cut, saying which event it saw last.
    thread_id = current_thread(page)
    rejoins = [
        r
        for r in proxy.requests()
        if r.method == "GET"
        and r.path.startswith(f"/threads/{thread_id}/runs/")
        and "/stream" in r.path
    ]
    assert len(rejoins) >= 2, proxy.requests()
    assert all(r.headers.get("last-event-id", "").isdigit() for r in rejoins), rejoins

    # One run, finished; the thread holds the question and the reply once.
    runs = httpx.get(f"{served.url}/threads/{thread_id}/runs").json()
    assert [run["status"] for run in runs] == ["success"]
    state = httpx.get(f"{served.url}/threads/{thread_id}/state").json()
    assert [(m["type"], m["content"]) for m in state["values"]["messages"]] == [
        ("human", "count to 40"),
        ("ai", reply),
    ]


def test_a_page_reloaded_mid_run_follows_the_run_when_the_thread_is_opened(
    page: Page, served: ServerProcess
) -> None:
    open_chat(page, served, "react_agent")
    send(page, "count to 40")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator(".msg.ai .text")).to_contain_text("Counting: 1 2 3")
    thread_id = current_thread(page)

    # A fresh page on a new thread (the address would reopen the thread by itself), then the
    # thread chosen in the sidebar.
    page.goto("about:blank")
    page.goto(f"{served.url}/ui/#/chat?assistant=react_agent")
    expect(page.locator("#assistant-select option:checked")).to_have_text("react_agent")
    expect(log.locator(".msg")).to_have_count(0)
    page.evaluate(WATCH_ELEMENTS)
    open_thread(page, thread_id)
    reply = counting(40)
    expect(page.get_by_role("status")).to_have_text("Status: Running")
    expect(log.locator(".msg.ai .text")).to_have_text(reply, timeout=20_000)
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(log.locator(".msg")).to_have_count(2)
    live = streamed_texts(page)
    # The reply was replayed from its first token, then grew live to its end.
    assert all(reply.startswith(text) for text in live), live
    assert live[-1] == reply, live
    assert len({text for text in live if text != reply}) >= 3, live
