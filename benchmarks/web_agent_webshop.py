"""The web agent on WebShop goals through real headless Chromium and Playwright MCP.

Serves the WebShop HTML site (1k catalog, synthetic goals, seed 233: the goals LASER is
evaluated on) in this process, runs the whole graph per goal with the given model, answers its
questions automatically (the shop's address; "yes" to the plan), and appends one JSON line per
episode: reward of the first purchase (from the site's state; WebShop's episode ends there),
success (reward == 1), agent steps, seconds per agent step, prompt tokens and how many of them
were re-used from the model's cache, snapshot sizes in tokens, outcome. Each action is printed
as it happens; a summary table row closes the run. Goals already in --out are skipped, so the
same command resumes an interrupted run.

    .venv/bin/python benchmarks/web_agent_webshop.py --data data/webshop --start 0 --n 10 \
        --max-steps 15 --out web_agent.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.web_agent.graph import build_graph
from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.envs.webshop.site import create_app
from open_langgraph.models import load_chat_model


class Timings(BaseCallbackHandler):
    """Wall time and prompt tokens of every model call."""

    def __init__(self, trace: Path | None = None) -> None:
        self.started: dict[Any, tuple[float, bool]] = {}
        self.calls: list[dict[str, Any]] = []
        self.trace = trace

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, **_: Any) -> None:
        is_agent = str(messages[0][0].content).startswith("You operate a web browser")
        self.started[run_id] = (time.monotonic(), is_agent)
        if self.trace is not None:
            with self.trace.open("a") as out:
                out.write(f"\n===== call {len(self.calls) + 1}\n{messages[0][-1].content}\n")

    def on_llm_end(self, response: Any, *, run_id: Any, **_: Any) -> None:
        usage = {}
        generations = getattr(response, "generations", None) or [[]]
        if generations[0]:
            usage = getattr(generations[0][0].message, "usage_metadata", None) or {}
        started, is_agent = self.started.pop(run_id, (time.monotonic(), False))
        if self.trace is not None and generations[0]:
            reply = generations[0][0].message
            with self.trace.open("a") as out:
                out.write(f"----- reply: {reply.content} {getattr(reply, 'tool_calls', '')}\n")
        details = usage.get("input_token_details") or {}
        self.calls.append(
            {
                "seconds": time.monotonic() - started,
                "agent": is_agent,
                "input_tokens": usage.get("input_tokens"),
                "cache_read": details.get("cache_read"),
            }
        )


def serve_site(data: str | None, port: int) -> uvicorn.Server:
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(WebShopEnv(data, goals="synthetic", seed=233)),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server


async def episode(
    graph: Any, model: Any, url: str, index: int, max_steps: int, trace: Path | None = None
) -> dict[str, Any]:
    shop = f"{url}/fixed_{index}"
    instruction = httpx.get(f"{shop}/state").json()["goal"]["instruction_text"]
    config: dict[str, Any] = {"configurable": {"thread_id": str(uuid.uuid4())}}
    timings = Timings(trace)
    config["callbacks"] = [timings]
    context = {"chat_model": model, "max_steps": max_steps}
    value: Any = {"task": f"{instruction}. Shop at {shop}"}
    started = time.monotonic()
    questions = 0
    # WebShop's episode ends at the purchase: its reward counts even if the agent goes on and
    # reopens the shop's start page (which starts the goal's session afresh).
    bought: dict[str, Any] | None = None
    for _ in range(6):
        async for update in graph.astream(value, config, context=context, stream_mode="updates"):
            for record in (update.get("tools") or {}).get("action_history") or []:
                args = json.dumps(record["args"])[:100]
                print(f"  goal {index}: {record['tool']} {args} -> {record['result'][:80]}")
            if bought is None and "tools" in update:
                site = httpx.get(f"{shop}/state").json()
                bought = site if site["done"] else None
        state = await graph.aget_state(config)
        if not state.interrupts:
            break
        asked = state.interrupts[0].value
        questions += asked["type"] == "clarification"
        value = Command(resume=shop if asked["type"] == "clarification" else "yes")
    seconds = time.monotonic() - started
    values = (await graph.aget_state(config)).values
    site = bought or httpx.get(f"{shop}/state").json()
    actions = values.get("action_history") or []
    snapshots = [a["snapshot_tokens"] for a in actions if "snapshot_tokens" in a]
    raw = [a["snapshot_tokens_raw"] for a in actions if "snapshot_tokens_raw" in a]
    agent_calls = [c for c in timings.calls if c["agent"]]
    return {
        "goal": index,
        "reward": site["reward"] or 0.0,
        "success": site["reward"] == 1.0,
        "bought": site["done"],
        "outcome": values.get("outcome"),
        "clarifying_questions": questions,
        "plan": values.get("plan"),
        "agent_steps": values.get("agent_steps", 0),
        "invalid_actions": sum(not a.get("ok") for a in actions),
        "tools": [a["tool"] for a in actions],
        "seconds": round(seconds, 1),
        "model_calls": len(timings.calls),
        "seconds_per_agent_step": round(
            statistics.mean(c["seconds"] for c in agent_calls) if agent_calls else 0.0, 2
        ),
        "agent_prompt_tokens": [c["input_tokens"] for c in agent_calls],
        "agent_prompt_tokens_cached": [c["cache_read"] for c in agent_calls],
        "snapshot_tokens": snapshots,
        "snapshot_tokens_raw": raw,
        "final_answer": values.get("final_answer"),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None)
    parser.add_argument("--model", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--port", type=int, default=3917)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--trace", type=Path, default=None, help="append every prompt's last message and reply"
    )
    args = parser.parse_args()
    serve_site(args.data, args.port)
    model = load_chat_model(args.model)
    graph = build_graph(checkpointer=InMemorySaver())
    done = set()
    if args.out.exists():
        done = {json.loads(line)["goal"] for line in args.out.read_text().splitlines() if line}
    for index in range(args.start, args.start + args.n):
        if index in done:
            continue
        url = f"http://127.0.0.1:{args.port}"
        row = await episode(graph, model, url, index, args.max_steps, args.trace)
        with args.out.open("a") as out:
            out.write(json.dumps(row) + "\n")
        summary = {k: row[k] for k in ("goal", "reward", "agent_steps", "seconds")}
        print(json.dumps(summary), flush=True)
    rows = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    print(summary_table([r for r in rows if args.start <= r["goal"] < args.start + args.n]))


def summary_table(rows: list[dict[str, Any]]) -> str:
    """The episodes as one Markdown table row, with its header: what the issue's target reads
    (bought with reward >= 0.5) beside WebShop's usual score and success rate."""
    if not rows:
        return "no episodes"
    goals = sorted(r["goal"] for r in rows)
    prompt = sum(sum(t or 0 for t in r["agent_prompt_tokens"]) for r in rows)
    cached = sum(sum(t or 0 for t in r.get("agent_prompt_tokens_cached") or []) for r in rows)
    seconds = [r["seconds"] for r in rows]
    cells = [
        f"synthetic {goals[0]}-{goals[-1]} ({len(rows)})",
        f"{sum(r['bought'] and r['reward'] >= 0.5 for r in rows)} / {len(rows)}",
        f"{sum(r['bought'] for r in rows)}",
        f"{100 * statistics.mean(r['reward'] for r in rows):.1f}",
        f"{100 * statistics.mean(r['success'] for r in rows):.0f}%",
        f"{statistics.mean(r['agent_steps'] for r in rows):.1f}",
        f"{statistics.mean(seconds):.0f} ({statistics.median(seconds):.0f})",
        f"{100 * cached / prompt:.0f}%" if prompt else "-",
    ]
    header = (
        "| goals | bought, reward >= 0.5 | bought | score | success | agent steps "
        "| s / episode (median) | prompt re-used |"
    )
    return "\n".join([header, "|---" * 8 + "|", "| " + " | ".join(cells) + " |"])


if __name__ == "__main__":
    asyncio.run(main())
