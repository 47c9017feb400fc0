"""Step semantics of WebShopEnv on the 1k catalog: invalid actions, navigation, purchase."""

from __future__ import annotations

import pytest

from open_langgraph.envs.webshop import WebShopEnv


@pytest.fixture
def env(rich_env: WebShopEnv) -> WebShopEnv:
    rich_env.reset(session=0)
    return rich_env


def test_invalid_actions_change_nothing_and_earn_nothing(env: WebShopEnv) -> None:
    before = (env.observation, env.get_available_actions())
    for action in ("jump[now]", "click[not on this page]", "click[search]", "search[]", "noop"):
        obs, reward, done, info = env.step(action)
        assert (obs, env.get_available_actions()) == before
        assert (reward, done, info) == (0.0, False, {})


def test_clicks_are_case_insensitive_and_pages_chain(env: WebShopEnv) -> None:
    env.step("search[decorative pillows]")
    first = env.get_available_actions()["clickables"][2]
    obs, *_ = env.step(f"click[{first.upper()}]")
    assert "[button] Buy Now [button_]" in obs
    obs, *_ = env.step("click[features]")
    assert env.get_available_actions()["clickables"] == ["back to search", "< prev"]
    obs, *_ = env.step("click[< Prev]")
    assert "[button] Buy Now [button_]" in obs
    obs, *_ = env.step("click[< prev]")  # item page -> results again, product now visited
    assert f"[clicked button] {first.upper()} [clicked button_]" in obs


def test_back_to_search_forgets_visits(env: WebShopEnv) -> None:
    env.step("search[decorative pillows]")
    asin = env.get_available_actions()["clickables"][2]
    env.step(f"click[{asin}]")
    env.step("click[back to search]")
    assert env.get_available_actions() == {"has_search_bar": True, "clickables": ["search"]}
    obs, *_ = env.step("search[decorative pillows]")
    assert "[clicked button]" not in obs


def test_search_works_from_any_page(env: WebShopEnv) -> None:
    env.step("search[decorative pillows]")
    env.step(f"click[{env.get_available_actions()['clickables'][2]}]")
    obs, *_ = env.step("search[coffee tables]")
    assert obs.startswith("Instruction:\n") and "Page 1 (Total results:" in obs


def test_purchase_returns_reward_and_done_page(env: WebShopEnv) -> None:
    goal = env.goal
    env.step(f"search[{goal['query']}]")
    env.step(f"click[{goal['asin'].lower()}]")
    for value in goal["goal_options"].values():
        env.step(f"click[{value}]")
    obs, reward, done, info = env.step("click[Buy Now]")
    assert done and reward == pytest.approx(1.0)
    assert info["reward_info"]["r_att"] == 1.0
    assert obs.startswith("Thank you for shopping with us!") and "\n1.0\n" in obs
    assert env.get_available_actions() == {"has_search_bar": False, "clickables": []}


def test_results_pages_hold_ten_of_at_most_fifty(env: WebShopEnv) -> None:
    env.step("search[shirt]")
    pages = [env.get_available_actions()["clickables"]]
    while "next >" in pages[-1]:
        env.step("click[next >]")
        pages.append(env.get_available_actions()["clickables"])
    asins = [c for page in pages for c in page if c not in ("back to search", "< prev", "next >")]
    assert len(pages) == 5 and len(asins) == 50 and len(set(asins)) == 50
    assert [a.upper() for a in asins] == [a for a, _ in env.search("shirt")]


def test_reset_without_session_draws_a_goal(rich_env: WebShopEnv) -> None:
    _, info = rich_env.reset()
    assert rich_env.goal is rich_env.goals[info["session"]]


def test_text_mode_joins_with_sep(text_env: WebShopEnv) -> None:
    obs, _ = text_env.reset(session=3)
    assert (
        obs == f"WebShop [SEP] Instruction: [SEP] {text_env.goal['instruction_text']} [SEP] Search"
    )


def test_unknown_observation_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="observation mode"):
        WebShopEnv(observation_mode="html")  # type: ignore[arg-type]  # deliberately invalid
