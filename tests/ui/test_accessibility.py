"""axe-core (the pinned npm package the UI build installs) on the four main views, each with
content in it: no serious or critical violations."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, INTERRUPTED, current_thread, open_chat, send, serious_violations

pytestmark = pytest.mark.e2e

MARKDOWN = """Some **bold** text, `inline code`, a [link](https://example.com) and a quote:

> quoted

```python
import json
def greet(name: str) -> dict:
    return {"hello": name, "n": 42, "ok": True}  # a comment
```

```bash
echo "$HOME" | grep -c x  # count
```

| a | b |
|---|---|
| 1 | 2 |
"""

RECORDING = (
    Path(__file__).resolve().parents[1]
    / "evals"
    / "recordings"
    / "laser-qwen1.5b-1k-synthetic-0.json"
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chat_with_a_pending_approval(page: Page, served: ServerProcess, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    open_chat(page, served, "react_agent_hitl")
    send(page, "calculate 1 + 1")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    page.locator("details.tool-call summary").first.click()
    assert serious_violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chat_with_markdown_code_and_tool_results(
    page: Page, served: ServerProcess, scheme: str
) -> None:
    """Highlighted code, inline code, links, a table, tool calls open with their results, the
    thread list: in both themes (dark chosen with the page's toggle)."""
    if scheme == "dark":
        page.goto(f"{served.url}/ui/")
        page.get_by_role("button", name="Dark mode").click()
    open_chat(page, served, "echo_agent")
    send(page, MARKDOWN)
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(page.locator(".msg.ai .hljs-keyword").first).to_be_visible()
    if scheme == "dark":
        expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert serious_violations(page) == []
    page.get_by_label("Assistant").select_option(label="react_agent")
    send(page, "calculate 6 * 7")
    expect(page.get_by_role("status")).to_have_text(DONE)
    for summary in page.locator(".tool summary").all():
        summary.click()
    assert serious_violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chat_with_the_live_graph(page: Page, served: ServerProcess, scheme: str) -> None:
    """The graph beside the chat, with done and interrupted nodes and a subgraph expanded."""
    page.emulate_media(color_scheme=scheme)
    open_chat(page, served, "live_graph")
    page.get_by_role("button", name="Graph", exact=True).click()
    expect(page.get_by_role("img", name="Graph of live_graph")).to_be_visible()
    send(page, "no hold")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    page.get_by_label("Show subgraphs").check()
    expect(page.locator('svg.graph g[data-node="review"]')).to_have_attribute(
        "data-state", "interrupted"
    )
    assert serious_violations(page) == []


def test_threads_with_a_thread_open(page: Page, served: ServerProcess) -> None:
    open_chat(page, served, "echo_agent")
    send(page, "for the threads view")
    expect(page.get_by_role("status")).to_have_text(DONE)
    thread_id = current_thread(page)
    page.goto(f"{served.url}/ui/#/threads?thread={thread_id}")
    expect(page.locator(".checkpoint-state pre")).to_contain_text("for the threads view")
    assert serious_violations(page) == []


def test_assistants_with_graph_and_schema_form(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/assistants")
    page.get_by_role("button", name="react_agent_hitl (react_agent_hitl)", exact=False).click()
    expect(page.get_by_role("img", name="Graph of react_agent_hitl")).to_be_visible()
    assert serious_violations(page) == []


def test_episodes_with_a_recording_open(page: Page, served: ServerProcess) -> None:
    page.goto(f"{served.url}/ui/#/episodes")
    page.get_by_label("Episode recording").set_input_files(RECORDING)
    expect(page.locator(".step-count")).to_contain_text("Step 1 of")
    assert serious_violations(page) == []
