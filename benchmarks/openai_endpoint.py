"""Benchmark of the OpenAI-compatible endpoint: what `/v1` costs over the in-process model.

The same streamed replies (same prompts, greedy decoding, same `max_tokens`) are timed two
ways, alternately so that machine load hits both alike:

- in-process: `LocalChatModel(...).stream(...)`, as a graph using `local/...` calls it;
- through the endpoint: the `openai` SDK streaming from `olg models serve` in another process
  (HTTP, JSON, SSE and the request queue included).

For each, first-token latency (request to first content delta) and generation tokens/s
(completion tokens over the time from the first to the last delta) are reported as medians,
with the endpoint's overhead in percent.

    .venv/bin/python benchmarks/openai_endpoint.py                    # smollm2-135m, 8 rounds
    .venv/bin/python benchmarks/openai_endpoint.py --rounds 12 --max-tokens 96 --json out.json

Run it alone: two llama.cpp computations on 2 cores stall each other (the two sides never
decode at the same time here, but other jobs would distort the figures).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import openai
from langchain_core.messages import HumanMessage

from open_langgraph.models.local import LocalChatModel

PROMPTS = (
    "Write a short story about a cat who learns to sail.",
    "Explain how a bicycle works to a child.",
    "Describe a walk through a forest in autumn.",
    "Write a letter to a friend about a trip to the sea.",
)


@dataclass(frozen=True, slots=True)
class Sample:
    first_token_s: float
    tokens_per_s: float
    tokens: int


def _time_stream(pieces: Iterator[tuple[str, int | None]], started: float) -> Sample:
    """Time a stream of (text, completion_tokens-or-None) pairs."""
    first = last = 0.0
    tokens = 0
    for text, count in pieces:
        now = time.perf_counter()
        if text:
            first = first or now
            last = now
        if count is not None:
            tokens = count
    rate = (tokens - 1) / (last - first) if tokens > 1 and last > first else 0.0
    return Sample(first - started, rate, tokens)


def in_process(model: LocalChatModel, prompt: str) -> Sample:
    def pieces() -> Iterator[tuple[str, int | None]]:
        for chunk in model.stream([HumanMessage(content=prompt)]):
            usage = chunk.usage_metadata
            yield chunk.text, (usage["output_tokens"] if usage else None)

    started = time.perf_counter()
    return _time_stream(pieces(), started)


def through_endpoint(client: openai.OpenAI, name: str, prompt: str, max_tokens: int) -> Sample:
    def pieces() -> Iterator[tuple[str, int | None]]:
        stream = client.chat.completions.create(
            model=name,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
        )
        for chunk in stream:
            text = chunk.choices[0].delta.content if chunk.choices else ""
            yield text or "", (chunk.usage.completion_tokens if chunk.usage else None)

    started = time.perf_counter()
    return _time_stream(pieces(), started)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "open_langgraph.cli", "models", "serve", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ok", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("olg models serve did not start")


def _summary(samples: list[Sample]) -> dict[str, float]:
    return {
        "first_token_ms": 1000 * statistics.median(s.first_token_s for s in samples),
        "tokens_per_s": statistics.median(s.tokens_per_s for s in samples),
        "tokens": statistics.median(s.tokens for s in samples),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--json", default=None, help="write the results to this file")
    args = parser.parse_args()

    # SIGTERM (a timeout) runs the `finally` below too, so the server never outlives us.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    model = LocalChatModel(model_name=args.model, max_tokens=args.max_tokens, temperature=0)
    model.runner()  # loaded before timing
    port = _free_port()
    server = _serve(port)
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
    runs: dict[str, list[Sample]] = {"in_process": [], "endpoint": []}
    sides: dict[str, Callable[[str], Sample]] = {
        "in_process": lambda p: in_process(model, p),
        "endpoint": lambda p: through_endpoint(client, args.model, p, args.max_tokens),
    }
    try:
        for side in sides.values():  # warm-up: the server's load, both prompt caches
            side(PROMPTS[0])
        for i in range(args.rounds):
            prompt = f"{PROMPTS[i % len(PROMPTS)]} (#{i})"  # no whole-prompt cache hits
            order = ("in_process", "endpoint") if i % 2 == 0 else ("endpoint", "in_process")
            for name in order:
                runs[name].append(sides[name](prompt))
                print(f"round {i}: {name} {runs[name][-1]}", file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait(timeout=15)
    result = {name: _summary(samples) for name, samples in runs.items()}
    local, remote = result["in_process"], result["endpoint"]
    result["overhead_percent"] = {
        "first_token": 100 * (remote["first_token_ms"] / local["first_token_ms"] - 1),
        "tokens_per_s": 100 * (1 - remote["tokens_per_s"] / local["tokens_per_s"]),
    }
    result["first_token_extra_ms"] = remote["first_token_ms"] - local["first_token_ms"]
    result["settings"] = {**vars(args), "cpus": os.cpu_count()}
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
