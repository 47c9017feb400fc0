"""Generative UI in Chromium: the JS SDK's `LoadExternalComponent` loads a component the server
built (`ui` of the config) and renders it, live and interactive, in its shadow root.

tests/clients/agent_chat_ui/genui.html is a page using `useStream` and `LoadExternalComponent`
as LangGraph's generative UI guide does, served from its own origin as a React app's dev
server is: the component's markup and script come from the API server across origins. The
project is tests/fixtures/projects/generative_ui (its graph pushes a `weather` card).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.fixtures.server import ServerProcess, serving
from tests.ui.test_agent_chat_ui import harness_origin  # noqa: F401 - the page's origin

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="needs Node.js and npm")

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "generative_ui"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, harness_origin: str) -> Iterator[ServerProcess]:  # noqa: F811
    directory: Path = tmp_path_factory.mktemp("generative-ui")
    # The project's config, its files named from here, the page's origin allowed.
    config = json.loads((PROJECT / "langgraph.json").read_text())
    config["graphs"] = {"weather": f"{PROJECT}/src/graph.py:graph"}
    config["ui"] = {"weather": f"{PROJECT}/src/ui.tsx"}
    config["http"] = {"cors": {"allow_origins": [harness_origin]}}
    (directory / "langgraph.json").write_text(json.dumps(config))
    with serving(
        directory,
        directory / "langgraph.json",
        env={"OLG_UI_BUILD_DIR": str(directory / "ui-build")},
    ) as process:
        yield process


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def test_load_external_component_renders_the_servers_component(
    page: Page,
    api: ServerProcess,
    harness_origin: str,  # noqa: F811
) -> None:
    page.goto(f"{harness_origin}/genui.html?apiUrl={api.url}&assistantId=weather")
    page.wait_for_function("() => window.genui !== undefined")
    page.evaluate("() => window.genui.ask('Paris')")

    # Playwright's locators reach into the open shadow root the component renders in.
    card = page.locator(".weather-card")
    expect(card).to_contain_text("Weather in Paris")
    # The bundle's stylesheet applies inside the shadow root.
    expect(card).to_have_css("border-top-color", "rgb(10, 120, 200)")
    # React from the page runs the component: its state hook works.
    button = card.get_by_role("button")
    expect(button).to_have_text("21°C")
    button.click()
    expect(button).to_have_text("70°F")
    status = page.evaluate("() => window.genui.status()")
    assert status["error"] is None
    assert [m["name"] for m in status["ui"]] == ["weather"]
