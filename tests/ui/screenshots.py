"""Screenshots of the web UI's views, and of LangChain's Agent Chat UI on the same flows, for
docs/ui.md: the same server, graphs and messages, at desktop (1280 x 800) and phone (390 x 844)
width, in headless Debian Chromium.

    .venv/bin/python -m tests.ui.screenshots --out docs/ui-screenshots \\
        [--agent-chat-ui http://localhost:3000]

Agent Chat UI is not part of this project: build and start it yourself (`npm install && npx
next build && npx next start` in a checkout of langchain-ai/agent-chat-ui) and pass its
address; it is then pointed at this script's server through its `apiUrl` and `assistantId`
query parameters. The server runs the UI tests' scripted graphs (tests/ui/conftest.py), so
every picture is the same from run to run but for times and ids.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.fixtures.server import ServerProcess, serving, write_config
from tests.ui.conftest import CHROMIUM, UI_GRAPHS
from tests.ui.helpers import DONE, INTERRUPTED, open_chat, send

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TOOL_QUESTION = "calculate 6 * 7"
REVIEW_REQUEST = "delete notes.txt"


class Shooter:
    """Saves what a page shows as `<name>.png` in `out`, and lists what it saved."""

    def __init__(self, browser: Browser, out: Path) -> None:
        self.browser = browser
        self.out = out
        self.saved: list[Path] = []

    def page(self, viewport: dict[str, int], dark: bool = False) -> Page:
        context = self.browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            color_scheme="dark" if dark else "light",
            device_scale_factor=1,
        )
        page = context.new_page()
        page.set_default_timeout(30_000)
        return page

    def shoot(self, page: Page, name: str, full_page: bool = False) -> None:
        path = self.out / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.saved.append(path)
        page.context.close()


def ours(shooter: Shooter, server: ServerProcess, hold_file: Path) -> None:
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = shooter.page(viewport)
        open_chat(page, server, "react_agent")
        send(page, TOOL_QUESTION)
        expect(page.get_by_role("status")).to_have_text(DONE)
        for fold in page.locator(".msg details").all():
            fold.evaluate("el => el.open = true")
        trace = page.get_by_role("link", name="Trace").get_attribute("href")
        shooter.shoot(page, f"ours-chat-tool-{label}")

        page = shooter.page(viewport)
        page.goto(f"{server.url}/ui/{trace}")
        expect(page.get_by_role("list", name="Timeline").locator("li.span")).to_have_count(6)
        page.locator("li.span").nth(1).locator("summary").click()
        shooter.shoot(page, f"ours-trace-{label}", full_page=label == "desktop")

        thread = trace.split("thread=")[1].split("&")[0]
        page = shooter.page(viewport)
        page.goto(f"{server.url}/ui/#/threads?thread={thread}")
        expect(page.locator("ol.history li").first).to_be_visible()
        shooter.shoot(page, f"ours-threads-{label}")

        page = shooter.page(viewport)
        page.goto(f"{server.url}/ui/#/assistants")
        page.get_by_role("button", name="react_agent (react_agent) v1").click()
        expect(page.locator("svg.graph")).to_be_visible()
        shooter.shoot(page, f"ours-assistants-{label}")

        page = shooter.page(viewport)
        open_chat(page, server, "hitl_batched")
        send(page, REVIEW_REQUEST)
        expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
        shooter.shoot(page, f"ours-review-{label}")

    page = shooter.page(DESKTOP, dark=True)
    open_chat(page, server, "live_graph")
    page.get_by_role("button", name="Graph", exact=True).click()
    send(page, f"hold until {hold_file}")
    expect(page.locator('svg.graph g[data-node="hold"]')).to_have_attribute("data-state", "running")
    shooter.shoot(page, "ours-live-graph-dark-desktop")
    hold_file.touch()


def agent_chat_ui(shooter: Shooter, server: ServerProcess, origin: str) -> None:
    def address(assistant: str) -> str:
        return f"{origin}/?{urlencode({'apiUrl': server.url, 'assistantId': assistant})}"

    def chat(page: Page, assistant: str, text: str, settled: Callable[[Page], None]) -> None:
        page.goto(address(assistant))
        box = page.get_by_placeholder("Type your message...")
        box.fill(text)
        box.press("Enter")
        settled(page)

    def answered(page: Page) -> None:
        expect(page.get_by_text("The calculator says 42. That is the answer.")).to_be_visible()
        expect(page.get_by_role("button", name="Send")).to_be_visible()

    def reviewing(page: Page) -> None:
        expect(page.get_by_text("delete_file").first).to_be_visible()
        page.wait_for_timeout(1_000)

    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = shooter.page(viewport)
        chat(page, "react_agent", TOOL_QUESTION, answered)
        shooter.shoot(page, f"agent-chat-ui-chat-tool-{label}")
        page = shooter.page(viewport)
        chat(page, "hitl_batched", REVIEW_REQUEST, reviewing)
        shooter.shoot(page, f"agent-chat-ui-review-{label}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/ui-screenshots"))
    parser.add_argument("--agent-chat-ui", help="Agent Chat UI's address, already started")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        cors = {"allow_origins": [args.agent_chat_ui]} if args.agent_chat_ui else None
        config = write_config(
            directory, graphs=UI_GRAPHS, **({"http": {"cors": cors}} if cors else {})
        )
        env = {"OLG_SEARCH_DOCS": "", "TAVILY_API_KEY": ""}
        with serving(directory, config, env=env) as server, sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
            )
            shooter = Shooter(browser, args.out)
            ours(shooter, server, directory / "release")
            if args.agent_chat_ui:
                agent_chat_ui(shooter, server, args.agent_chat_ui)
            browser.close()
    for path in shooter.saved:
        print(f"{path} ({path.stat().st_size // 1024} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
