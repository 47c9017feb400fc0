"""Per-state action schemas are restricted to what the page offers, and calls from models that
are not grammar-constrained are held to them."""

from __future__ import annotations

from graphs.laser.decide import parse_action_text
from graphs.laser.tools import buy_now_tool, check_call, item_tools, result_tools, tool_names
from graphs.laser.views import ItemView, ResultItem, ResultsView, item_view, results_view
from open_langgraph.envs.webshop import WebShopEnv


def test_result_schema_lists_exactly_the_page_ids() -> None:
    env = WebShopEnv(None)
    env.reset(session=0)
    env.step("search[free shampoo with size]")
    view = results_view(env.session.page)
    assert view.total > 10
    tools = result_tools(view)
    assert tool_names(tools) == ["select_item", "Next", "Back_to_Search"]
    enum = tools[0]["function"]["parameters"]["properties"]["item_id"]["enum"]
    assert enum == [i.item_id for i in view.items]
    assert len(enum) == 10


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
    assert params["required"] == ["color", "size"]
    assert params["properties"]["size"]["enum"] == ["medium", "large", "x-large"]
    names = tool_names(item_tools(view))
    assert names == ["Description", "Features", "Reviews", "Buy_Now", "Prev"]


def test_option_names_become_valid_argument_names() -> None:
    view = ItemView("X", "t", "$1", "", options={"color / style": ["a"], "color/style": ["b"]})
    params = buy_now_tool(view)["function"]["parameters"]
    assert list(params["properties"]) == ["color_style", "color_style_"]


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
    view = ResultsView(items=[ResultItem("B01", "t", "$1", False)], has_next=True)
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
