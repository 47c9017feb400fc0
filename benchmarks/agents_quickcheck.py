"""Ask `react_agent` ten everyday questions through `olg serve`, as a new user would.

    python benchmarks/agents_quickcheck.py            # starts its own `olg serve`
    python benchmarks/agents_quickcheck.py --url http://127.0.0.1:2024

The questions are this benchmark's own (arithmetic word problems, today's date, facts from the
project's docs); each has a checker for the final answer. Printed per question: correct or not,
seconds, tool calls, and whether the run looped (an identical tool call twice in the turn, the
out-of-steps answer, or a run that errored or timed out). The last line is the summary:

    correct 9/10   loops 0   median 11.2 s   prompt tokens re-used 81% (12,345 of 15,230)

Model: the server's default (`$OLG_MODEL`, else the embedded local/qwen2.5-coder-1.5b). A
warm-up question loads the model first and is not counted. Run on an idle machine: the
figures are wall-clock seconds of a 2-core CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_client

ROOT = Path(__file__).resolve().parents[1]
OUT_OF_STEPS = "could not find an answer"
TIMEOUT_SECONDS = 300.0


def _number(expected: float) -> Callable[[str], bool]:
    def check(answer: str) -> bool:
        found = re.findall(r"-?\d+(?:\.\d+)?", answer.replace(",", ""))
        return any(abs(float(n) - expected) < 0.01 for n in found)

    return check


def _today_spellings(day: datetime) -> list[str]:
    return [
        day.date().isoformat(),
        f"{day:%B} {day.day}, {day.year}",
        f"{day.day} {day:%B} {day.year}",
        f"{day:%B} {day.day} {day.year}",
        f"{day:%b} {day.day}, {day.year}",
    ]


def _today(answer: str) -> bool:
    now = datetime.now(tz=UTC)
    # Either side of midnight UTC counts: the server may have rendered the other day.
    days = [now, now - timedelta(hours=12), now + timedelta(hours=12)]
    text = answer.lower().replace("th,", ",").replace("st,", ",").replace("nd,", ",")
    return any(s.lower() in text for d in days for s in _today_spellings(d))


def _contains(*needles: str) -> Callable[[str], bool]:
    """Any of `needles` as a whole word (OLG_MODEL_CACHE is not OLG_MODEL)."""
    patterns = [re.compile(rf"(?<!\w){re.escape(n)}(?!\w)", re.IGNORECASE) for n in needles]
    return lambda answer: any(p.search(answer) for p in patterns)


@dataclass(frozen=True)
class Question:
    text: str
    check: Callable[[str], bool]


QUESTIONS = [
    Question("A bakery sells muffins for $3.75 each. How much do 16 muffins cost?", _number(60)),
    Question(
        "A cyclist rides 23.4 km every day for 17 days. How many kilometres is that in total?",
        _number(397.8),
    ),
    Question(
        "I had 1250 euros, paid 3 bills of 187.40 euros each, then earned 95 euros. "
        "How many euros do I have now?",
        _number(782.8),
    ),
    Question(
        "A warehouse holds 48 boxes with 36 bottles in each. 275 bottles break. "
        "How many bottles are left?",
        _number(1453),
    ),
    Question("What is today's date?", _today),
    Question(
        "What year will it be 3 years from today?",
        lambda a: str(datetime.now(tz=UTC).year + 3) in a,
    ),
    Question(
        "Which Python binding for llama.cpp does Open LangGraph use for its embedded models?",
        _contains("xllamacpp"),
    ),
    Question(
        "Which environment variable chooses the model Open LangGraph uses when a graph names none?",
        _contains("OLG_MODEL"),
    ),
    Question(
        "In the Open LangGraph docs, what k1 value does the WebShop search ranking use?",
        _number(0.9),
    ),
    Question(
        "Which embedded model does Open LangGraph run by default?",
        _contains("qwen2.5-coder", "qwen 2.5 coder", "qwen2.5 coder"),
    ),
]


@dataclass
class Outcome:
    question: str
    answer: str
    correct: bool
    looped: bool
    seconds: float
    tool_calls: list[str]
    cache_reused: int
    prompt_read: int


def _turn_facts(messages: list[dict[str, Any]]) -> tuple[list[str], bool, int, int]:
    """Tool calls of the last turn, whether one repeated, and prompt tokens re-used/re-read."""
    start = max(i for i, m in enumerate(messages) if m.get("type") == "human")
    calls: list[str] = []
    reused = read = 0
    for message in messages[start + 1 :]:
        if message.get("type") != "ai":
            continue
        for call in message.get("tool_calls") or []:
            calls.append(f"{call['name']}({json.dumps(call['args'], sort_keys=True)})")
        timings = (message.get("response_metadata") or {}).get("timings") or {}
        reused += int(timings.get("cache_n") or 0)
        read += int(timings.get("prompt_n") or 0)
    return calls, len(calls) != len(set(calls)), reused, read


async def ask(client: Any, question: Question) -> Outcome:
    thread = await client.threads.create()
    started = time.monotonic()
    status = "success"
    try:
        await asyncio.wait_for(
            client.runs.wait(
                thread["thread_id"],
                "react_agent",
                input={"messages": [{"role": "user", "content": question.text}]},
                raise_error=False,
            ),
            TIMEOUT_SECONDS,
        )
    except TimeoutError:
        status = "timeout"
    seconds = time.monotonic() - started
    runs = await client.runs.list(thread["thread_id"])
    if runs and runs[0]["status"] != "success":
        status = runs[0]["status"] if status == "success" else status
    state = await client.threads.get_state(thread["thread_id"])
    messages = (state.get("values") or {}).get("messages") or []
    answer = str(messages[-1].get("content") or "") if messages else ""
    calls, repeated, reused, read = _turn_facts(messages) if messages else ([], False, 0, 0)
    looped = repeated or OUT_OF_STEPS in answer or status != "success"
    correct = status == "success" and question.check(answer)
    return Outcome(question.text, answer, correct, looped, seconds, calls, reused, read)


async def run(url: str, out: Path | None) -> int:
    client = get_client(url=url)
    warm = await ask(client, Question("Hello!", lambda _: True))
    print(f"warm-up (model load): {warm.seconds:.1f} s", flush=True)
    outcomes: list[Outcome] = []
    for number, question in enumerate(QUESTIONS, start=1):
        outcome = await ask(client, question)
        outcomes.append(outcome)
        mark = "ok " if outcome.correct else "BAD"
        loop = " LOOP" if outcome.looped else ""
        answer = " ".join(outcome.answer.split())[:110]
        print(
            f"{number:2d} {mark} {outcome.seconds:6.1f} s{loop}  {' '.join(outcome.tool_calls)}\n"
            f"      Q: {question.text}\n      A: {answer}",
            flush=True,
        )
    correct = sum(o.correct for o in outcomes)
    loops = sum(o.looped for o in outcomes)
    median = statistics.median(o.seconds for o in outcomes)
    reused = sum(o.cache_reused for o in outcomes)
    total = reused + sum(o.prompt_read for o in outcomes)
    share = 100 * reused / total if total else 0.0
    print(
        f"correct {correct}/{len(outcomes)}   loops {loops}   median {median:.1f} s   "
        f"prompt tokens re-used {share:.0f}% ({reused:,} of {total:,})"
    )
    if out is not None:
        out.write_text(json.dumps([o.__dict__ for o in outcomes], indent=2) + "\n")
    return 0


def serve(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = (directory / "serve.log").open("wb")
    command = [sys.executable, "-m", "open_langgraph.cli", "serve", "--port", str(port)]
    command += ["--host", "127.0.0.1", "--db", str(directory / "olg.db")]
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"olg serve exited: see {directory / 'serve.log'}")
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.3)
    process.terminate()
    raise SystemExit("olg serve did not start in 120 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--out", type=Path, help="write every answer as JSON here")
    args = parser.parse_args(argv)
    if args.url:
        return asyncio.run(run(args.url, args.out))
    with tempfile.TemporaryDirectory(prefix="olg-quickcheck-") as tmp:
        process, url = serve(Path(tmp))
        try:
            return asyncio.run(run(url, args.out))
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    raise SystemExit(main())
