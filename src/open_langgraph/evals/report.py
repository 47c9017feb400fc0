"""`olg eval report`: results files in, a table and a reward-per-goal plot out.

The table is written between two marker lines of a Markdown page, so the page's own prose
stays as written and one command brings the figures up to date:

    olg eval report benchmarks/results/laser.jsonl benchmarks/results/react.jsonl \\
        --md docs/agents/results.md --plot docs/agents/results.png
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from open_langgraph.evals.harness import read_results
from open_langgraph.evals.summary import summarize

BEGIN = "<!-- eval-report:begin -->"
END = "<!-- eval-report:end -->"


class ReportError(ValueError):
    """No results to report, or a page without a place for them."""


def load_runs(paths: Sequence[Path]) -> dict[str, list[dict[str, Any]]]:
    """Episodes grouped by what was evaluated (agent, model, catalog, goals), file order kept.

    An episode that ended in an error is left out: it measured the machine, not the agent,
    and `olg eval webshop --out` runs it again on resume.
    """
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path in paths:
        if not path.exists():
            raise ReportError(f"no results file {path}")
        for row in read_results(path):
            if row.get("error"):
                continue
            key = f"{row['agent']} / {row['model']}"
            runs[key].append(row)
    if not runs:
        raise ReportError("the results files hold no finished episodes")
    return dict(runs)


def table(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown table: one row per agent and model."""
    head = (
        "| agent / model | goals | score | success | own success | backup success | steps | "
        "model calls | s / episode (median) | prompt re-used |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = [head]
    for key, episodes in runs.items():
        s = summarize(episodes)
        goals = f"{s['goals']} {s['goal_range'][0]}-{s['goal_range'][1]} ({s['episodes']})"
        rows.append(
            f"| {key} | {goals} | {s['score']:.1f} | {s['success_rate']:.0f}% | "
            f"{s['own_success_rate']:.0f}% | {s['backup_success_rate']:.0f}% | "
            f"{s['mean_steps']:.1f} | {s['mean_llm_calls']:.1f} | "
            f"{s['mean_seconds']:.0f} ({s['median_seconds']:.0f}) | "
            f"{s['cache_reuse_rate']:.0f}% |"
        )
    return "\n".join(rows)


def plot(runs: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """A bar chart of the reward of every goal, one bar per agent."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    goals = sorted({r["goal_index"] for episodes in runs.values() for r in episodes})
    width = 0.8 / len(runs)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.35 * len(goals) + 2), 3.6))
    for n, (key, episodes) in enumerate(runs.items()):
        reward = {r["goal_index"]: float(r.get("reward") or 0.0) for r in episodes}
        xs = [i + n * width for i, g in enumerate(goals) if g in reward]
        ys = [reward[g] for g in goals if g in reward]
        axes.bar(xs, ys, width=width, label=key)
    axes.set_xticks([i + width * (len(runs) - 1) / 2 for i in range(len(goals))])
    axes.set_xticklabels([str(g) for g in goals], fontsize=7)
    axes.set_xlabel("goal")
    axes.set_ylabel("reward")
    axes.set_ylim(0, 1.05)
    axes.legend(fontsize=7, loc="upper right")
    axes.set_title("WebShop reward per goal", fontsize=9)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_page(page: Path, body: str) -> None:
    """Replace the text between the report markers of `page` (created when missing)."""
    block = f"{BEGIN}\n{body}\n{END}"
    if not page.exists():
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Evaluation results\n\n{block}\n", encoding="utf-8")
        return
    text = page.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ReportError(f"{page} has no {BEGIN} ... {END} block to fill in")
    before, rest = text.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    page.write_text(f"{before}{block}{after}", encoding="utf-8")


def report(paths: Sequence[Path], md: Path | None, png: Path | None) -> str:
    """Build the table (and the plot); write them where asked; return the table."""
    runs = load_runs(paths)
    text = table(runs)
    if png is not None:
        plot(runs, png)
    if md is not None:
        body = text
        if png is not None:
            relative = os.path.relpath(png.resolve(), md.resolve().parent)
            body = f"{text}\n\n![Reward per goal]({Path(relative).as_posix()})"
        write_page(md, body)
    return text
