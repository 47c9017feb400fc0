"""Everyday questions for `react_agent` through `olg serve`, scored per kind.

    python benchmarks/everyday_eval.py                      # starts its own `olg serve`
    python benchmarks/everyday_eval.py --url http://127.0.0.1:2024 --kinds docs,dates
    python benchmarks/everyday_eval.py --out answers.json --markdown
    python benchmarks/everyday_eval.py --data benchmarks/data/everyday_dev.json  # tuning set

The default questions are `benchmarks/data/everyday_tuning.json` (arithmetic word problems,
percentages, dates and weekdays, facts from the project's docs: defaults, commands,
environment variables, file names). They were once held out, but earlier versions of the agent
cited them word for word, so they are a tuning set now: measure on the held-out sets with
benchmarks/heldout_eval.py.

Each question is asked on a new thread of the server's default model (`$OLG_MODEL`, else the
embedded local/qwen2.5-coder-1.5b) after a warm-up question that loads it. Printed at the end:
accuracy per kind and overall, median and 95th-percentile seconds, loops (an identical tool
call twice in the turn, the out-of-steps answer, a run that errored or timed out) and the share
of prompt tokens the model re-used from its cache. `--markdown` prints the same as a table for
docs/agents/results.md.

Answers are matched leniently on what matters and strictly on the value: a number within 0.1 %
(or 0.01) anywhere in the answer, thousands separators allowed; a name as a whole word; a date
in any common spelling; a weekday when it is the only one named besides today's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agents_quickcheck import Outcome, Question, ask, serve

DATA = Path(__file__).resolve().parent / "data" / "everyday_tuning.json"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NUMBER = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\d.])\d+(?:\.\d+)?")


def numbers_in(answer: str) -> list[float]:
    """Every number written in `answer`: `1,234.5`, `$9.60`, `30%`, `12.`."""
    return [float(n.replace(",", "")) for n in _NUMBER.findall(answer)]


def _number(expected: float) -> Callable[[str], bool]:
    tolerance = max(0.01, abs(expected) * 0.001)
    return lambda answer: any(abs(n - expected) <= tolerance for n in numbers_in(answer))


def _any(names: list[str]) -> Callable[[str], bool]:
    patterns = [re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])", re.IGNORECASE) for n in names]
    return lambda answer: any(p.search(answer) for p in patterns)


def _weekdays_in(answer: str) -> set[str]:
    return {day for day in WEEKDAYS if re.search(rf"\b{day}\b", answer, re.IGNORECASE)}


def _weekday(expected: str, context: str | None = None) -> Callable[[str], bool]:
    """`expected` named, and no other weekday but `context` (today's, which an answer about
    tomorrow may mention)."""

    def check(answer: str) -> bool:
        named = _weekdays_in(answer)
        return expected in named and named - {expected} <= ({context} if context else set())

    return check


def date_spellings(day: datetime) -> list[str]:
    """The ways an answer may write `day`, lower case, ordinals already stripped."""
    month, short, d, y = day.strftime("%B"), day.strftime("%b"), day.day, day.year
    return [
        s.lower()
        for s in (
            day.date().isoformat(),
            f"{month} {d}, {y}",
            f"{month} {d} {y}",
            f"{d} {month} {y}",
            f"{d} {month}, {y}",
            f"{short} {d}, {y}",
            f"{short} {d} {y}",
            f"{d} {short} {y}",
            f"{d:02d}/{day.month:02d}/{y}",
            f"{day.month:02d}/{d:02d}/{y}",
        )
    ]


def _date(expected: datetime) -> Callable[[str], bool]:
    spellings = date_spellings(expected)

    def check(answer: str) -> bool:
        text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", answer.lower())
        text = re.sub(r"\s+", " ", text)
        return any(s in text for s in spellings)

    return check


def checker(expect: dict[str, Any], now: datetime) -> Callable[[str], bool]:
    """The check for one question's `expect`, with relative dates resolved against `now`."""
    if "number" in expect:
        return _number(float(expect["number"]))
    if "any" in expect:
        return _any(list(expect["any"]))
    if "weekday" in expect:
        return _weekday(str(expect["weekday"]))
    if "weekday_in_days" in expect:
        day = now + timedelta(days=int(expect["weekday_in_days"]))
        return _weekday(day.strftime("%A"), context=now.strftime("%A"))
    if "date_in_days" in expect:
        return _date(now + timedelta(days=int(expect["date_in_days"])))
    if "year_in_years" in expect:
        year = str(now.year + int(expect["year_in_years"]))
        return lambda answer: re.search(rf"\b{year}\b", answer) is not None
    if "month_in_months" in expect:
        month = (now.month - 1 + int(expect["month_in_months"])) % 12
        name = datetime(2000, month + 1, 1).strftime("%B")
        return lambda answer: re.search(rf"\b{name}\b", answer, re.IGNORECASE) is not None
    if "hour_utc" in expect:
        hours = {(now + timedelta(minutes=m)).hour for m in (-30, 0, 30)}
        return lambda answer: any(
            int(h) in hours for h in re.findall(r"\b([01]?\d|2[0-3]):[0-5]\d", answer)
        )
    raise ValueError(f"unknown expectation {expect!r}")


