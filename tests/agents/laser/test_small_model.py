"""One LASER episode with the smallest real embedded model: grammar-forced tool choice keeps
every action valid, even for a 135M-parameter model."""

from __future__ import annotations

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.evals.episode import run_episode
from open_langgraph.models import load_chat_model


def test_smollm2_episode_has_no_invalid_actions() -> None:
    model = load_chat_model("local/smollm2-135m")
    settings = {"max_steps": 3, "backup_after": 2, "thought_tokens": 16}
    episode = run_episode(
        "laser",
        WebShopEnv(None),
        model,
        goal_index=1,
        settings=settings,
        identity={"agent": "laser", "model": "local/smollm2-135m"},
    )
    record = episode.record
    assert record["error"] is None
    assert record["invalid_actions"] == 0
    assert record["bought"] is True  # explored two steps, then the backup bought
    assert record["backup_fired"] is True
    assert record["llm_calls"] >= 2  # one call per explored step (thought and action in one)
    assert record["prompt_tokens"] > 0 and record["completion_tokens"] > 0
    actions = [a for s in episode.steps for a in s["delta"].get("action_history", [])]
    assert all(a.get("valid", True) for a in actions)
