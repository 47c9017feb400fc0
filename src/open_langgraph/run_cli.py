"""`olg run GRAPH "input"`: run a served graph from a terminal.

Streams the run's progress from a server through `langgraph_sdk`, asks each interrupt's
question on stdin, resumes with the answer, and prints the report when the run ends. A tool
review in LangChain v1's `HumanInTheLoopMiddleware` format (react_agent_hitl, any `create_agent`
graph with that middleware, in either mode) is answered in plain words, call by call
(`run_review.py`), and so is an Agent Inbox review (`run_inbox.py`). Any other interrupt
(clarifying questions, plan approval, a text or any object given to `interrupt()`) is shown as
sentences and fields, with a prompt saying what to type (`run_questions.py`).
Works with any graph: the input is sent as a human message unless `--input-json` gives the whole
input.

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

from open_langgraph.run_inbox import inbox_actions, inbox_answer
from open_langgraph.run_questions import ask_question
from open_langgraph.run_review import (
    InputEnded,
    ReadLine,
    ReviewEnded,
    ask_decisions,
    review_actions,
)

DEFAULT_URL = "http://127.0.0.1:8123"
#: `custom` carries stage messages (`models/progress.py`: "loading local/... ").
STREAM_MODES = ["updates", "custom"]
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

    def ask(self, text: str) -> None:
        """A question the answer is typed after, on the same line."""
        print(text, end="", file=self.out, flush=True)

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


def _subgraph_name(namespace: str) -> str:
    """`parent_node:<task id>|child:<task id>` as `parent_node > child`."""
    return " > ".join(part.split(":", 1)[0] for part in namespace.split("|"))


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


async def answer_interrupts(
    interrupts: list[dict[str, Any]], console: Console, read_line: ReadLine
) -> dict[str, Any]:
    """The command that answers a run's pending interrupts, asked of the person.

    Per-call tool approvals are reviewed together and answered by interrupt id; a batched
    review gets `{"decisions": [...]}`, an Agent Inbox review its responses; any other
    interrupt a typed line. Several interrupts are answered by id; `end` in a review ends it
    (`goto: "__end__"`).

    Raises:
        InputEnded: stdin ended before every interrupt had its answer.
    """
    if any(not isinstance(i, dict) or not i.get("id") for i in interrupts):
        interrupts = interrupts[:1]  # without ids only one interrupt can be answered
    approvals = [i for i in interrupts if _is_tool_approval(i)]
    answers: dict[str, Any] = {}
    try:
        if approvals:
            actions = [a for i in approvals for a in review_actions(i) or []]
            decisions = await ask_decisions(actions, console, read_line)
            answers.update({i["id"]: d for i, d in zip(approvals, decisions, strict=True)})
        for interrupt in interrupts:
            if _is_tool_approval(interrupt):
                continue
            answers[interrupt.get("id") or ""] = await _answer(interrupt, console, read_line)
    except ReviewEnded:
        return {"goto": "__end__"}
    if len(interrupts) == 1 and not approvals:
        return {"resume": next(iter(answers.values()))}
    return {"resume": answers}


def _is_tool_approval(interrupt: Any) -> bool:
    value = interrupt.get("value") if isinstance(interrupt, dict) else None
    return isinstance(value, dict) and value.get("type") == "tool_approval"


async def _answer(interrupt: Any, console: Console, read_line: ReadLine) -> Any:
    """The resume value of one interrupt that is no per-call tool approval."""
    value = interrupt.get("value") if isinstance(interrupt, dict) else None
    actions = review_actions(interrupt) if isinstance(interrupt, dict) else None
    if actions is not None:
        error = value.get("error") if isinstance(value, dict) else None
        return {"decisions": await ask_decisions(actions, console, read_line, error)}
    actions = inbox_actions(value)
    if actions is not None:
        decisions = await ask_decisions(actions, console, read_line)
        return inbox_answer(value, actions, decisions)
    return await ask_question(value, console, read_line)


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
        elif isinstance(last, dict) and last.get("tool_calls"):
            names = ", ".join(str(c.get("name")) for c in last["tool_calls"])
            lines.append(f"No reply: the agent stopped before its tool calls ran ({names}).")
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
                thread_id,
                args.graph,
                stream_mode=STREAM_MODES,
                # A subgraph's nodes report as they finish, not only when the whole subgraph
                # does (subgraph_agent was silent for 90 s).
                stream_subgraphs=True,
                context=context,
                **request,
            ):
                event, _, namespace = part.event.partition("|")
                if event == "error":
                    data = part.data if isinstance(part.data, dict) else {"message": part.data}
                    console.warn(f"the run failed: {data.get('message') or data}")
                    return EXIT_FAILED
                if event == "custom":
                    if isinstance(part.data, dict) and part.data.get("type") == "status":
                        console.say(f"... {part.data.get('message')}")
                    continue
                if event != "updates" or not isinstance(part.data, dict):
                    continue
                for node, update in part.data.items():
                    if node == "__interrupt__":
                        # The parent graph reports a subgraph's interrupt too: taken from there.
                        if not namespace:
                            interrupts += [i for i in update or [] if i not in interrupts]
                    else:
                        name = f"{_subgraph_name(namespace)} > {node}" if namespace else node
                        for line in describe_update(name, update):
                            console.say(line)
            if not interrupts:
                break
            try:
                command = await answer_interrupts(
                    interrupts, console, lambda: asyncio.to_thread(stdin.readline)
                )
            except InputEnded:
                console.warn(
                    f"no answer (end of input); thread {thread_id} stays interrupted and can be "
                    "resumed later"
                )
                return EXIT_NO_ANSWER
            request = {"input": None, "command": command}
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
