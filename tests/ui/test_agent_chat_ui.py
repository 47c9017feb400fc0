"""Agent Chat UI's calls, made by the JS SDK's own `useStream` in Chromium, against a live server.

tests/clients/agent_chat_ui is a page that sets `useStream` up as Agent Chat UI does and makes
its `submit` calls (send, regenerate, edit, approve / edit / reject / respond, "Mark as
Resolved") and agent-inbox's resolve. It is served from its own origin, `http://localhost:<port>`,
as Agent Chat UI's dev server is, so every call crosses origins and passes CORS. Every response
the server gives the page must be a success, and each run must resume and finish.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.fixtures.server import ServerProcess, free_port, serving, write_config

HARNESS = Path(__file__).resolve().parents[1] / "clients" / "agent_chat_ui"
BUILD = Path(__file__).resolve().parents[2] / "scripts" / "_clients.sh"
GRAPHS = {
    "hitl_agent": "tests.fixtures.hitl_agent:hitl_agent",
    "hitl_agent_per_call": "tests.fixtures.hitl_agent:hitl_agent_per_call",
}
TIMEOUT_MS = 20_000


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def harness_origin() -> Iterator[str]:
    """The harness page, built if needed, served on its own port as a dev server serves it."""
    subprocess.run(["bash", str(BUILD)], check=True)
    handler = functools.partial(_QuietHandler, directory=str(HARNESS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, harness_origin: str) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("agent-chat-ui")
    # Exactly the page's origin: localhost and 127.0.0.1 are different origins.
    config = write_config(
        directory, graphs=GRAPHS, http={"cors": {"allow_origins": [harness_origin]}}
    )
    with serving(directory, config) as process:
        yield process


class ChatPage:
    """The harness page, and every response the API server gave it."""

    def __init__(self, page: Page, api_url: str) -> None:
        self.page = page
        self.api_url = api_url
        self.responses: list[tuple[str, int]] = []
        page.on("response", self._record)
        page.on("pageerror", lambda error: self.responses.append((f"page error: {error}", 0)))

    def _record(self, response: Response) -> None:
        if response.url.startswith(self.api_url):
            method = response.request.method
            self.responses.append(
                (f"{method} {response.url[len(self.api_url) :]}", response.status)
            )

    def wait(self, condition: str, arg: Any = None) -> None:
        """Wait for `condition` (a JS function of `arg`); on a timeout, say what the page saw."""
        try:
            self.page.wait_for_function(condition, arg=arg, timeout=TIMEOUT_MS)
        except PlaywrightTimeout:
            failed = [(call, status) for call, status in self.responses if not 200 <= status < 300]
            raise AssertionError(
                f"page never got to {condition!r}; failed calls {failed}, "
                f"state {self.call('status')}"
            ) from None

    def call(self, expression: str, *args: Any) -> Any:
        return self.page.evaluate(f"(args) => window.chat.{expression}(...args)", list(args))

    def wait_for_reply(self, text: str, count: int) -> list[dict[str, Any]]:
        """The messages once the run is over with `count` messages, the last one `text`."""
        self.wait(
            """([text, count]) => {
                const s = window.chat.status();
                const last = s.messages[s.messages.length - 1];
                return !s.loading && s.messages.length === count && last && last.content === text;
            }""",
            [text, count],
        )
        return self.call("status")["messages"]

    def wait_for_review(self) -> dict[str, Any]:
        self.wait(
            "() => !window.chat.status().loading && window.chat.status().interrupts.length === 1"
        )
        return self.call("status")["interrupts"][0]

    def assert_all_succeeded(self) -> None:
        failed = [(call, status) for call, status in self.responses if not 200 <= status < 300]
        assert not failed, failed
        assert self.call("status")["error"] is None


@pytest.fixture
def chat(browser: Browser, api: ServerProcess, harness_origin: str) -> Iterator[ChatPage]:
    context = browser.new_context()
    page = context.new_page()
    chat_page = ChatPage(page, api.url)
    yield chat_page
    context.close()


def open_chat(chat: ChatPage, harness_origin: str, assistant: str) -> None:
    chat.page.goto(
        f"{harness_origin}/index.html?apiUrl={chat.api_url}&assistantId={assistant}"
        f"&graphId={assistant}"
    )
    chat.page.wait_for_function("() => window.chat !== undefined", timeout=TIMEOUT_MS)


def thread_of(api: ServerProcess, thread_id: str) -> dict[str, Any]:
    return httpx.get(f"{api.url}/threads/{thread_id}").json()


def test_chat_thread_list_regenerate_edit_and_reopen(
    chat: ChatPage, api: ServerProcess, harness_origin: str
):
    open_chat(chat, harness_origin, "hitl_agent")
    chat.call("send", "first question")
    chat.wait_for_reply("You said: first question", 2)
    chat.call("send", "second question")
    messages = chat.wait_for_reply("You said: second question", 4)
    thread_id = chat.call("threadId")
    assert thread_id in chat.call("listThreads")

    chat.call("regenerate", messages[3]["id"])
    regenerated = chat.wait_for_reply("You said: second question", 4)
    assert regenerated[3]["id"] != messages[3]["id"]

    chat.call("edit", messages[2]["id"], "edited question")
    chat.wait_for_reply("You said: edited question", 4)
    stored = thread_of(api, thread_id)["values"]["messages"]
    assert [m["content"] for m in stored] == [
        "first question",
        "You said: first question",
        "edited question",
        "You said: edited question",
    ]

    # Reopening the thread from the list loads it from the server's history.
    chat.call("switchThread", None)
    chat.wait("() => window.chat.status().messages.length === 0")
    chat.call("switchThread", thread_id)
    chat.wait_for_reply("You said: edited question", 4)
    chat.assert_all_succeeded()


DECISIONS: dict[str, tuple[dict[str, Any], str]] = {
    "approve": ({"type": "approve"}, "Done: sent 'hi' to ada@example.org."),
    "edit": (
        {
            "type": "edit",
            "edited_action": {"name": "send_email", "args": {"to": "b@x.org", "body": "yo"}},
        },
        "sent 'yo' to b@x.org.",
    ),
    "reject": ({"type": "reject", "message": "not now"}, "not now"),
    "respond": ({"type": "respond", "message": "server down"}, "Done: server down."),
}


@pytest.mark.parametrize("kind", list(DECISIONS))
def test_review_decisions_resume_the_run(
    chat: ChatPage, api: ServerProcess, harness_origin: str, kind: str
):
    decision, expected = DECISIONS[kind]
    open_chat(chat, harness_origin, "hitl_agent")
    chat.call("send", "email ada@example.org: hi")
    review = chat.wait_for_review()
    assert review["value"]["action_requests"][0]["name"] == "send_email"

    chat.call("resume", {"decisions": [decision]})
    chat.wait(
        "(expected) => { const s = window.chat.status(); const last = s.messages.at(-1);"
        " return !s.loading && s.interrupts.length === 0 && last.type === 'ai'"
        " && String(last.content).includes(expected); }",
        expected,
    )
    thread = thread_of(api, chat.call("threadId"))
    assert (thread["status"], thread["interrupts"]) == ("idle", {})
    chat.assert_all_succeeded()


def test_per_call_reviews_are_answered_by_interrupt_id(
    chat: ChatPage, api: ServerProcess, harness_origin: str
):
    open_chat(chat, harness_origin, "hitl_agent_per_call")
    chat.call("send", "email ada@example.org: hi")
    review = chat.wait_for_review()
    assert review["value"]["type"] == "tool_approval"
    chat.call("resume", {review["id"]: {"type": "approve"}})
    chat.wait_for_reply("Done: sent 'hi' to ada@example.org.", 4)
    chat.assert_all_succeeded()


@pytest.mark.parametrize("how", ["resolve", "inboxResolve"])
def test_mark_as_resolved_leaves_the_thread_idle(
    chat: ChatPage, api: ServerProcess, harness_origin: str, how: str
):
    open_chat(chat, harness_origin, "hitl_agent")
    chat.call("send", "email ada@example.org: hi")
    chat.wait_for_review()
    thread_id = chat.call("threadId")
    chat.call(how)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        thread = thread_of(api, thread_id)
        if thread["status"] == "idle" and not thread["interrupts"]:
            break
        time.sleep(0.1)
    assert (thread["status"], thread["interrupts"]) == ("idle", {})
    chat.wait("() => !window.chat.status().loading")
    # The thread takes the next message.
    chat.call("send", "thanks")
    chat.wait_for_reply("You said: thanks", 4)
    chat.assert_all_succeeded()
