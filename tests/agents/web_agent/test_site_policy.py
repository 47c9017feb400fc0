"""The web agent's browser stays on the sites of its task: navigations elsewhere are refused
as tool errors the model sees, and a click that lands elsewhere is undone."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.web_agent.context import resolve_context
from graphs.web_agent.graph import build_graph
from graphs.web_agent.mcp_session import SESSIONS
from graphs.web_agent.site_policy import SitePolicy, named_origins, origin_of, site_policy
from tests.agents.web_agent.conftest import chromium_processes
from tests.agents.web_agent.scripted import ScriptedModel, call, click, planned
from tests.fixtures.server import free_port

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://Shop.Example.com/a?b=c", "https://shop.example.com"),
        ("https://shop.example.com:443/", "https://shop.example.com"),
        ("http://127.0.0.1:3000/fixed_0", "http://127.0.0.1:3000"),
        ("http://[::1]:80/", "http://[::1]"),
        ("file:///etc/passwd", None),
        ("javascript:alert(1)", None),
        ("http://x:99999/", None),
    ],
)
def test_origin_of(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


def test_the_task_and_the_persons_answers_name_the_sites() -> None:
    assert named_origins(["Buy shampoo at http://127.0.0.1:3000/fixed_0, then stop."]) == [
        "http://127.0.0.1:3000"
    ]
    policy = site_policy(
        None,
        "Buy shampoo",
        [{"question": "Which shop?", "answer": "https://shop.example.com/start"}],
        [],
    )
    assert policy.allows("https://shop.example.com/item/1")
    assert not policy.allows("https://evil.example/")
    assert not policy.allows("http://shop.example.com/")  # another scheme is another origin
    refusal = policy.refusal("http://169.254.169.254/latest/meta-data")
    assert refusal is not None and "outside the sites" in refusal


def test_without_a_named_site_the_first_navigation_chooses_it() -> None:
    free = site_policy(None, "Find today's weather in Paris", [], [])
    assert free.allows("https://weather.example/paris")
    assert free.refusal("file:///etc/passwd") is not None  # never, whatever the list
    navigated = [
        {"tool": "browser_navigate", "args": {"url": "https://weather.example/"}, "ok": True}
    ]
    pinned = site_policy(None, "Find today's weather in Paris", [], navigated)
    assert pinned == SitePolicy(("https://weather.example",))


def test_configured_origins_replace_the_default() -> None:
    policy = site_policy(
        ["https://*.example.com", "http://localhost:3000/any/path"], "at http://a.test/", [], []
    )
    assert policy.allows("https://docs.example.com/x")
    assert policy.allows("http://localhost:3000/")
    assert not policy.allows("https://example.com.evil.test/")
    assert not policy.allows("http://a.test/")
    assert site_policy(["*"], "", [], []).allows("https://anywhere.test/")
    assert not site_policy([], "at http://a.test/", [], []).allows("http://a.test/")


def test_bad_allowed_origins_are_rejected_with_the_field_named() -> None:
    for bad in ("https://example.com", ["ftp://example.com"], ["example.com"], [3]):
        with pytest.raises(ValueError, match="allowed_origins"):
            resolve_context({"allowed_origins": bad})


class Driver:
    def __init__(self, model: Any, **context: Any) -> None:
        self.graph = build_graph(checkpointer=InMemorySaver())
        self.config = {"configurable": {"thread_id": str(uuid.uuid4())}}
        self.context = {"chat_model": model, **context}

    async def run(self, value: Any) -> None:
        await self.graph.ainvoke(value, self.config, context=self.context)

    async def values(self) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config)).values


async def test_a_navigation_off_the_site_is_a_tool_error_and_the_browser_never_starts() -> None:
    model = ScriptedModel(
        script=planned(
            ["Open the shop", "Done"],
            # As a page could tell the model to: the server's own API, a metadata endpoint.
            call("browser_navigate", url="http://127.0.0.1:8123/threads"),
            call("browser_navigate", url="file:///etc/passwd"),
            call("finish", result="cannot go there"),
        )
    )
    agent = Driver(model, max_steps=10, allowed_origins=["https://shop.example.com"])
    await agent.run({"task": "Find shampoo in the example shop"})
    await agent.run(Command(resume="yes"))
    final = await agent.values()
    first, second = final["action_history"][:2]
    assert not first["ok"] and "outside the sites this task may visit" in first["result"]
    assert "https://shop.example.com" in first["result"]
    assert not second["ok"] and "not an http(s) address" in second["result"]
    # The model was shown the refusal as the tool's result and as the last error.
    shown = str(model.seen[3][-1].content)
    assert "opened http://127.0.0.1:8123/threads: FAILED (refused:" in shown
    assert "outside the sites" in shown and "Last action failed: refused" in shown
    assert final["outcome"] == "completed"
    assert SESSIONS.open_keys() == [] and chromium_processes() == []


class TwoOrigins:
    """One server reached as two origins: 127.0.0.1 (the task's site) links to localhost."""

    def __init__(self) -> None:
        self.port = free_port()
        port = self.port

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/away":
                    page = "<title>Away</title><h1>Away page</h1>"
                else:
                    page = f'<title>Start</title><a href="http://localhost:{port}/away">Away</a>'
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def two_origins() -> Iterator[TwoOrigins]:
    site = TwoOrigins()
    yield site
    site.close()


async def test_a_click_that_leaves_the_site_is_undone(two_origins: TwoOrigins) -> None:
    start = f"http://127.0.0.1:{two_origins.port}/"
    model = ScriptedModel(
        script=planned(
            ["Open the page", "Done"],
            click("link", "Away"),  # the start page, named in the task, is open already
            call("finish", result="stayed"),
        )
    )
    agent = Driver(model, max_steps=10)
    await agent.run({"task": f"Look at {start}"})
    await agent.run(Command(resume="yes"))
    final = await agent.values()
    navigate, clicked = final["action_history"][:2]
    assert navigate["ok"]
    assert not clicked["ok"] and "led off the allowed sites and was undone" in clicked["result"]
    # The foreign page was never shown to the model; the browser is back on the start page.
    assert final["snapshot_url"] == start
    assert all("Away page" not in str(m.content) for seen in model.seen for m in seen)
    assert SESSIONS.open_keys() == [] and chromium_processes() == []
