"""LASER's prompts: one system prompt per state (the page's layout and what to do there, no
in-context examples, as in Ma et al. 2023), the think and act turns, and the mapping prompt
that turns a hosted model's plain-text answer into an action."""

from __future__ import annotations

from typing import Any

from graphs.laser.state import Candidate

_ROLE = (
    "You are a web shopping agent. You are given a shopping instruction and must buy the one "
    "item that best matches it: its kind of product, its attributes, its options (such as size "
    "or color) and its price limit. You move between a small set of states, and in each state "
    "only the functions listed for it are available."
)

SYSTEM_PROMPTS = {
    "Search": (
        f"{_ROLE}\n\nYou are in the Search state: the page has a search box. Write a short "
        "query naming the kind of product and one or two of its most distinctive attributes; "
        "long queries match worse. Leave out sizes, colors and the price. Also state the "
        "price limit of the instruction (or null)."
    ),
    "Result": (
        f"{_ROLE}\n\nYou are in the Result state: you see the best-ranked search results "
        "you have not opened yet, each with its item id, title and price. Pick the item whose "
        "title best matches the instruction's product and attributes and whose price is "
        "within the limit, and open it to check it. If no item on this page fits, go to the "
        "next page; if the results are off-topic, go back to search with a better query. "
        "Do not reopen items already opened unless nothing else fits."
    ),
    "Item": (
        f"{_ROLE}\n\nYou are in the Item state: the page shows one item with its title, "
        "price, rating and the option values you can choose. You can read its description, "
        "features or reviews, buy it, or go back to the results. Buy it when it matches the "
        "product, attributes and price of the instruction and offers the options asked for; "
        "when buying, choose for every option type the value closest to the instruction. Go "
        "back when it does not match."
    ),
}

DECIDE_TURN = (
    "Call exactly one function of this state. Start its arguments with your thought: one "
    "short sentence saying why this action fits the instruction. Do not repeat the instruction."
)
DECIDE_TURN_ITEM = (
    f"{DECIDE_TURN} Also give match_score, how well this item fits the instruction (0-10). "
    "Buy it when its product, attributes and price fit; then choose for every option type the "
    "value the instruction names. Read a subpage only if the page above cannot tell you."
)
ACT_TURN = "Now call exactly one of the functions of this state, as your reasoning decided."
MAPPING_PROMPT = (
    "Turn the reasoning below into exactly one of the allowed actions. Reply with the action "
    "only, written as name or name[argument=value, ...].\n\nAllowed actions:\n{actions}\n\n"
    "Reasoning:\n{thought}"
)
BACKUP_OPTIONS_TURN = (
    "The step budget is spent, so this item will be bought now. Choose for every option type "
    "the value closest to the instruction."
)


def state_message(
    state_name: str,
    instruction: str,
    page_view: str,
    history: list[dict[str, Any]],
    memory: list[Candidate],
    steps_left: int,
) -> str:
    """The user turn of a state: instruction, page, recent actions, memory, budget."""
    lines = [f"Instruction: {instruction}", "", f"Current state: {state_name}", page_view]
    recent = history[-6:]
    if recent:
        lines += ["", "Your previous actions:"]
        lines += [f"- {entry['action']}" for entry in recent]
    if memory:
        lines += ["", "Items you already inspected:"]
        for c in memory[-5:]:
            score = c.get("score")
            rated = f", your score {score:g}/10" if score is not None else ""
            title = c.get("title", "")[:70]
            lines.append(f"- {c['item_id']}: {title} | {c.get('price', '')}{rated}")
    lines += ["", f"Actions left before a forced purchase: {steps_left}"]
    return "\n".join(lines)


def describe_actions(tools: list[dict[str, Any]]) -> str:
    """Allowed actions as text for the mapping prompt, enum values included."""
    lines = []
    for tool in tools:
        fn = tool["function"]
        props = fn["parameters"].get("properties", {})
        args = []
        for key, prop in props.items():
            values = prop.get("enum")
            args.append(f"{key}=one of {values}" if values else f"{key}=<{prop.get('type')}>")
        suffix = f"[{', '.join(args)}]" if args else ""
        lines.append(f"- {fn['name']}{suffix}: {fn['description']}")
    return "\n".join(lines)
