"""``olg eval webshop ...`` and ``olg replay FILE``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from open_langgraph.envs.webshop import CatalogError


def _eval_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olg eval", description="evaluate agents")
    commands = parser.add_subparsers(dest="bench", required=True)
    web = commands.add_parser("webshop", help="evaluate a shopping agent on WebShop goals")
    web.add_argument("--agent", choices=("laser", "react"), default="laser")
    web.add_argument("--model", default=None, help="provider/model (default: $OLG_MODEL)")
    web.add_argument("--data", default=None, help="catalog path (default: demo catalog)")
    web.add_argument("--goals", choices=("synthetic", "human"), default="synthetic")
    web.add_argument("--start", type=int, default=0, help="first goal index")
    web.add_argument("--n", type=int, default=100, help="number of goals")
    web.add_argument("--concurrency", type=int, default=1)
    web.add_argument("--out", type=Path, default=Path("results.jsonl"))
    web.add_argument("--record", type=Path, default=None, help="directory for episode snapshots")
    web.add_argument("--seed", type=int, default=233)
    web.add_argument("--max-steps", type=int, default=15)
    web.add_argument("--backup-after", type=int, default=13)
    web.add_argument("--memory-size", type=int, default=30)
    web.add_argument("--thought-tokens", type=int, default=96)
    web.add_argument(
        "--first-query",
        choices=("instruction", "model"),
        default="instruction",
        help="laser: the first search's keywords from the instruction or from the model",
    )
    web.add_argument("--json", action="store_true", help="print the summary as JSON")
    rep = commands.add_parser("report", help="table and plot of results files")
    rep.add_argument("results", type=Path, nargs="+", help="results files (.jsonl)")
    rep.add_argument("--md", type=Path, default=None, help="Markdown page to update")
    rep.add_argument("--plot", type=Path, default=None, help="PNG of the reward per goal")
    return parser


def eval_main(argv: list[str]) -> int:
    from open_langgraph.evals.harness import EvalSettings, run_eval
    from open_langgraph.evals.summary import format_summary
    from open_langgraph.models import ModelError

    args = _eval_parser().parse_args(argv)
    if args.bench == "report":
        return _report(args.results, args.md, args.plot)
    settings = EvalSettings(
        agent=args.agent,
        model=args.model,
        data=args.data,
        goals=args.goals,
        start=args.start,
        n=args.n,
        concurrency=args.concurrency,
        out=args.out,
        record_dir=args.record,
        seed=args.seed,
        agent_settings={
            "max_steps": args.max_steps,
            "backup_after": args.backup_after,
            "memory_size": args.memory_size,
            "thought_tokens": args.thought_tokens,
            "first_query": args.first_query,
        },
    )
    try:
        summary = run_eval(settings)
    except (ValueError, CatalogError, ModelError) as exc:
        print(f"olg eval: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


def _report(results: list[Path], md: Path | None, png: Path | None) -> int:
    from open_langgraph.evals.report import ReportError, report

    try:
        print(report(results, md, png))
    except (ReportError, OSError, ValueError, KeyError) as exc:
        print(f"olg eval report: {exc}", file=sys.stderr)
        return 2
    except ImportError:
        print(
            "olg eval report: the plot needs matplotlib: pip install 'open-langgraph[evals]'",
            file=sys.stderr,
        )
        return 2
    return 0


def replay_main(argv: list[str]) -> int:
    from open_langgraph.evals.replay import ReplayMismatch, replay_file

    parser = argparse.ArgumentParser(prog="olg replay", description="replay a recorded episode")
    parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    try:
        report = replay_file(args.file)
    except ReplayMismatch as exc:
        print(f"olg replay: {args.file}: differs from the recording: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as exc:
        print(f"olg replay: {exc}", file=sys.stderr)
        return 2
    print(
        f"{args.file}: replayed {report.steps} steps and {report.model_calls} model calls "
        f"identically (reward {report.reward:g})"
    )
    return 0
