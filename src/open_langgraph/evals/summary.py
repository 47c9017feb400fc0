"""Summaries of episode records: score = 100 x mean reward, success rate = 100 x
mean(reward == 1), as WebShop reports them, always labelled with what was evaluated."""

from __future__ import annotations

from collections.abc import Iterable
from statistics import mean, median
from typing import Any


def _label(records: list[dict[str, Any]]) -> str:
    first = records[0]
    indices = sorted(r["goal_index"] for r in records)
    contiguous = indices == list(range(indices[0], indices[-1] + 1))
    span = f"{indices[0]}-{indices[-1]}"
    if not contiguous:
        span = f"{len(indices)} goals in {span}"
    return (
        f"{first['agent']} / {first['model']} on {first['catalog']}, {first['goals']} goals {span}"
    )


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures of finished episodes (errored ones count as reward 0 and are
    reported separately)."""
    rows = list(records)
    if not rows:
        raise ValueError("no episodes to summarise")
    steps = sum(r.get("steps", 0) for r in rows)
    invalid = sum(r.get("invalid_actions", 0) for r in rows)
    prompt = sum(r.get("prompt_tokens", 0) for r in rows)
    cached = sum(r.get("cached_prompt_tokens", 0) for r in rows)
    return {
        "label": _label(rows),
        "agent": rows[0]["agent"],
        "model": rows[0]["model"],
        "catalog": rows[0]["catalog"],
        "goals": rows[0]["goals"],
        "goal_range": [min(r["goal_index"] for r in rows), max(r["goal_index"] for r in rows)],
        "episodes": len(rows),
        "errors": sum(1 for r in rows if r.get("error")),
        "score": 100 * mean(float(r.get("reward") or 0.0) for r in rows),
        "success_rate": 100 * mean(1.0 if r.get("reward") == 1.0 else 0.0 for r in rows),
        # The agent's own purchases apart from the backup's, so exploration is seen on its own.
        "own_success_rate": 100
        * mean(1.0 if r.get("reward") == 1.0 and not r.get("backup_fired") else 0.0 for r in rows),
        "backup_success_rate": 100
        * mean(1.0 if r.get("reward") == 1.0 and r.get("backup_fired") else 0.0 for r in rows),
        "bought_rate": 100 * mean(1.0 if r.get("bought") else 0.0 for r in rows),
        "invalid_action_rate": 100 * invalid / steps if steps else 0.0,
        "mean_steps": steps / len(rows),
        "mean_llm_calls": mean(r.get("llm_calls", 0) for r in rows),
        "mean_prompt_tokens": mean(r.get("prompt_tokens", 0) for r in rows),
        "mean_completion_tokens": mean(r.get("completion_tokens", 0) for r in rows),
        "backup_rate": 100 * mean(1.0 if r.get("backup_fired") else 0.0 for r in rows),
        "mean_seconds": mean(r.get("seconds", 0.0) for r in rows),
        "median_seconds": median(r.get("seconds", 0.0) for r in rows),
        "cache_reuse_rate": 100 * cached / prompt if prompt else 0.0,
    }


def format_summary(summary: dict[str, Any]) -> str:
    s = summary
    lines = [
        s["label"],
        f"  episodes {s['episodes']} (errors {s['errors']})",
        f"  score {s['score']:.1f}   success rate {s['success_rate']:.1f}% "
        f"(own {s['own_success_rate']:.1f}%, backup {s['backup_success_rate']:.1f}%)   "
        f"bought {s['bought_rate']:.1f}%",
        f"  invalid actions {s['invalid_action_rate']:.1f}% of steps   "
        f"mean steps {s['mean_steps']:.1f}   backup fired {s['backup_rate']:.1f}%",
        f"  LLM calls {s['mean_llm_calls']:.1f}   prompt tokens {s['mean_prompt_tokens']:.0f}   "
        f"completion tokens {s['mean_completion_tokens']:.0f}   "
        f"seconds {s['mean_seconds']:.1f} per episode (median {s['median_seconds']:.1f})",
        f"  prompt tokens re-used from the cache {s['cache_reuse_rate']:.0f}%",
    ]
    return "\n".join(lines)
