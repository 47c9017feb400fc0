"""Held-out questions for the served agents, each in three forms, scored per kind.

    python benchmarks/heldout_eval.py --url http://127.0.0.1:8123 --out answers.json
    python benchmarks/heldout_eval.py --url ... --agent react_agent_hitl --approve
    python benchmarks/heldout_eval.py --url ... --agent subgraph_agent \
        --data benchmarks/data/subgraph_agent_heldout.json
    python benchmarks/heldout_eval.py --report answers.json --markdown

Each question has `forms`: the question and two paraphrases (a form of a `memory` question is
a list of turns asked in order on one thread; the last answer is judged). Every form runs on a
new thread. Printed: accuracy per kind and overall, seconds per question, loops, and the
paraphrase consistency: the share of questions whose forms were all right or all wrong. The
sets are held out: written before the agents' rewrite, and read question by question only
after it (docs/agents/results.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_checks import extra_checks
from everyday_eval import checker

DATA = Path(__file__).resolve().parent / "data" / "agents_heldout.json"
TIMEOUT_SECONDS = 300.0
OUT_OF_STEPS = "could not find an answer"
EXTRA_KEYS = {"all", "none", "declines", "python"}


@dataclass
class FormOutcome:
    id: str
    kind: str
    form: int
    answer: str
    correct: bool
    looped: bool
    seconds: float
    tool_calls: list[str] = field(default_factory=list)


def check_for(expect: dict[str, Any], now: datetime) -> Callable[[str], bool]:
    """Every check `expect` names, all of which must pass."""
    checks = extra_checks(expect)
    base = {k: v for k, v in expect.items() if k not in EXTRA_KEYS}
    if base:
        checks.append(checker(base, now))
    if not checks:
        raise ValueError(f"no check in {expect!r}")
    return lambda answer: all(check(answer) for check in checks)


def turns_of(form: str | list[str]) -> list[str]:
    return [form] if isinstance(form, str) else list(form)


async def ask(client: Any, agent: str, turns: list[str], approve: bool) -> tuple[str, bool, list]:
    """Asks `turns` on a new thread; the last answer, whether the run looped, its tool calls."""
    thread = (await client.threads.create())["thread_id"]
    looped = False
    for turn in turns:
        payload: dict[str, Any] = {"input": {"messages": [{"role": "user", "content": turn}]}}
        for _ in range(10):
            try:
                result = await asyncio.wait_for(
                    client.runs.wait(thread, agent, raise_error=False, **payload),
                    TIMEOUT_SECONDS,
                )
            except TimeoutError:
                return "", True, []
            pending = (result or {}).get("__interrupt__") if isinstance(result, dict) else None
            if not (approve and pending):
                break
            requests = pending[0]["value"].get("action_requests") or [{}]
            payload = {
                "command": {"resume": {"decisions": [{"type": "approve"} for _ in requests]}}
            }
        runs = await client.runs.list(thread)
        looped = looped or bool(runs and runs[0]["status"] != "success")
    state = await client.threads.get_state(thread)
    messages = (state.get("values") or {}).get("messages") or []
    answer = str(messages[-1].get("content") or "") if messages else ""
    start = max((i for i, m in enumerate(messages) if m.get("type") == "human"), default=0)
    calls = [
        f"{c['name']}({json.dumps(c['args'], sort_keys=True)})"
        for m in messages[start:]
        if m.get("type") == "ai"
        for c in m.get("tool_calls") or []
    ]
    looped = looped or len(calls) != len(set(calls)) or OUT_OF_STEPS in answer
    return answer, looped, calls


def consistency(outcomes: list[FormOutcome]) -> tuple[int, int]:
    """(questions whose forms all agree, questions with more than one form)."""
    by_id: dict[str, set[bool]] = {}
    counts: dict[str, int] = {}
    for o in outcomes:
        by_id.setdefault(o.id, set()).add(o.correct)
        counts[o.id] = counts.get(o.id, 0) + 1
    several = [i for i, n in counts.items() if n > 1]
    return sum(len(by_id[i]) == 1 for i in several), len(several)


def report(outcomes: list[FormOutcome], md: bool) -> None:
    kinds: dict[str, list[FormOutcome]] = {}
    for o in outcomes:
        kinds.setdefault(o.kind, []).append(o)
    kinds["all"] = outcomes
    rows = []
    for kind, group in kinds.items():
        agree, several = consistency(group)
        seconds = sorted(o.seconds for o in group)
        rows.append(
            (
                kind,
                sum(o.correct for o in group),
                len(group),
                statistics.median(seconds),
                seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))],
                sum(o.looped for o in group),
                f"{agree}/{several}" if several else "-",
            )
        )
    for kind, correct, asked, median, p95, loops, agree in rows:
        print(
            f"{kind:10s} {correct:3d}/{asked:<3d} {100 * correct / asked:4.0f}%  median "
            f"{median:5.1f} s  p95 {p95:5.1f} s  loops {loops}  forms agree {agree}"
        )
    if md:
        print("| kind | correct | accuracy | median s | p95 s | loops | forms agree |")
        print("|---|---|---|---|---|---|---|")
        for kind, correct, asked, median, p95, loops, agree in rows:
            name = f"**{kind}**" if kind == "all" else kind
            print(
                f"| {name} | {correct}/{asked} | {100 * correct / asked:.0f}% | {median:.1f} | "
                f"{p95:.1f} | {loops} | {agree} |"
            )


def load(path: Path, forms: int) -> list[tuple[dict[str, Any], int, list[str]]]:
    """(question, form index, turns), one question of each kind in turn, form by form: a run
    cut short still has every kind and the first forms first."""
    questions = json.loads(path.read_text())["questions"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for q in questions:
        by_kind.setdefault(q["kind"], []).append(q)
    longest = max(len(g) for g in by_kind.values())
    ordered = [g[i] for i in range(longest) for g in by_kind.values() if i < len(g)]
    items = []
    for index in range(forms):
        for q in ordered:
            all_forms = q.get("forms") or [q["question"]]
            if index < len(all_forms):
                items.append((q, index, turns_of(all_forms[index])))
    return items


async def run(args: argparse.Namespace) -> int:
    client = get_client(url=args.url)
    warm = time.monotonic()
    await ask(client, args.agent, ["Hello!"], args.approve)
    print(f"warm-up: {time.monotonic() - warm:.1f} s", flush=True)
    items = load(args.data, args.forms)
    outcomes: list[FormOutcome] = []
    for number, (question, index, turns) in enumerate(items, start=1):
        check = check_for(question["expect"], datetime.now(tz=UTC))
        started = time.monotonic()
        answer, looped, calls = await ask(client, args.agent, turns, args.approve)
        seconds = (time.monotonic() - started) / len(turns)
        outcome = FormOutcome(
            question["id"], question["kind"], index, answer, check(answer), looped, seconds, calls
        )
        outcomes.append(outcome)
        if args.out:
            args.out.write_text(json.dumps([asdict(o) for o in outcomes], indent=1) + "\n")
        done = sum(o.correct for o in outcomes)
        # Progress only: the per-question results of a held-out set are read after the work.
        print(f"[{number}/{len(items)}] {done} right so far", file=sys.stderr, flush=True)
    report(outcomes, args.markdown)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server")
    parser.add_argument("--agent", default="react_agent", help="the graph (assistant) to ask")
    parser.add_argument("--approve", action="store_true", help="approve every tool review")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--forms", type=int, default=3, help="forms of each question to ask")
    parser.add_argument("--out", type=Path, help="every answer, saved after each question")
    parser.add_argument("--report", type=Path, help="only report an earlier --out file")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if args.report:
        records = json.loads(args.report.read_text())
        report([FormOutcome(**r) for r in records], args.markdown)
        return 0
    if not args.url:
        parser.error("--url is required (serve the agents with ./scripts/serve)")
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
