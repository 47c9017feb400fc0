"""Every step of the original's recorded episodes: same observation, clickables, reward, done."""

from __future__ import annotations

from typing import Any

import pytest

from open_langgraph.envs.webshop import WebShopEnv

from .conftest import reference

# The reward breakdown's title_score depends on the noun tagger (spaCy in the original, the
# Pattern tagger here); every other key must match.
_TAGGER_DEPENDENT = {"title_score"}


def _replay(env: WebShopEnv, episode: dict[str, Any]) -> list[str]:
    problems = []
    for number, step in enumerate(episode["steps"]):
        if step["action"] == "reset":
            obs, info = env.reset(session=episode["session"])
            assert env.goal == episode["goal"] == info["goal"]
            reward, done, info = 0.0, False, {}
        else:
            obs, reward, done, info = env.step(step["action"])
            if (reward, done) != (step["reward"], step["done"]):
                problems.append(f"step {number}: reward/done {reward, done}")
        if obs != step["observation"]:
            problems.append(f"step {number} {step['action']}: observation differs")
        expected_actions = step.get("available_actions")
        if expected_actions is not None and env.get_available_actions() != expected_actions:
            problems.append(f"step {number} {step['action']}: clickables differ")
        if "verbose_info" in step:
            ours = {k: v for k, v in info["reward_info"].items() if k not in _TAGGER_DEPENDENT}
            theirs = {k: v for k, v in step["verbose_info"].items() if k not in _TAGGER_DEPENDENT}
            if ours != theirs:
                problems.append(f"step {number}: reward breakdown {ours} != {theirs}")
    return problems


@pytest.mark.parametrize("number", range(20))
def test_text_rich_episode_identical(rich_env: WebShopEnv, number: int) -> None:
    episode = reference("trajs_text_rich_synthetic_1k.dev.json")[number]
    assert _replay(rich_env, episode) == []


def test_text_mode_episode_identical(text_env: WebShopEnv) -> None:
    episode = reference("ref_traj_text_simple_mode.json")
    assert len(episode["steps"]) > 10
    assert _replay(text_env, episode) == []
