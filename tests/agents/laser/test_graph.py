"""The LASER graph driven by scripted models on the demo catalog: a correct purchase, the
budget's backup purchase, the mapping prompt for text answers, and served-mode environments."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graphs.laser import graph
from graphs.laser.context import ContextError, LaserContext
from graphs.laser.graph import builder
from open_langgraph.envs.webshop import WebShopEnv
from tests.agents.laser.fakes import ScriptedChatModel, call, say

SHAMPOO = "DM00000080"  # goal 0 of the demo catalog: 32 fl oz sulfate-free shampoo


@pytest.fixture(scope="module")
def demo() -> WebShopEnv:
    return WebShopEnv(None)


@pytest.fixture
def env(demo: WebShopEnv) -> WebShopEnv:
    demo.reset(session=0)
    return demo


def _run(env: WebShopEnv, responses: list, **settings) -> dict:
    """Scripted from the first search on, unless a test sets `first_query` itself."""
    settings.setdefault("first_query", "model")
    model = ScriptedChatModel(responses=responses)
    return graph.invoke({}, context=LaserContext(env=env, chat_model=model, **settings))


def test_scripted_model_buys_the_right_item_for_full_reward(env: WebShopEnv) -> None:
    state = _run(
        env,
        [
            call(
                "Search",
                thought="Search for the shampoo.",
                keywords="sulfate free shampoo",
                max_price=170,
            ),
            call("select_item", thought="The second is sulfate free.", item_id=SHAMPOO),
            call("Features", thought="Check the features first.", match_score=8),
            call("Buy_Now", thought="It fits, 32 fl oz.", match_score=10, size="32 fl oz"),
        ],
    )
    info = state["info"]
    assert info["done"] is True
    assert info["reward"] == 1.0
    assert info["backup_fired"] is False
    assert info["invalid_actions"] == 0
    assert state["current_laser_state"] == "Stopping"
    assert state["step_count"] == 4
    assert state["selected_item"] == SHAMPOO
    assert state["item_config"] == {"size": "32 fl oz"}
    assert [a["action"] for a in state["action_history"]] == [
        "Search(keywords='sulfate free shampoo', max_price=170.0)",
        f"select_item(item_id='{SHAMPOO}')",
        "Features",
        "Buy_Now(size='32 fl oz')",
    ]
    assert state["action_history"][3]["env_actions"] == ["click[32 fl oz]", "click[Buy Now]"]
    assert [t["state"] for t in state["thought_history"]] == ["Search", "Result", "Item", "Item"]
    (remembered,) = state["memory_buffer"]
    assert remembered["item_id"] == SHAMPOO
    assert remembered["times_seen"] == 1
    assert remembered["score"] == 10.0
    assert remembered["keywords"] == "sulfate free shampoo"
    assert remembered["features_summary"].startswith("Sulfate free: made to last")
    assert remembered["actions_taken"] == ["select_item", "Features", "Buy_Now"]
    assert "Thank you for shopping" in state["obs"]


def test_first_search_is_the_instructions_product_part_without_a_model_call(
    env: WebShopEnv,
) -> None:
    model = ScriptedChatModel(
        responses=[
            call("select_item", thought="The second is sulfate free.", item_id=SHAMPOO),
            call("Buy_Now", thought="It fits, 32 fl oz.", match_score=10, size="32 fl oz"),
        ]
    )
    state = graph.invoke({}, context=LaserContext(env=env, chat_model=model))
    assert state["info"]["reward"] == 1.0
    assert state["action_history"][0]["action"] == (
        "Search(keywords='sulfate free, paraben free shampoo', max_price=170.0)"
    )
    assert state["action_history"][0]["env_actions"] == [
        "search[sulfate free, paraben free shampoo]"
    ]
    # Both scripted replies went to the states after the search: none was asked for it.
    assert [a["state"] for a in state["action_history"]] == ["Search", "Result", "Item"]
    assert state["info"]["invalid_actions"] == 0


def test_a_later_search_asks_the_model(env: WebShopEnv) -> None:
    model = ScriptedChatModel(
        responses=[
            call("Back_to_Search", thought="Nothing fits; search again."),
            call("Search", thought="Again.", keywords="sulfate free shampoo", max_price=170),
            call("select_item", thought="open", item_id=SHAMPOO),
            call("Buy_Now", thought="buy", match_score=9, size="32 fl oz"),
        ]
    )
    state = graph.invoke({}, context=LaserContext(env=env, chat_model=model))
    actions = [a["action"] for a in state["action_history"]]
    assert actions[2] == "Search(keywords='sulfate free shampoo', max_price=170.0)"
    assert state["info"]["reward"] == 1.0


def test_state_is_json_and_checkpointed(env: WebShopEnv) -> None:
    checkpointed = builder.compile(checkpointer=InMemorySaver())
    model = ScriptedChatModel(
        responses=[
            call("Search", thought="search", keywords="sulfate free shampoo", max_price=None),
            call("select_item", thought="open it", item_id=SHAMPOO),
            call("Buy_Now", thought="buy", match_score=9, size="8 fl oz"),
        ]
    )
    config = {"configurable": {"thread_id": "t1"}}
    context = LaserContext(env=env, chat_model=model, first_query="model")
    checkpointed.invoke({}, config, context=context)
    snapshot = checkpointed.get_state(config)
    values = json.loads(json.dumps(snapshot.values))
    assert values["info"]["reward"] < 1.0  # wrong size, lower reward
    assert values["item_config"] == {"size": "8 fl oz"}
    assert len(list(checkpointed.get_state_history(config))) >= 4


def test_budget_spent_fires_the_backup_purchase_from_memory(env: WebShopEnv) -> None:
    state = _run(
        env,
        [
            call("Search", thought="search", keywords="sulfate free shampoo", max_price=170),
            call("select_item", thought="open the paraben free one", item_id=SHAMPOO),
            call("Prev", thought="Not sure, look elsewhere."),  # gives no score
            # backup: the only model call picks the options of the remembered item
            call("Buy_Now", size="32 fl oz"),
        ],
        max_steps=15,
        backup_after=3,
    )
    info = state["info"]
    assert info["backup_fired"] is True
    assert info["backup_rule"] == "match"  # no score given, price and keywords decide
    assert state["selected_item"] == SHAMPOO
    assert info["reward"] == 1.0
    backup = state["action_history"][-1]
    assert backup["state"] == "Stopping"
    assert backup["env_actions"][0].startswith("search[ironwood deluxe hair wash")
    assert backup["env_actions"][1:] == [f"click[{SHAMPOO}]", "click[32 fl oz]", "click[Buy Now]"]
    assert state["step_count"] == 4


def test_backup_prefers_the_best_scored_item(env: WebShopEnv) -> None:
    state = _run(
        env,
        [
            call("Search", thought="search", keywords="sulfate free shampoo", max_price=170),
            call("select_item", thought="open the first", item_id="DM00000060"),
            call("Prev", thought="Wrong kind.", match_score=2),
            call("select_item", thought="open the second", item_id=SHAMPOO),
            call("Reviews", thought="Good one.", match_score=9),
            call("Buy_Now", size="32 fl oz"),
        ],
        backup_after=5,
    )
    assert state["info"]["backup_rule"] == "score"
    assert state["selected_item"] == SHAMPOO
    assert state["info"]["reward"] == 1.0
    scores = {c["item_id"]: c["score"] for c in state["memory_buffer"]}
    assert scores == {"DM00000060": 2.0, SHAMPOO: 9.0}


def test_backup_with_empty_memory_buys_the_first_result(env: WebShopEnv) -> None:
    state = _run(
        env,
        [call("Search", thought="s", keywords="shampoo", max_price=None), call("Buy_Now")],
        backup_after=1,
    )
    info = state["info"]
    assert info["backup_fired"] is True
    assert info["backup_rule"] == "empty+first_result"
    assert info["done"] is True


def test_text_answer_goes_through_the_mapping_prompt(env: WebShopEnv) -> None:
    state = _run(
        env,
        [
            call("Search", thought="search", keywords="sulfate free shampoo", max_price=170),
            say("I would open the second one."),  # answered in text: no tool call
            say(f"select_item[item_id={SHAMPOO}]"),  # the mapping prompt's answer
            say("Buying it now in the large size."),
            say("Buy_Now[size=32 fl oz]"),
        ],
    )
    assert state["info"]["reward"] == 1.0
    mapped = [a["mapped"] for a in state["action_history"]]
    assert mapped == [False, True, True]


def test_unmappable_answer_is_an_invalid_action_that_costs_a_step(env: WebShopEnv) -> None:
    state = _run(
        env,
        [
            say("no idea"),
            say("nothing fits"),  # mapping prompt answer names no action
            call("Search", thought="search", keywords="sulfate free shampoo", max_price=170),
            call("select_item", thought="first", item_id="DM00000999"),  # not on the page
            call("Buy_Now", size="32 fl oz"),  # the backup's option choice
        ],
        backup_after=3,
        max_steps=15,
    )
    info = state["info"]
    assert info["invalid_actions"] == 2
    assert [a["valid"] for a in state["action_history"][:3]] == [False, True, False]
    assert info["backup_fired"] is True


def test_served_graph_makes_its_own_environment_per_thread() -> None:
    model = ScriptedChatModel(
        responses=[
            call("select_item", thought="open", item_id=SHAMPOO),
            call("Buy_Now", thought="buy", match_score=9, size="32 fl oz"),
        ]
    )
    config = {"configurable": {"thread_id": "served-laser-1"}}
    state = graph.invoke({}, config, context=LaserContext(chat_model=model, goal_index=0))
    assert state["user_instruction"].startswith("Find me sulfate free, paraben free shampoo")
    assert state["info"]["reward"] == 1.0


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_steps": 0}, "max_steps"),
        ({"memory_size": 0}, "memory_size"),
        ({"first_query": "guess"}, "first_query"),
        ({"env": "not an env"}, "WebShopEnv"),
        ({"goal_index": 10_000}, "goal_index"),
    ],
)
def test_bad_context_is_a_clear_error(settings: dict, message: str) -> None:
    model = ScriptedChatModel(responses=[say("x")])
    with pytest.raises(ContextError, match=message):
        graph.invoke(
            {},
            {"configurable": {"thread_id": f"bad-{message}"}},
            context=LaserContext(chat_model=model, **settings),
        )
