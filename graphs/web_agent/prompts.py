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
{answers}Plan approved by the person (a guide; your actions so far show how far you are):
{plan}

Rules:
- Act on the current page: `target` is the ref of one of its elements (e.g. e7).
- To search, type only the product in a few words into the search box, with submit=true \
(for "Find me red cotton socks, size large, under 20 dollars" type "red cotton socks").
- On a product page, choose each option the task asks for (size, color), then buy.
- Record every value the task asks for with extract_data.
- Do not repeat an action that worked. When the task is done (e.g. the purchase is \
confirmed), or cannot be done, call finish."""

PAGE = """{actions}{extracted}{error}Current page{url}:
{snapshot}

Choose the next action for the task: {task}"""
"""The Agent's last message, the only part of its prompt that changes on every call: it comes
after the stable system message and history so that the model's prompt cache keeps them."""

NO_PAGE = "(no page open yet: start with browser_navigate)"

ANSWER = """Answer the task from the data found in the browser. Use only these values.

Task: {task}
Data found: {extracted}"""


def answers_block(clarifications: list[dict[str, str]]) -> str:
    if not clarifications:
        return ""
    lines = [f"- {c['question']} -> {c['answer']}" for c in clarifications]
    return "Answers from the person:\n" + "\n".join(lines) + "\n"


def plan_block(plan: list[str]) -> str:
    return "\n".join(f"{i + 1}. {step}" for i, step in enumerate(plan))


def extracted_block(extracted: object) -> str:
    return f"Data extracted so far: {extracted}\n" if extracted else ""
