"""The ReAct baseline over WebShop (Yao et al. 2023): one model call per step choosing to
think, search or click, on the raw page observation, with no state machine and no memory.

It runs on the same environment and step budget as LASER so the two can be compared on the
same goals. Clicks are restricted to the page's clickables (an enum), so with an embedded model
every action is valid here too; what differs is the agent's structure.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.models import load_chat_model

OBS_CHARS = 2000
HISTORY_OBS_CHARS = 200
HISTORY_STEPS = 4
THOUGHT_MAX_CHARS = 300
KEYWORDS_MAX_CHARS = 80

SYSTEM_PROMPT = (
    "You are shopping in a web shop for the item an instruction describes. Each turn you "
    "call one function: think (reason about what to do next), search (type a query into "
    "the search box, only on the search page) or click (one of the buttons, item ids or "
    "option values the page shows). On an item page, click the option values the "
    "instruction asks for, then click 'Buy Now'. The episode ends when you buy."
)


@dataclass
class ReactContext:
    env: Any = None
    chat_model: Any = None
    model: str | None = None
    max_steps: int = 15


class ReactState(TypedDict, total=False):
    user_instruction: str
    obs: str
    step_count: int
    history: Annotated[list[dict[str, Any]], operator.add]
    info: dict[str, Any]
    route: str


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tools(env: WebShopEnv) -> list[dict[str, Any]]:
    available = env.get_available_actions()
    targets = [c for c in available["clickables"] if c != "search"]
    tools: list[dict[str, Any]] = [
        _tool("think", {"thought": {"type": "string", "maxLength": THOUGHT_MAX_CHARS}}),
    ]
    if available["has_search_bar"]:
        tools.append(
            _tool("search", {"keywords": {"type": "string", "maxLength": KEYWORDS_MAX_CHARS}})
        )
    if targets:
        tools.append(_tool("click", {"target": {"type": "string", "enum": targets}}))
    return tools


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": properties, "required": [*properties]},
        },
    }


def _prompt(state: ReactState, obs: str) -> str:
    lines = []
    for entry in (state.get("history") or [])[-HISTORY_STEPS:]:
        lines.append(f"Action: {entry['action']}")
        lines.append(f"Observation: {_clip(entry['observation'], HISTORY_OBS_CHARS)}")
    lines.append(f"Current observation:\n{_clip(obs, OBS_CHARS)}")
    return "\n".join(lines)


def _action(call: dict[str, Any] | None, tools: list[dict[str, Any]]) -> str | None:
    """The env action (or ``think[...]``) of a tool call, or None when it is not allowed."""
    if call is None:
        return None
    args = call.get("args") or {}
    allowed = {t["function"]["name"]: t for t in tools}
    name = call.get("name")
    if name not in allowed:
        return None
    if name == "think":
        return f"think[{str(args.get('thought', ''))[:THOUGHT_MAX_CHARS]}]"
    if name == "search":
        keywords = " ".join(str(args.get("keywords", "")).split())
        return f"search[{keywords}]" if keywords else None
    enum = allowed["click"]["function"]["parameters"]["properties"]["target"]["enum"]
    target = str(args.get("target", ""))
    return f"click[{target}]" if target.lower() in {e.lower() for e in enum} else None


def act_node(state: ReactState, runtime: Runtime[ReactContext]) -> dict[str, Any]:
    ctx = runtime.context or ReactContext()
    env: WebShopEnv = ctx.env
    if not isinstance(env, WebShopEnv):
        raise ValueError("the ReAct baseline needs a WebShopEnv in its context (env=...)")
    model: BaseChatModel = ctx.chat_model or load_chat_model(ctx.model)
    info = dict(state.get("info") or {"invalid_actions": 0, "done": False, "reward": 0.0})
    instruction = state.get("user_instruction") or env.session.instruction
    obs = state.get("obs") or env.observation
    tools = _tools(env)
    reply = model.bind_tools(tools, tool_choice="any").invoke(
        [SystemMessage(SYSTEM_PROMPT), HumanMessage(_prompt(state, obs))]
    )
    calls = getattr(reply, "tool_calls", None) or []
    action = _action(calls[0] if calls else None, tools)
    step = int(state.get("step_count") or 0) + 1
    if action is None:
        info["invalid_actions"] += 1
        observation = "Invalid action."
    elif action.startswith("think["):
        observation = "OK."
    else:
        obs, reward, done, _ = env.step(action)
        observation = obs
        if done:
            info.update(done=True, reward=reward, reward_info=env.session.reward_info)
    entry = {"step": step, "action": action or "invalid", "observation": observation}
    finished = info.get("done") or step >= ctx.max_steps
    return {
        "route": "end" if finished else "act",
        "user_instruction": instruction,
        "obs": env.observation,
        "step_count": step,
        "history": [entry],
        "info": info,
    }


def _next(state: ReactState) -> str:
    return "act" if state.get("route") == "act" else END


builder = StateGraph(ReactState, context_schema=ReactContext)
builder.add_node("act", act_node)
builder.add_edge(START, "act")
builder.add_conditional_edges("act", _next, ["act", END])
graph = builder.compile(name="react_webshop")
