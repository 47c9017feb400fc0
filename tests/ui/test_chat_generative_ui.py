"""Generative UI in the built-in chat (/ui): a component the graph pushes with `push_ui_message`
renders, from the bundle the server builds of the config's `ui`, in the assistant turn it was
pushed in (inside the AI message it names); it shows again when the thread is opened after a
reload (from the state's `ui` key); a push the bundle has no component for, or a graph with no
`ui`, shows the component's name and props instead; a removed one is gone.

The graph is tests/ui/genui_agent.py; the bundle is the fixture project's
(tests/fixtures/projects/generative_ui/src/ui.tsx, a `weather` card with a °C/°F button).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.fixtures.server import ServerProcess, serving, write_config
from tests.ui.helpers import DONE, current_thread, open_chat, send, serious_violations

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("npm") is None, reason="needs Node.js and npm"),
]

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "generative_ui"
BUNDLE = PROJECT / "src" / "ui.tsx"


@pytest.fixture(scope="module")
def genui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("chat-generative-ui")
    graphs = {
        "weather": "tests.ui.genui_agent:graph",
        # The same graph with no `ui` entry: every card is the fallback.
        "weather_plain": "tests.ui.genui_agent:graph",
    }
    config = write_config(directory, graphs=graphs, ui={"weather": str(BUNDLE)})
    build = {"OLG_UI_BUILD_DIR": str(directory / "ui-build")}
    with serving(directory, config, env=build) as process:
        yield process


@pytest.fixture
def chat(page: Page) -> Iterator[Page]:
    """The page, failing the test on any uncaught error in it."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(30_000)  # the first card fetches React and the bundle
    yield page
    assert not errors, errors


def _turn(page: Page) -> Locator:
    return page.get_by_role("log", name="Conversation").locator(".msg.ai").last


def _expect_cards(turn: Locator) -> None:
    """The weather card inside the reply it names, the fallback at the end of the turn."""
    reply = turn.locator(".part", has_text="Here is the weather in Paris.")
    # Playwright's CSS reaches into the open shadow root the card renders in.
    card = reply.locator(".genui[data-ui-name=weather] .weather-card")
    expect(card).to_contain_text("Weather in Paris")
    expect(card.get_by_role("button")).to_have_text("21°C")
    # The bundle's stylesheet applies inside the shadow root.
    expect(card).to_have_css("border-top-color", "rgb(10, 120, 200)")
    fallback = turn.locator(".genui[data-ui-name=forecast_map] .genui-fallback")
    expect(fallback).to_contain_text("Component: forecast_map")
    expect(fallback.locator("pre")).to_contain_text('"zoom": 3')
    expect(turn.locator(".genui")).to_have_count(2)  # `progress` was removed


def test_pushed_component_renders_in_the_turn_and_after_a_reload(
    chat: Page, genui_server: ServerProcess
) -> None:
    fetched: list[str] = []
    chat.on("request", lambda request: fetched.append(request.url))
    open_chat(chat, genui_server, "weather")
    # React is a chunk of its own, fetched only once a thread has a UI message.
    assert not [url for url in fetched if "genui_react" in url]
    send(chat, "Paris")
    expect(chat.get_by_role("status")).to_have_text(DONE)
    turn = _turn(chat)
    _expect_cards(turn)
    assert [url for url in fetched if "genui_react" in url]
    # React from the page's own chunk runs the component: its state hook works.
    button = turn.locator(".weather-card").get_by_role("button")
    button.click()
    expect(button).to_have_text("70°F")
    assert serious_violations(chat) == []

    thread_id = current_thread(chat)
    chat.reload()
    expect(chat.locator(".thread-item[aria-current=true]")).to_have_attribute(
        "data-thread-id", thread_id
    )
    _expect_cards(_turn(chat))
    expect(chat.locator(".weather-card")).to_have_count(1)


def test_cards_come_with_the_stream(chat: Page, genui_server: ServerProcess) -> None:
    """With the state unreadable after the run, what shows came from the `custom` events: the
    pushes (the removed `progress` gone) and the reply."""
    chat.route("**/threads/*/state", lambda route: route.abort())
    open_chat(chat, genui_server, "weather")
    send(chat, "Lyon")
    expect(chat.locator(".errors .error")).to_be_visible()  # the refresh after the run failed
    turn = _turn(chat)
    reply = turn.locator(".part", has_text="Here is the weather in Lyon.")
    expect(reply.locator(".genui[data-ui-name=weather] .weather-card")).to_contain_text(
        "Weather in Lyon"
    )
    expect(turn.locator(".genui[data-ui-name=forecast_map] .genui-fallback")).to_be_visible()
    expect(turn.locator(".genui")).to_have_count(2)


def test_graph_without_ui_shows_the_fallback(chat: Page, genui_server: ServerProcess) -> None:
    open_chat(chat, genui_server, "weather_plain")
    send(chat, "Oslo")
    expect(chat.get_by_role("status")).to_have_text(DONE)
    turn = _turn(chat)
    fallback = turn.locator(".genui[data-ui-name=weather] .genui-fallback")
    expect(fallback).to_contain_text("Component: weather")
    expect(fallback.locator("pre")).to_contain_text('"city": "Oslo"')
    expect(turn.locator(".genui-fallback")).to_have_count(2)
    # The chat goes on: the reply is there and another message can be sent.
    expect(turn).to_contain_text("Here is the weather in Oslo.")
    send(chat, "Rome")
    expect(_turn(chat)).to_contain_text("Here is the weather in Rome.")
    expect(chat.get_by_role("status")).to_have_text(DONE)
