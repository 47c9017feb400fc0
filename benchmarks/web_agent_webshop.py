"""The web agent on WebShop goals through real headless Chromium and Playwright MCP.

Serves the WebShop HTML site (1k catalog, synthetic goals, seed 233: the goals LASER is
evaluated on) in this process, runs the whole graph per goal with the given model, answers its
questions automatically (the shop's address; "yes" to the plan), and appends one JSON line per
episode: reward (from the site's state), success (reward == 1), agent steps, seconds per agent
step, snapshot sizes in tokens, outcome.

    .venv/bin/python benchmarks/web_agent_webshop.py --data data/webshop --start 0 --n 10 \
        --max-steps 10 --out web_agent.jsonl
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

    def __init__(self) -> None:
        self.started: dict[Any, tuple[float, bool]] = {}
        self.calls: list[dict[str, Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, **_: Any) -> None:
        is_agent = str(messages[0][0].content).startswith("You operate a web browser")
        self.started[run_id] = (time.monotonic(), is_agent)

    def on_llm_end(self, response: Any, *, run_id: Any, **_: Any) -> None:
        usage = {}
        generations = getattr(response, "generations", None) or [[]]
        if generations[0]:
            usage = getattr(generations[0][0].message, "usage_metadata", None) or {}
        started, is_agent = self.started.pop(run_id, (time.monotonic(), False))
        self.calls.append(
            {
                "seconds": time.monotonic() - started,
                "agent": is_agent,
                "input_tokens": usage.get("input_tokens"),
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


async def episode(graph: Any, model: Any, url: str, index: int, max_steps: int) -> dict[str, Any]:
    shop = f"{url}/fixed_{index}"
    instruction = httpx.get(f"{shop}/state").json()["goal"]["instruction_text"]
    config: dict[str, Any] = {"configurable": {"thread_id": str(uuid.uuid4())}}
    timings = Timings()
    config["callbacks"] = [timings]
    context = {"chat_model": model, "max_steps": max_steps}
    value: Any = {"task": f"{instruction}. Shop at {shop}"}
    started = time.monotonic()
    questions = 0
    for _ in range(6):
        await graph.ainvoke(value, config, context=context)
        state = await graph.aget_state(config)
        if not state.interrupts:
            break
        asked = state.interrupts[0].value
        questions += asked["type"] == "clarification"
        value = Command(resume=shop if asked["type"] == "clarification" else "yes")
    seconds = time.monotonic() - started
    values = (await graph.aget_state(config)).values
    site = httpx.get(f"{shop}/state").json()
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
        row = await episode(graph, model, f"http://127.0.0.1:{args.port}", index, args.max_steps)
        with args.out.open("a") as out:
            out.write(json.dumps(row) + "\n")
        print(json.dumps({k: row[k] for k in ("goal", "reward", "agent_steps", "seconds")}))


if __name__ == "__main__":
    asyncio.run(main())
