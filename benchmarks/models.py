"""Benchmark of the embedded models: load time, token rates and constrained-decision latency.

For each local model: time to assemble/verify the model file, time to load it into llama.cpp,
prompt and generation tokens/s (from llama.cpp's own timings on an unconstrained reply), and
latency per grammar-constrained tool decision over WebShop-like pages, with how many calls
validated against their schema and how many picked the tool and item a person would.

    .venv/bin/python benchmarks/models.py                       # every installed local model
    .venv/bin/python benchmarks/models.py --models smollm2-135m --decisions 10 --json out.json

Run it alone: two llama.cpp processes on 2 cores stall each other and distort the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from jsonschema import Draft202012Validator
from langchain_core.messages import HumanMessage, SystemMessage

from open_langgraph.models.errors import ModelFileError
from open_langgraph.models.local import LOCAL_MODELS, LocalChatModel
from open_langgraph.models.local.files import ensure_model_file
from open_langgraph.models.local.runner import get_runner

SYSTEM = (
    "You are a shopping agent working towards the user's goal one page at a time. "
    "On the home page, search for the goal. On a results page, open the item that matches the "
    "goal, or go to the next page if none does. On a product page, buy it, choosing the size "
    "the goal asks for ('none' if it names no size)."
)


def _tools(item_ids: list[str]) -> list[dict[str, Any]]:
    def fn(name: str, description: str, props: dict[str, Any]) -> dict[str, Any]:
        schema = {"type": "object", "properties": props, "required": list(props)}
        return {"name": name, "description": description, "parameters": schema}

    return [
        fn("search", "Search the shop.", {"query": {"type": "string", "maxLength": 60}}),
        fn("click_item", "Open a listed product.", {"item_id": {"enum": item_ids}}),
        fn("next_page", "Show the next page of results.", {}),
        fn("buy_now", "Buy the open product.", {"size": {"enum": ["S", "M", "L", "XL", "none"]}}),
    ]


# (goal, page text, item ids on the page, expected tool, expected argument value or None)
DECISIONS: list[tuple[str, str, list[str], str, str | None]] = [
    ("red running shoes under $60", "Home page. Search box.", [], "search", None),
    ("a blue ceramic mug", "Home page. Search box.", [], "search", None),
    ("wireless earbuds with case", "Home page.", [], "search", None),
    ("men's wool socks, 6 pack", "Home page.", [], "search", None),
    (
        "red running shoes under $60",
        "Results: [B01A] Red runner shoe $49 | [B02B] Blue sandal $30 | [B03C] Red heel $90",
        ["B01A", "B02B", "B03C"],
        "click_item",
        "B01A",
    ),
    (
        "a blue ceramic mug",
        "Results: [C11] Steel bottle $12 | [C12] Blue ceramic mug $8 | [C13] Glass cup $5",
        ["C11", "C12", "C13"],
        "click_item",
        "C12",
    ),
    (
        "wireless earbuds with case",
        "Results: [E1] Wired headphones $20 | [E2] Wireless earbuds + charging case $35",
        ["E1", "E2"],
        "click_item",
        "E2",
    ),
    (
        "a yoga mat, purple",
        "Results: [Y7] Purple yoga mat $25 | [Y8] Green yoga mat $22 | [Y9] Yoga block $9",
        ["Y7", "Y8", "Y9"],
        "click_item",
        "Y7",
    ),
    (
        "a phone charger (USB-C)",
        "Results page 1: [P1] Lightning cable | [P2] Micro-USB cable. No USB-C here.",
        ["P1", "P2"],
        "next_page",
        None,
    ),
    (
        "a large grey hoodie",
        "Results page 1: [H1] Black cap | [H2] Red scarf. Nothing matching.",
        ["H1", "H2"],
        "next_page",
        None,
    ),
    (
        "red running shoes under $60, size L",
        "Product B01A: Red runner shoe $49. Sizes: S M L XL. [Buy Now]",
        ["B01A"],
        "buy_now",
        "L",
    ),
    (
        "a large grey hoodie",
        "Product H9: Grey hoodie $40. Sizes: S M L XL. [Buy Now]",
        ["H9"],
        "buy_now",
        "L",
    ),
    (
        "a small black t-shirt",
        "Product T3: Black t-shirt $15. Sizes: S M L XL. [Buy Now]",
        ["T3"],
        "buy_now",
        "S",
    ),
    ("a blue ceramic mug", "Product C12: Blue ceramic mug $8. [Buy Now]", ["C12"], "buy_now", None),
    ("a garden hose 20m", "Home page.", [], "search", None),
    (
        "a garden hose 20m",
        "Results: [G5] Garden hose 20 m $28 | [G6] Hose reel $45",
        ["G5", "G6"],
        "click_item",
        "G5",
    ),
    (
        "an XL rain jacket",
        "Product R2: Rain jacket $60. Sizes: S M L XL. [Buy Now]",
        ["R2"],
        "buy_now",
        "XL",
    ),
    ("a kids' bike helmet", "Home page.", [], "search", None),
    (
        "a kids' bike helmet",
        "Results: [K1] Adult helmet $30 | [K2] Kids bike helmet $22 | [K3] Bike lock $15",
        ["K1", "K2", "K3"],
        "click_item",
        "K2",
    ),
    (
        "a notebook, dotted",
        "Results page 1: [N1] Lined notebook | [N2] Squared notebook",
        ["N1", "N2"],
        "next_page",
        None,
    ),
]


@dataclass
class ModelReport:
    model: str
    file_seconds: float
    load_seconds: float
    prompt_tokens_per_s: float
    generated_tokens_per_s: float
    decisions: int
    valid_calls: int
    expected_choices: int
    decision_median_s: float
    decision_p90_s: float
    decision_max_s: float
    misses: list[str]
    """Decisions where the model picked another tool or argument than expected."""


def bench_model(name: str, n_decisions: int) -> ModelReport:
    spec = LOCAL_MODELS[name]
    started = time.perf_counter()
    path = ensure_model_file(spec)
    file_seconds = time.perf_counter() - started
    runner = get_runner(path)
    model = LocalChatModel(model_name=name, max_tokens=64)

    # Token rates from one unconstrained reply with a few-hundred-token prompt.
    prompt = "Summarise the following product list in two sentences.\n" + "\n".join(
        f"- Item {i}: a sturdy {c} cotton shirt, sizes S to XL, ${10 + i}"
        for i, c in enumerate(["red", "blue", "green", "black", "white", "grey"] * 4)
    )
    rate_model = LocalChatModel(model_name=name, max_tokens=128)
    reply = rate_model.invoke([HumanMessage(prompt)])
    timings = reply.response_metadata["timings"]

    latencies: list[float] = []
    valid = expected = 0
    misses: list[str] = []
    for goal, page, ids, want_tool, want_arg in (DECISIONS * 2)[:n_decisions]:
        tools = _tools(ids or ["none"])
        messages = [
            SystemMessage(SYSTEM),
            HumanMessage(f"Goal: {goal}\nPage: {page}\nWhat is the next action?"),
        ]
        t0 = time.perf_counter()
        call = model.bind_tools(tools, tool_choice="any").invoke(messages).tool_calls[0]
        latencies.append(time.perf_counter() - t0)
        schema = next(t["parameters"] for t in tools if t["name"] == call["name"])
        if not list(Draft202012Validator(schema).iter_errors(call["args"])):
            valid += 1
        args = list(call["args"].values())
        if call["name"] == want_tool and (want_arg is None or want_arg in args):
            expected += 1
        else:
            misses.append(f"{page[:30]!r}: wanted {want_tool} {want_arg or ''}, got {call}")
    latencies.sort()
    return ModelReport(
        model=f"local/{name}",
        file_seconds=round(file_seconds, 2),
        load_seconds=round(runner.load_seconds, 2),
        prompt_tokens_per_s=round(timings.get("prompt_per_second", 0.0), 1),
        generated_tokens_per_s=round(timings.get("predicted_per_second", 0.0), 1),
        decisions=len(latencies),
        valid_calls=valid,
        expected_choices=expected,
        decision_median_s=round(statistics.median(latencies), 2),
        decision_p90_s=round(latencies[int(0.9 * (len(latencies) - 1))], 2),
        decision_max_s=round(latencies[-1], 2),
        misses=misses,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    parser.add_argument("--decisions", type=int, default=len(DECISIONS))
    parser.add_argument("--json", help="also write the reports to this file")
    args = parser.parse_args(argv)
    reports = []
    for name in args.models:
        try:
            report = bench_model(name, args.decisions)
        except ModelFileError as exc:
            print(f"skipping local/{name}: {exc}", file=sys.stderr)
            continue
        reports.append(report)
        for key, value in asdict(report).items():
            print(f"{key:>24}: {value}")
        print()
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in reports], f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
