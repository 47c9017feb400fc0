"""Running one episode of an agent on one goal, with its metrics and its step-by-step trace."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.evals.agents import get_agent, outcome
from open_langgraph.evals.recorder import EpisodeRecorder, RecordingEnv

RECORDING_VERSION = 1


@dataclass
class Episode:
    record: dict[str, Any]
    """The results-file line: identity of the run plus its metrics."""
    steps: list[dict[str, Any]]
    """Per graph step: node, state delta, model calls (input, output), env actions."""


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def run_episode(
    agent: str,
    base_env: WebShopEnv,
    model: BaseChatModel,
    goal_index: int,
    settings: dict[str, Any],
    identity: dict[str, Any],
) -> Episode:
    """Run ``agent`` on goal ``goal_index`` of a fresh session of ``base_env``.

    Args:
        settings: agent settings (max_steps, backup_after, memory_size, thought_tokens).
        identity: fields copied into the record (agent, model, catalog, goals, seed, data).
    """
    spec = get_agent(agent)
    graph = spec.load_graph()
    env = RecordingEnv(base_env)
    env.reset(session=goal_index)
    recorder = EpisodeRecorder()
    context = spec.make_context(env, model, settings)
    config = {
        "callbacks": [recorder],
        "recursion_limit": 4 * int(settings.get("max_steps", 15)) + 10,
    }
    steps: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    started = time.monotonic()
    error = None
    try:
        for mode, chunk in graph.stream(
            {}, config, context=context, stream_mode=["updates", "values"]
        ):
            if mode == "values":
                final = chunk
                continue
            for node, delta in chunk.items():
                steps.append(
                    {
                        "node": node,
                        "delta": jsonable(delta),
                        "model_calls": recorder.drain(),
                        "env": env.drain(),
                    }
                )
    except Exception as exc:  # an episode's failure is recorded, the evaluation goes on
        error = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    record = {
        **identity,
        "goal_index": goal_index,
        "instruction": env.goal["instruction_text"],
        "target_asin": env.goal["asin"],
        **outcome(final),
        # What was bought, read from the shop itself so every agent reports it the same way.
        "purchased": env.session.asin if env.session.reward is not None else None,
        "item_config": dict(env.session.options) if env.session.reward is not None else None,
        "llm_calls": recorder.llm_calls,
        "prompt_tokens": recorder.prompt_tokens,
        "cached_prompt_tokens": recorder.cached_prompt_tokens,
        "completion_tokens": recorder.completion_tokens,
        "seconds": round(seconds, 2),
        "error": error,
    }
    return Episode(jsonable(record), steps)


def recording(episode: Episode, settings: dict[str, Any]) -> dict[str, Any]:
    """The replayable snapshot of an episode."""
    return {
        "version": RECORDING_VERSION,
        "settings": settings,
        "record": episode.record,
        "steps": episode.steps,
    }
