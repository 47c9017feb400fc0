"""Per-state action schemas are restricted to what the page offers, and calls from models that
are not grammar-constrained are held to them."""

from __future__ import annotations

from graphs.laser.decide import parse_action_text
from graphs.laser.tools import buy_now_tool, check_call, item_tools, result_tools, tool_names
from graphs.laser.views import (
    ItemView,
    ResultItem,
    ResultsView,
    item_view,
    render_results,
    result_choices,
    results_view,
)
from open_langgraph.envs.webshop import WebShopEnv


def test_result_schema_lists_exactly_the_page_ids() -> None:
    env = WebShopEnv(None)
    env.reset(session=0)
    env.step("search[free shampoo with size]")
    view = results_view(env.session.page)
    assert view.total > 10
    tools = result_tools(view)
    # No paging on before an item of this page was opened: explore first.
    assert tool_names(tools) == ["select_item", "Back_to_Search"]
    enum = tools[0]["function"]["parameters"]["properties"]["item_id"]["enum"]
    assert enum == [i.item_id for i in view.items]
    assert len(enum) == 10
    env.step(f"click[{enum[0]}]")
    env.step("click[< Prev]")
    opened = results_view(env.session.page)
    assert tool_names(result_tools(opened)) == ["select_item", "Next", "Back_to_Search"]


def test_the_model_opens_one_of_the_first_three_results_not_opened_yet() -> None:
    env = WebShopEnv(None)
    env.reset(session=0)
    env.step("search[free shampoo with size]")
    page = results_view(env.session.page)
    ranked = [i.item_id for i in page.items]
    choices = result_choices(page)
    enum = result_tools(page, choices)[0]["function"]["parameters"]["properties"]["item_id"]
    assert enum["enum"] == ranked[:3]
    shown = render_results(page, choices)
    assert all(i in shown for i in ranked[:3]) and ranked[3] not in shown
    # The first result opened on the page, the second remembered from another page: the
    # window slides on in rank order.
    env.step(f"click[{ranked[0]}]")
    env.step("click[< Prev]")
    after = result_choices(results_view(env.session.page), {ranked[1]})
    assert [i.item_id for i in after] == ranked[2:5]
    # Once every result was opened, any may be opened again.
    every = result_choices(results_view(env.session.page), set(ranked))
    assert [i.item_id for i in every] == ranked[:3]


def test_every_call_carries_its_thought_and_an_item_call_its_match_score() -> None:
    view = ItemView("X1", "Socks", "$3", "4", options={"size": ["s", "m"]})
    for tool in item_tools(view):
        params = tool["function"]["parameters"]
        assert params["required"][:2] == ["thought", "match_score"]
        assert params["properties"]["match_score"]["maximum"] == 10
    results = result_tools(ResultsView(items=[ResultItem("X1", "t", "$1", False)]))
    assert all(t["function"]["parameters"]["required"][0] == "thought" for t in results)
    # A hosted model's call without them is still valid: they are read, not enforced.
    assert check_call(results, "select_item", {"item_id": "X1"}) == {"item_id": "X1"}


def test_last_results_page_offers_no_next() -> None:
    view = ResultsView(page=5, total=50, items=[ResultItem("X1", "t", "$1", False)])
    assert tool_names(result_tools(view)) == ["select_item", "Back_to_Search"]


def test_buy_now_has_one_enum_argument_per_option_type() -> None:
    env = WebShopEnv(None)
    env.reset(session=1)
    env.step("search[t-shirt]")
    env.step("click[DM00000022]")
    view = item_view(env)
    params = buy_now_tool(view)["function"]["parameters"]
    assert params["required"] == ["thought", "match_score", "color", "size"]
    assert params["properties"]["size"]["enum"] == ["medium", "large", "x-large"]
    names = tool_names(item_tools(view))
    assert names == ["Buy_Now", "Description", "Features", "Reviews", "Prev"]


def test_option_names_become_valid_argument_names() -> None:
    view = ItemView("X", "t", "$1", "", options={"color / style": ["a"], "color/style": ["b"]})
    params = buy_now_tool(view)["function"]["parameters"]
    assert list(params["properties"])[2:] == ["color_style", "color_style_"]
    # An option named like a decision argument does not overwrite it.
    clash = buy_now_tool(ItemView("X", "t", "$1", "", options={"thought": ["a"]}))
    assert list(clash["function"]["parameters"]["properties"]) == [
        "thought",
        "match_score",
        "thought_",
    ]


def test_calls_outside_the_schema_are_rejected() -> None:
    view = ResultsView(items=[ResultItem("B01", "t", "$1", False)])
    tools = result_tools(view)
    assert check_call(tools, "select_item", {"item_id": "B01"}) == {"item_id": "B01"}
    assert check_call(tools, "select_item", {"item_id": "b01"}) == {"item_id": "B01"}
    assert check_call(tools, "select_item", {"item_id": "B02"}) is None
    assert check_call(tools, "select_item", {}) is None
    assert check_call(tools, "Next", {}) is None  # not offered on this page
    assert check_call(tools, "Buy_Now", {}) is None


def test_mapping_parser_reads_the_action_and_its_arguments() -> None:
    view = ResultsView(items=[ResultItem("B01", "t", "$1", True)], has_next=True)
    tools = result_tools(view)
    assert parse_action_text("select_item[item_id=B01]", tools) == (
        "select_item",
        {"item_id": "B01"},
    )
    assert parse_action_text("I'd open B01: select_item", tools) == (
        "select_item",
        {"item_id": "B01"},
    )
    assert parse_action_text("Next", tools) == ("Next", {})
    assert parse_action_text("buy it", tools) is None


def test_after_reading_a_subpage_an_item_offers_only_buy_or_back() -> None:
    view = ItemView("X1", "Socks", "$3", "4", options={"size": ["s", "m"]})
    assert tool_names(item_tools(view, may_read=False)) == ["Buy_Now", "Prev"]
