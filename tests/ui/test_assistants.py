"""Assistants in the page: the graph drawn from /assistants/{id}/graph and the context schema as
a form that saves a new version."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e


def test_graph_is_drawn_and_the_schema_form_saves_a_new_version(
    page: Page, served: ServerProcess
) -> None:
    created = httpx.post(
        f"{served.url}/assistants", json={"graph_id": "react_agent", "name": "ui-versions"}
    ).json()
    page.goto(f"{served.url}/ui/#/assistants")
    page.get_by_role("button", name="ui-versions (react_agent) v1").click()
    # The default react_agent assistant draws the same graph: wait for this one's heading.
    expect(page.get_by_role("heading", name="ui-versions · react_agent")).to_be_visible()
    graph = page.get_by_role("img", name="Graph of react_agent")
    expect(graph).to_be_visible()
    for node in ("__start__", "model", "tools", "__end__"):
        expect(graph.locator("text", has_text=node)).to_have_count(1)
    expect(page.locator("svg.graph title")).to_contain_text("model to tools (conditional)")

    form = page.get_by_role("form", name="New version")
    form.get_by_label("Max Search Results").fill("7")
    form.get_by_label("Model").fill("local/smollm2-135m")
    form.get_by_role("button", name="Save as new version").click()
    expect(page.locator("ul.versions li")).to_have_count(2)
    expect(page.get_by_text("Version 2 ·")).to_be_visible()
    # The list shows the new version too, with this assistant still the open one.
    listed = page.get_by_role("list", name="Assistants")
    expect(listed.get_by_role("button", name="ui-versions (react_agent) v2")).to_have_attribute(
        "aria-current", "true"
    )
    expect(listed.get_by_role("button", name="ui-versions (react_agent) v1")).to_have_count(0)

    saved = httpx.get(f"{served.url}/assistants/{created['assistant_id']}").json()
    assert saved["version"] == 2
    assert saved["context"]["max_search_results"] == 7
    assert saved["context"]["model"] == "local/smollm2-135m"


def test_unset_settings_show_empty_fields_not_null(page: Page, served: ServerProcess) -> None:
    """web_agent's `allowed_origins` (a list or null) and `chat_model` (any value) default to
    null: their fields are empty, and saving leaves them out."""
    page.goto(f"{served.url}/ui/#/assistants")
    page.get_by_role("button", name="web_agent (web_agent) v", exact=False).click()
    expect(page.get_by_role("heading", name="web_agent · web_agent")).to_be_visible()
    form = page.get_by_role("form", name="New version")
    expect(form.get_by_label("Allowed Origins")).to_have_value("")
    expect(form.get_by_label("Chat Model")).to_have_value("")
    values = form.locator("input, textarea, select").evaluate_all(
        "els => els.map((el) => el.value)"
    )
    assert "null" not in values, values
    assert "null" not in form.inner_text()
