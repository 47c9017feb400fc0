"""``olg eval webshop``: run an agent over a range of goals, resumably, with a progress bar.

Each finished episode is appended to the results file as one JSON line as soon as it ends, so
an interrupted evaluation resumes where it stopped: episodes already in the file (same agent,
model, catalog and goal type, without error) are skipped.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from tqdm import tqdm

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.evals.agents import get_agent
from open_langgraph.evals.episode import recording, run_episode
from open_langgraph.evals.summary import summarize


@dataclass
class EvalSettings:
    agent: str = "laser"
    model: str | None = None
    data: str | None = None
    """Catalog path; None is the bundled demo catalog."""
    goals: str = "synthetic"
    start: int = 0
    n: int = 100
    concurrency: int = 1
    out: Path = Path("results.jsonl")
    record_dir: Path | None = None
    """Write a replayable JSON snapshot of every episode here."""
    seed: int = 233
    agent_settings: dict[str, Any] = field(default_factory=dict)
    progress: bool = True


def catalog_label(data: str | None) -> str:
    return "demo" if data is None else str(Path(data))


def identity(settings: EvalSettings, model_name: str) -> dict[str, Any]:
    return {
        "agent": settings.agent,
        "model": model_name,
        "catalog": catalog_label(settings.data),
        "data": settings.data,
        "goals": settings.goals,
        "seed": settings.seed,
    }


def read_results(path: Path) -> list[dict[str, Any]]:
    """The records of a results file; a torn last line (an interrupted write) is ignored."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def _end_torn_line(path: Path) -> None:
    """Terminate a last line cut off by an interrupted write, so new records start clean."""
    if path.exists() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, 2)
            torn = f.read(1) != b"\n"
        if torn:
            with path.open("a", encoding="utf-8") as f:
                f.write("\n")


def _same_run(row: dict[str, Any], ident: dict[str, Any]) -> bool:
    keys = ("agent", "model", "catalog", "goals", "seed")
    return all(row.get(k) == ident[k] for k in keys)


def run_eval(settings: EvalSettings, model: BaseChatModel | None = None) -> dict[str, Any]:
    """Evaluate and return the summary of every finished episode of the range.

    Args:
        model: a chat model to use instead of loading ``settings.model``.

    Raises:
        ValueError: bad range or concurrency, unknown agent, or a catalog without such goals.
    """
    get_agent(settings.agent)
    if settings.n < 1 or settings.start < 0:
        raise ValueError("--start must be >= 0 and --n >= 1")
    if settings.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    env = WebShopEnv(settings.data, goals=settings.goals, seed=settings.seed)  # type: ignore[arg-type]
    end = settings.start + settings.n
    if end > len(env.goals):
        raise ValueError(
            f"goals {settings.start}-{end - 1} requested but {catalog_label(settings.data)} has "
            f"{len(env.goals)} {settings.goals} goals"
        )
    if model is None:
        from open_langgraph.models import default_model, load_chat_model

        model_name = settings.model or default_model()
        model = load_chat_model(model_name)
    else:
        model_name = settings.model or type(model).__name__
    ident = identity(settings, model_name)
    wanted = range(settings.start, end)
    finished = {
        r["goal_index"]
        for r in read_results(settings.out)
        if _same_run(r, ident) and not r.get("error") and r.get("goal_index") in wanted
    }
    todo = [i for i in wanted if i not in finished]
    settings.out.parent.mkdir(parents=True, exist_ok=True)
    _end_torn_line(settings.out)
    if settings.record_dir is not None:
        settings.record_dir.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    bar = tqdm(
        total=len(wanted),
        initial=len(finished),
        desc=f"{settings.agent} {settings.goals} {settings.start}-{end - 1}",
        disable=not settings.progress,
        unit="ep",
    )
    rewards: list[float] = []

    def one(index: int) -> None:
        episode = run_episode(settings.agent, env, model, index, settings.agent_settings, ident)
        with lock:
            with settings.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(episode.record) + "\n")
            if settings.record_dir is not None:
                path = settings.record_dir / f"{settings.agent}-{settings.goals}-{index}.json"
                path.write_text(json.dumps(recording(episode, settings.agent_settings)))
            rewards.append(float(episode.record.get("reward") or 0.0))
            bar.update(1)
            bar.set_postfix(score=f"{100 * sum(rewards) / len(rewards):.1f}")

    try:
        with ThreadPoolExecutor(max_workers=settings.concurrency) as pool:
            for future in as_completed([pool.submit(one, i) for i in todo]):
                future.result()
    finally:
        bar.close()
    rows = [
        r
        for r in read_results(settings.out)
        if _same_run(r, ident) and r.get("goal_index") in wanted
    ]
    latest = {r["goal_index"]: r for r in rows}  # a retried episode's last record counts
    return summarize(latest.values())
