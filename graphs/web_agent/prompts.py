"""Prompts of the web agent's model calls. Kept short: the embedded 1.5B model reads every
token of them on a CPU at every step."""

from __future__ import annotations

CLARIFY = """You prepare browser tasks for a person. Decide whether the task below can be \
carried out in a web browser as stated. Ask a question only when something essential is \
missing (for example which site, which product, which size or budget when the task depends on \
it). When the task names the product and its wishes (size, color, price), do not ask about \
them: those choices are made on the site. Never ask about details the task already gives.

Task: {task}
{answers}"""

PLAN = """Write a short plan (at most 8 steps) for carrying out this task in a web browser. \
Each step is one thing to do or check on a page. For shopping, the steps a shop offers are: \
open the shop, search for the product, open the best result, choose its options (size, color), \
note its name and price, buy it (Buy Now). Do not plan a cart, an account or a checkout form \
unless the task names them. End with the step that finishes the task.

Task: {task}
{answers}{feedback}"""

AGENT = """You operate a web browser to carry out a task, one tool call at a time.

Task: {task}
{answers}Plan:
{plan}
Data extracted so far: {extracted}
{error}
Rules: use an element's ref from the page below as `target` (e.g. e7). Record every value \
the task asks for with extract_data. When the current step is finished, call think; it moves \
you to the next step.

Current page{url}:
{snapshot}"""

NO_PAGE = "(no page open yet: start with browser_navigate)"

ANSWER = """Answer the task from the data found in the browser. Use only these values.

Task: {task}
Data found: {extracted}"""


def answers_block(clarifications: list[dict[str, str]]) -> str:
    if not clarifications:
        return ""
    lines = [f"- {c['question']} -> {c['answer']}" for c in clarifications]
    return "Answers from the person:\n" + "\n".join(lines) + "\n"


def plan_block(plan: list[str], current: int) -> str:
    lines = []
    for i, step in enumerate(plan):
        mark = "done" if i < current else ("current" if i == current else "todo")
        lines.append(f"{i + 1}. [{mark}] {step}")
    return "\n".join(lines)
