"""A live `olg serve` with the agents the UI tests chat with, and headless Debian Chromium
driven by Playwright (no browser download: /usr/bin/chromium, as graphs/web_agent uses).

Every test gets a fresh browser context; at its end the page is saved as
tests/ui/output/<test name>.png (gitignored) for a person to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.fixtures.server import ServerProcess, serving, write_config

PROJECT = Path(__file__).resolve().parents[2]
OUTPUT = Path(__file__).parent / "output"
CHROMIUM = os.environ.get("OLG_TEST_CHROMIUM", "/usr/bin/chromium")
UI_GRAPHS = {
    "echo_agent": str(PROJECT / "graphs" / "echo_agent" / "graph.py") + ":graph",
    "react_agent": "tests.ui.scripted_agents:react_agent",
    "react_agent_hitl": "tests.ui.scripted_agents:react_agent_hitl",
    # `create_agent` + `HumanInTheLoopMiddleware` in its two modes, as LangChain v1 users build
    # an agent that waits for a person.
    "hitl_batched": "tests.ui.scripted_agents:hitl_batched",
    "hitl_per_call": "tests.ui.scripted_agents:hitl_per_call",
    # The real web agent on the scripted shopper: its clarify and plan-approval interrupts are
    # the graph's own, so the forms are tested against the shapes it really sends.
    "web_agent": "tests.agents.web_agent.served_graph:graph",
    # The small embedded model, loaded by its first run (the page shows the load).
    "small_model": "tests.fixtures.local_model_graph:graph",
    # A run held inside a node until the test releases it, then stopped at an interrupt: the
    # live graph view's node states.
    "live_graph": "tests.ui.live_graph_agent:graph",
}


def ui_server(directory: Path, **extra: object) -> AbstractContextManager[ServerProcess]:
    """A server of the UI graphs (plus `extra` config) on `directory`, started by `with` and
    closed at its end."""
    return serving(
        directory,
        write_config(directory, graphs=UI_GRAPHS, **extra),
        env={"OLG_SEARCH_DOCS": "", "TAVILY_API_KEY": ""},
    )


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ui_server(tmp_path_factory.mktemp("ui-server")) as process:
        yield process


# Package scope: Playwright's sync API keeps an event loop running in the main thread while
# it is open, which would break every later test that starts its own loop.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
    )
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.fixture
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page 390 px wide, as an iPhone 12-15 shows it."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{request.node.name}.png"))
    context.close()
