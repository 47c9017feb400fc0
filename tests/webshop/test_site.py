"""The HTML site: fixed sessions, links that click, the done page's reward."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.envs.webshop.site import create_app


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(WebShopEnv()))


def test_fixed_session_shops_for_that_goal(client: TestClient) -> None:
    env_goal = WebShopEnv().goals[4]
    page = client.get("/fixed_4").text
    assert 'id="search_input"' in page and env_goal["asin"] not in page
    state = client.get("/fixed_4/state").json()
    assert state["goal"] == env_goal and state["page"] == "search" and not state["done"]
    assert client.get("/fixed_99999").status_code == 404


def test_following_links_to_a_purchase(client: TestClient) -> None:
    goal = client.get("/fixed_1/state").json()["goal"]
    client.get("/fixed_1")
    results = client.get("/fixed_1/search", params={"keywords": goal["query"]}).text
    links = re.findall(r'class="product-link[^"]*" href="([^"]+)"', results)
    assert links
    item = client.get(f"/fixed_1/click?target={goal['asin'].lower()}").text
    assert "Buy Now" in item and "option" in item
    for value in goal["goal_options"].values():
        client.get("/fixed_1/click", params={"target": value})
    done = client.get("/fixed_1/click", params={"target": "buy now"}).text
    state = client.get("/fixed_1/state").json()
    assert state["done"] and state["reward"] is not None
    assert f'<div id="reward">Reward: {state["reward"]}</div>' in done


def test_root_redirects_to_the_first_goal(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 302 and response.headers["location"] == "/fixed_0"