def load(path: Path, kinds: set[str] | None) -> list[dict[str, Any]]:
    """The questions of `kinds`, one of each kind in turn: a run cut short still has every kind."""
    questions = json.loads(path.read_text())["questions"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for question in questions:
        if kinds is None or question["kind"] in kinds:
            by_kind.setdefault(question["kind"], []).append(question)
    longest = max((len(group) for group in by_kind.values()), default=0)
    return [group[i] for i in range(longest) for group in by_kind.values() if i < len(group)]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def summary_rows(
    items: list[tuple[dict[str, Any], Outcome]],
) -> list[tuple[str, int, int, float, float, int]]:
    """(kind, correct, asked, median s, p95 s, loops) per kind, then `all`."""
    groups: dict[str, list[Outcome]] = {}
    for question, outcome in items:
        groups.setdefault(question["kind"], []).append(outcome)
    groups["all"] = [outcome for _, outcome in items]
    return [
        (
            kind,
            sum(o.correct for o in outcomes),
            len(outcomes),
            statistics.median(o.seconds for o in outcomes),
            _p95([o.seconds for o in outcomes]),
            sum(o.looped for o in outcomes),
        )
        for kind, outcomes in groups.items()
    ]


def markdown(rows: list[tuple[str, int, int, float, float, int]], reuse: str) -> str:
    lines = [
        "| kind | correct | accuracy | median s | p95 s | loops |",
        "|---|---|---|---|---|---|",
    ]
    for kind, correct, asked, median, p95, loops in rows:
        name = f"**{kind}**" if kind == "all" else kind
        lines.append(
            f"| {name} | {correct}/{asked} | {100 * correct / asked:.0f}% | {median:.1f} | "
            f"{p95:.1f} | {loops} |"
        )
    lines.append(f"\nPrompt tokens re-used from the model's cache: {reuse}.")
    return "\n".join(lines)


def _progress(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:  # a plain counter without the `evals` / `local-models` extras
        return None
    return tqdm(total=total, unit="q", file=sys.stderr, dynamic_ncols=True)


async def run(url: str, questions: list[dict[str, Any]], out: Path | None, md: bool) -> int:
    client = get_client(url=url)
    warm = await ask(client, Question("Hello!", lambda _: True))
    print(f"warm-up (model load): {warm.seconds:.1f} s", flush=True)
    items: list[tuple[dict[str, Any], Outcome]] = []
    bar = _progress(len(questions))
    for number, question in enumerate(questions, start=1):
        check = checker(question["expect"], datetime.now(tz=UTC))
        outcome = await ask(client, Question(question["question"], check))
        items.append((question, outcome))
        mark = "ok " if outcome.correct else "BAD"
        loop = " LOOP" if outcome.looped else ""
        answer = " ".join(outcome.answer.split())[:140]
        line = (
            f"{question['id']} {mark} {outcome.seconds:5.1f} s{loop}  "
            f"{' '.join(outcome.tool_calls)}\n      Q: {question['question']}\n      A: {answer}"
        )
        if out is not None:  # after every question, so a run cut short can still be reported
            _save(out, items)
        if bar is not None:
            bar.write(line, file=sys.stderr)
            bar.set_postfix(correct=f"{sum(o.correct for _, o in items)}/{number}")
            bar.update()
        else:
            print(f"[{number}/{len(questions)}] {line}", flush=True)
    if bar is not None:
        bar.close()
    report(items, md)
    return 0


def _save(out: Path, items: list[tuple[dict[str, Any], Outcome]]) -> None:
    records = [{"id": q["id"], "kind": q["kind"], **o.__dict__} for q, o in items]
    out.write_text(json.dumps(records, indent=2) + "\n")


def report(items: list[tuple[dict[str, Any], Outcome]], md: bool) -> None:
    """Accuracy per kind, seconds, loops and cache re-use; `md`: also as a Markdown table."""
    rows = summary_rows(items)
    reused = sum(o.cache_reused for _, o in items)
    total = reused + sum(o.prompt_read for _, o in items)
    reuse = f"{100 * reused / total:.0f}% ({reused:,} of {total:,})" if total else "n/a"
    for kind, correct, asked, median, p95, loops in rows:
        print(
            f"{kind:12s} {correct:3d}/{asked:<3d} {100 * correct / asked:4.0f}%   "
            f"median {median:5.1f} s   p95 {p95:5.1f} s   loops {loops}"
        )
    print(f"prompt tokens re-used {reuse}")
    if md:
        print(markdown(rows, reuse))


def report_file(path: Path, md: bool) -> int:
    """The report of an `--out` file, also of a run that was cut short."""
    records = json.loads(path.read_text())
    items = [({"id": r.pop("id"), "kind": r.pop("kind")}, Outcome(**r)) for r in records]
    report(items, md)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--data", type=Path, default=DATA, help="the questions (JSON)")
    parser.add_argument("--kinds", help="comma-separated kinds to ask (default: all)")
    parser.add_argument("--out", type=Path, help="write every answer as JSON here")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    parser.add_argument("--report", type=Path, help="only report an earlier run's --out file")
    args = parser.parse_args(argv)
    if args.report:
        return report_file(args.report, args.markdown)
    kinds = set(args.kinds.split(",")) if args.kinds else None
    questions = load(args.data, kinds)
    if not questions:
        parser.error(f"no questions of kinds {args.kinds!r} in {args.data}")
    if args.url:
        return asyncio.run(run(args.url, questions, args.out, args.markdown))
    with tempfile.TemporaryDirectory(prefix="olg-everyday-") as tmp:
        process, url = serve(Path(tmp))
        try:
            return asyncio.run(run(url, questions, args.out, args.markdown))
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    raise SystemExit(main())
