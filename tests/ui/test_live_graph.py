"""The live graph beside the chat (`live_graph`, tests/ui/live_graph_agent.py): while a run is
held inside a node, exactly that node is marked running (it is marked as it starts, from the
`tasks` stream); it is marked done when it ends; the node an interrupt stopped the run in is
marked, also on a thread opened later (from the thread's state); subgraphs expand (xray); the
graph fits a phone's width and reads in dark mode; the layout code is fetched only when a graph
is shown."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.helpers import DONE, INTERRUPTED, no_sideways_scroll, open_chat, send
from tests.ui.live_graph_agent import QUESTION

pytestmark = pytest.mark.e2e

ASSISTANT = "live_graph"


def _open_graph(page: Page) -> Locator:
    """Show the graph beside the chat; the drawing, once laid out."""
    toggle = page.get_by_role("button", name="Graph", exact=True)
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    picture = page.get_by_role("img", name=f"Graph of {ASSISTANT}")
    expect(picture).to_be_visible()
    return picture


def _node(page: Page, node: str) -> Locator:
    return page.locator(f'svg.graph g[data-node="{node}"]')


def _states(page: Page, **expected: str) -> None:
    for node, state in expected.items():
        expect(_node(page, node)).to_have_attribute("data-state", state)


def _answer(page: Page, text: str) -> None:
    form = page.get_by_role("form", name="Answer the agent")
    form.get_by_label(QUESTION).fill(text)
    form.get_by_role("button", name="Send answer").click()


def test_the_node_a_run_is_held_in_is_marked_running_then_done(
    page: Page, served: ServerProcess, tmp_path: Path
) -> None:
    release = tmp_path / "release"
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    open_chat(page, served, ASSISTANT)
    # The layout code (dagre) is a chunk of its own, fetched only when a graph is shown.
    page.wait_for_load_state("networkidle")
    assert not [url for url in fetched if "/assets/graph_layout-" in url]
    _open_graph(page)
    assert [url for url in fetched if "/assets/graph_layout-" in url]
    progress = page.locator(".graph-progress")
    expect(progress).to_have_text("Nodes are marked as a run goes through them.")
    running = page.locator('svg.graph [data-state="running"]')
    try:
        send(page, f"hold until {release}")
        # Held in `hold`: it alone is running, from its start; the node before it is done.
        _states(page, hold="running", plan="done", review="idle", summarize="idle")
        expect(running).to_have_count(1)
        expect(progress).to_have_text("Running: hold. Done: plan.")
        page.wait_for_timeout(1_000)  # still held: the mark stays while the node runs
        expect(running).to_have_count(1)
        _states(page, hold="running")
    finally:
        release.touch()

    # Released: `hold` is done, and the run stops at the interrupt in `review`, marked there.
    _states(page, hold="done", review="interrupted", summarize="idle")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    expect(running).to_have_count(0)
    expect(progress).to_have_text("Stopped at an interrupt: review. Done: plan, hold.")

    # Answered: `review` runs again and ends, the subgraph runs; every node of the way is done.
    _answer(page, "yes")
    expect(page.get_by_role("status")).to_have_text(DONE)
    _states(page, plan="done", hold="done", review="done", summarize="done")
    expect(running).to_have_count(0)
    expect(page.locator('svg.graph [data-state="interrupted"]')).to_have_count(0)


def test_an_interrupt_is_marked_on_the_node_that_stopped_the_run(
    page: Page, served: ServerProcess
) -> None:
    """A thread stopped at an interrupt by a run of the API, opened in the page afterwards:
    no stream to follow, the thread's state says where it waits."""
    thread = httpx.post(f"{served.url}/threads", json={}).json()["thread_id"]
    stopped = httpx.post(
        f"{served.url}/threads/{thread}/runs/wait",
        json={
            "assistant_id": ASSISTANT,
            "input": {"messages": [{"role": "user", "content": "no hold"}]},
        },
        timeout=30,
    )
    assert stopped.status_code == 200, stopped.text
    page.goto(f"{served.url}/ui/#/chat?assistant={ASSISTANT}&thread={thread}")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    _open_graph(page)
    _states(page, review="interrupted", plan="idle", hold="idle", summarize="idle")
    expect(page.locator('svg.graph [data-state="interrupted"]')).to_have_count(1)

    # The subgraph run by `summarize` expands into a box of its two nodes.
    expect(_node(page, "summarize")).to_have_attribute("data-subgraph", "true")
    page.get_by_label("Show subgraphs").check()
    cluster = page.locator('svg.graph g.graph-cluster[data-node="summarize"]')
    expect(cluster).to_be_visible()
    for inner in ("summarize:draft", "summarize:polish"):
        expect(_node(page, inner)).to_be_visible()
    _states(page, review="interrupted")  # the states stay on the redrawn graph

    # Answered: the box of the subgraph is marked done with the nodes before it.
    _answer(page, "yes")
    expect(page.get_by_role("status")).to_have_text(DONE)
    _states(page, review="done", summarize="done")
    expect(page.locator('svg.graph [data-state="interrupted"]')).to_have_count(0)


def _colour(locator: Locator, prop: str) -> tuple[int, ...]:
    value = locator.evaluate(f"(el) => getComputedStyle(el).{prop}")
    return tuple(int(part) for part in value[value.index("(") + 1 : -1].split(",")[:3])


def _lightness(rgb: tuple[int, ...]) -> float:
    return sum(rgb) / (3 * 255)


def test_the_graph_fits_a_phone_and_reads_in_dark_mode(phone: Page, served: ServerProcess) -> None:
    page = phone
    page.emulate_media(color_scheme="dark")
    open_chat(page, served, ASSISTANT)
    picture = _open_graph(page)
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    no_sideways_scroll(page)
    # The graph's box is inside the window (a wider graph would scroll in it), and the
    # conversation's composer is still there under it.
    box = page.locator(".chat-graph .graph-scroll").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    expect(page.get_by_label("Message", exact=True)).to_be_in_viewport()
    expect(picture).to_be_in_viewport()

    # Dark: light names on dark nodes, edges lighter than the page behind them.
    node = _node(page, "plan")
    name = _lightness(_colour(node.locator("text.node-label"), "fill"))
    fill = _lightness(_colour(node.locator("rect.node-box"), "fill"))
    assert name > 0.75 and fill < 0.2, (name, fill)
    edge = _lightness(_colour(page.locator("svg.graph path.graph-edge").first, "stroke"))
    assert edge > 0.5, edge

    send(page, "no hold")
    expect(page.get_by_role("status")).to_have_text(INTERRUPTED)
    _states(page, review="interrupted")
    # The graph is taller than its box on a phone: the box scrolled to the stopped node.
    expect(_node(page, "review")).to_be_in_viewport()
    no_sideways_scroll(page)
