"""`olg run GRAPH "input"`: run a served graph from a terminal.

Streams the run's progress from a server through `langgraph_sdk`, answers each interrupt with
a line typed on stdin (clarifying questions, plan approval, any other `interrupt()` payload),
resumes with `Command(resume=line)`, and prints the report when the run ends. Works with any
graph: the input is sent as a human message unless `--input-json` gives the whole input.

Exit codes: 0 the run finished, 1 it failed, 2 bad arguments or no server, 3 stdin ended while
the run waited for an answer (the thread stays interrupted and can be resumed later), 130
interrupted with Ctrl-C (the stream is closed, so the server cancels the run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import httpx

DEFAULT_URL = "http://127.0.0.1:8123"
STREAM_MODES = ["updates"]
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_ANSWER = 3


class Console:
    """Where the front end writes: progress and questions to stdout, problems to stderr."""

    def __init__(self, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.out = out
        self.err = err

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def warn(self, text: str) -> None:
        print(f"olg run: {text}", file=self.err, flush=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olg run", description="Run a served graph here.")
    parser.add_argument("graph", help="graph id or assistant id on the server")
    parser.add_argument("input", nargs="?", default=None, help="the request, sent as a message")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    parser.add_argument("--input-json", default=None, help="the run's whole input as JSON")
    parser.add_argument("--context", default=None, help="the run's context as a JSON object")
    return parser


def _json_arg(text: str | None, name: str, want: type) -> Any:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not valid JSON: {exc.msg}") from None
    if not isinstance(value, want):
        raise ValueError(f"{name} must be a JSON {want.__name__}")
    return value


def describe_update(node: str, update: Any) -> list[str]:
    """Progress lines for one node's state update, short enough to follow a run by."""
    if not isinstance(update, dict):
        return [f"[{node}]"]
    lines = [f"[{node}]"]
    if isinstance(update.get("plan"), list):
        lines += [f"  {i}. {step}" for i, step in enumerate(update["plan"], 1)]
    messages = update.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if not isinstance(message, dict):
                continue
            for call in message.get("tool_calls") or []:
                args = json.dumps(call.get("args"), ensure_ascii=False)
                lines.append(f"  -> {call.get('name')} {args}"[:200])
            if message.get("type") == "tool":
                lines.append(f"  <- {str(message.get('content'))[:160]}")
            elif message.get("type") == "ai" and message.get("content") and node != "report":
                lines.append(f"  {str(message['content'])[:300]}")
    if isinstance(update.get("extracted_data"), dict):
        for key, value in update["extracted_data"].items():
            lines.append(f"  found {key}: {value}")
    return lines


def describe_interrupt(value: Any) -> list[str]:
    """The question of an interrupt payload, and the plan when one is shown."""
    if not isinstance(value, dict):
        return [str(value)]
    lines = []
    if value.get("message_to_user"):
        lines.append(str(value["message_to_user"]))
    if isinstance(value.get("plan"), list):
        lines.append("Plan:")
        lines += [f"  {i}. {step}" for i, step in enumerate(value["plan"], 1)]
    if value.get("question"):
        lines.append(str(value["question"]))
    if not lines:
        lines.append(json.dumps(value, ensure_ascii=False, indent=2))
    return lines


def parse_answer(line: str) -> Any:
    """A typed answer: a JSON object when it is one, else the text."""
    text = line.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def describe_result(values: dict[str, Any]) -> list[str]:
    """The report: the graph's own report fields when it has them, else its last reply."""
    lines = []
    if values.get("final_answer"):
        lines += ["Answer:", str(values["final_answer"])]
    if values.get("workflow_summary"):
        lines += ["Summary:", str(values["workflow_summary"])]
    if not lines:
        messages = values.get("messages") or []
        last = messages[-1] if messages else None
        if isinstance(last, dict) and last.get("content"):
            lines.append(str(last["content"]))
        else:
            lines.append(json.dumps(values, ensure_ascii=False, default=str)[:2000])
    return lines


async def run_graph(args: argparse.Namespace, console: Console, stdin: TextIO = sys.stdin) -> int:
    from langgraph_sdk import get_client

    context = _json_arg(args.context, "--context", dict)
    graph_input = _json_arg(args.input_json, "--input-json", dict)
    if graph_input is None:
        if not args.input or not args.input.strip():
            raise ValueError('give the request as "input" or the whole input with --input-json')
        graph_input = {"messages": [{"role": "user", "content": args.input}]}

    client = get_client(url=args.url)
    try:
        thread_id = (await client.threads.create())["thread_id"]
        request: dict[str, Any] = {"input": graph_input}
        while True:
            interrupts: list[Any] = []
            async for part in client.runs.stream(
                thread_id, args.graph, stream_mode=STREAM_MODES, context=context, **request
            ):
                if part.event == "error":
                    data = part.data if isinstance(part.data, dict) else {"message": part.data}
                    console.warn(f"the run failed: {data.get('message') or data}")
                    return EXIT_FAILED
                if part.event != "updates" or not isinstance(part.data, dict):
                    continue
                for node, update in part.data.items():
                    if node == "__interrupt__":
                        interrupts.extend(update or [])
                    else:
                        for line in describe_update(node, update):
                            console.say(line)
            if not interrupts:
                break
            value = interrupts[0].get("value") if isinstance(interrupts[0], dict) else None
            console.say()
            for line in describe_interrupt(value):
                console.say(line)
            console.say("> ")
            line = await asyncio.to_thread(stdin.readline)
            if not line:
                console.warn(
                    f"no answer (end of input); thread {thread_id} stays interrupted and can be "
                    "resumed later"
                )
                return EXIT_NO_ANSWER
            request = {"input": None, "command": {"resume": parse_answer(line)}}
        state = await client.threads.get_state(thread_id)
        console.say()
        for line in describe_result(state.get("values") or {}):
            console.say(line)
        return 0
    finally:
        await client.http.client.aclose()


def run_main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Entry point of `olg run`."""
    console = console or Console()
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(run_graph(args, console))
    except ValueError as exc:
        console.warn(str(exc))
        return EXIT_USAGE
    except httpx.ConnectError:
        console.warn(f"cannot reach a server at {args.url} (start one with `olg serve`)")
        return EXIT_USAGE
    except httpx.HTTPStatusError as exc:
        detail = exc.response.text[:300]
        console.warn(f"the server answered {exc.response.status_code}: {detail}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        console.warn("interrupted; the run is cancelled")
        return 130
