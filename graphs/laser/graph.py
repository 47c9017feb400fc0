"""LASER (Ma et al. 2023) as a LangGraph state machine over the WebShop text environment.

States Search, Result and Item each think, then call one of their own functions; every action
moves the run along an edge of LASER's state space, and any state goes to Stopping once the
step budget is spent, where the backup buys the best item from memory.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from graphs.laser import memory as mem
from graphs.laser.context import LaserContext, check_context, resolve_env, resolve_model
from graphs.laser.decide import Decision, act, decide
from graphs.laser.prompts import (
    BACKUP_OPTIONS_TURN,
    DECIDE_TURN,
    DECIDE_TURN_ITEM,
    SYSTEM_PROMPTS,
    state_message,
)
from graphs.laser.query import instruction_query
from graphs.laser.state import LaserState
from graphs.laser.tools import (
    buy_now_tool,
    item_tools,
    option_arguments,
    result_tools,
    search_tools,
)
from graphs.laser.views import (
    BACK_TO_SEARCH,
    NEXT_PAGE,
    PREV_PAGE,
    clip,
    item_view,
    render_item,
    render_results,
    result_choices,
    results_view,
    subpage_text,
)
from open_langgraph.envs.webshop import WebShopEnv

PAGE_STATES = {"search": "Search", "results": "Result", "item": "Item", "sub": "Item"}
MAX_RESULT_PAGES = 5
SNAPSHOT_CHARS = 400
SUMMARY_FIELDS = {"Description": "features_summary", "Features": "features_summary"}


def _context(runtime: Runtime[LaserContext] | None) -> LaserContext:
    ctx = getattr(runtime, "context", None) or LaserContext()
    check_context(ctx)
    return ctx


def _budget_spent(ctx: LaserContext, state: LaserState) -> bool:
    return int(state.get("step_count") or 0) >= min(ctx.backup_after, ctx.max_steps)


def _route(ctx: LaserContext, steps: int, target: str) -> str:
    return "Stopping" if steps >= min(ctx.backup_after, ctx.max_steps) else target


def _call(name: str | None, args: dict[str, Any]) -> str:
    if name is None:
        return "invalid"
    if not args:
        return name
    inner = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return f"{name}({inner})"


def _base(state: LaserState, env: WebShopEnv) -> dict[str, Any]:
    """Fields every node needs, filled in on the first step of an episode."""
    info = dict(state.get("info") or {})
    info.setdefault("invalid_actions", 0)
    info.setdefault("backup_fired", False)
    info.setdefault("done", False)
    return {
        "instruction": state.get("user_instruction") or env.session.instruction,
        "steps": int(state.get("step_count") or 0),
        "info": info,
        "memory": list(state.get("memory_buffer") or []),
    }


def _finish(
    env: WebShopEnv,
    name: str,
    decision: Decision,
    base: dict[str, Any],
    route: str,
    env_actions: list[str],
    **extra: Any,
) -> dict[str, Any]:
    """The node's state update: the step counted, thought and action recorded."""
    step = base["steps"] + 1
    if decision.name is None:
        base["info"]["invalid_actions"] += 1
    action = _call(decision.name, decision.args)
    return {
        "user_instruction": base["instruction"],
        "obs": env.observation,
        "url": env.session.page.url,
        "current_laser_state": name,
        "step_count": step,
        "thought_history": [{"step": step, "state": name, "thought": decision.thought}],
        "action_history": [
            {
                "step": step,
                "state": name,
                "action": action,
                "env_actions": env_actions,
                "valid": decision.name is not None,
                "mapped": decision.mapped,
                **({"raw": decision.raw} if decision.name is None else {}),
            }
        ],
        "memory_buffer": base["memory"],
        "route": route,
        "last_action": action,
        "info": base["info"],
        **extra,
    }


def _resync(state_name: str, env: WebShopEnv, state: LaserState) -> dict[str, Any] | None:
    """When the page is not the one this state expects (a served thread whose session was
    recreated), go to the state of the page actually shown instead of acting blindly."""
    kind = env.session.page.kind
    if kind == "done":
        info = dict(state.get("info") or {}, done=True, reward=env.session.reward)
        return {"route": "Stopping", "info": info}
    expected = PAGE_STATES.get(kind, "Search")
    if expected == state_name and kind != "sub":
        return None
    if kind == "sub":
        env.step(f"click[{PREV_PAGE}]")
    return {"route": expected, "current_laser_state": expected}


def _step(env: WebShopEnv, action: str, log: list[str]) -> tuple[float, bool]:
    log.append(action)
    _, reward, done, _ = env.step(action)
    return reward, done


def search_node(
    state: LaserState, config: RunnableConfig, runtime: Runtime[LaserContext]
) -> dict[str, Any]:
    ctx = _context(runtime)
    env = resolve_env(ctx, config)
    if _budget_spent(ctx, state):
        return {"route": "Stopping", "current_laser_state": "Search"}
    base = _base(state, env)
    model = resolve_model(ctx)
    steps_left = min(ctx.backup_after, ctx.max_steps) - base["steps"]
    system = SYSTEM_PROMPTS["Search"]
    user = state_message(
        "Search",
        base["instruction"],
        "The page shows a search box.",
        list(state.get("action_history") or []),
        base["memory"],
        steps_left,
    )
    searched = any(a.get("state") == "Search" for a in state.get("action_history") or [])
    if ctx.first_query == "instruction" and not searched:
        keywords, max_price = instruction_query(base["instruction"])
        decision = Decision(
            "Search for the product as the instruction describes it; options come later.",
            "Search",
            {"keywords": keywords, "max_price": max_price},
        )
    else:
        decision = decide(model, system, f"{user}\n\n{DECIDE_TURN}", search_tools())
    log: list[str] = []
    target = "Search"
    if decision.name == "Search":
        keywords = " ".join(str(decision.args["keywords"]).split()).lower()
        _step(env, f"search[{keywords}]", log)
        base["info"]["keywords"] = keywords
        base["info"]["max_price"] = decision.args.get("max_price")
        target = "Result"
    route = _route(ctx, base["steps"] + 1, target)
    return _finish(env, "Search", decision, base, route, log)


def result_node(
    state: LaserState, config: RunnableConfig, runtime: Runtime[LaserContext]
) -> dict[str, Any]:
    ctx = _context(runtime)
    env = resolve_env(ctx, config)
    if _budget_spent(ctx, state):
        return {"route": "Stopping", "current_laser_state": "Result"}
    moved = _resync("Result", env, state)
    if moved is not None:
        return moved
    base = _base(state, env)
    model = resolve_model(ctx)
    view = results_view(env.session.page)
    choices = result_choices(view, {c["item_id"] for c in base["memory"]})
    tools = result_tools(view, choices)
    steps_left = min(ctx.backup_after, ctx.max_steps) - base["steps"]
    system = SYSTEM_PROMPTS["Result"]
    user = state_message(
        "Result",
        base["instruction"],
        render_results(view, choices),
        list(state.get("action_history") or []),
        base["memory"],
        steps_left,
    )
    decision = decide(model, system, f"{user}\n\n{DECIDE_TURN}", tools)
    log: list[str] = []
    target, extra = "Result", {}
    step = base["steps"] + 1
    if decision.name == "select_item":
        item_id = decision.args["item_id"]
        listed = next(i for i in view.items if i.item_id == item_id)
        _step(env, f"click[{item_id}]", log)
        base["memory"] = mem.remember(
            base["memory"],
            {
                "item_id": item_id,
                "title": listed.title,
                "price": listed.price,
                "url": env.session.page.url,
                "page": view.page,
                "keywords": base["info"].get("keywords", ""),
                "snapshot_excerpt": clip(render_item(item_view(env)), SNAPSHOT_CHARS),
                "rationale": decision.thought,
                "source_state": "Result",
                "actions_taken": ["select_item"],
            },
            step,
            seen=True,
            capacity=ctx.memory_size,
        )
        base["info"]["last_subpage"] = ""
        base["info"]["page"] = view.page
        target, extra = "Item", {"selected_item": item_id, "item_config": {}}
    elif decision.name == "Next":
        _step(env, f"click[{NEXT_PAGE}]", log)
    elif decision.name == "Back_to_Search":
        _step(env, f"click[{BACK_TO_SEARCH}]", log)
        target = "Search"
    return _finish(env, "Result", decision, base, _route(ctx, step, target), log, **extra)


def item_node(
    state: LaserState, config: RunnableConfig, runtime: Runtime[LaserContext]
) -> dict[str, Any]:
    ctx = _context(runtime)
    env = resolve_env(ctx, config)
    if _budget_spent(ctx, state):
        return {"route": "Stopping", "current_laser_state": "Item"}
    moved = _resync("Item", env, state)
    if moved is not None:
        return moved
    base = _base(state, env)
    model = resolve_model(ctx)
    view = item_view(env)
    # One subpage per visit of an item: after reading, the decision is to buy or go back.
    tools = item_tools(view, may_read=not base["info"].get("last_subpage"))
    steps_left = min(ctx.backup_after, ctx.max_steps) - base["steps"]
    system = SYSTEM_PROMPTS["Item"]
    user = state_message(
        "Item",
        base["instruction"],
        render_item(view, base["info"].get("last_subpage", "")),
        list(state.get("action_history") or []),
        base["memory"],
        steps_left,
    )
    decision = decide(model, system, f"{user}\n\n{DECIDE_TURN_ITEM}", tools)
    step = base["steps"] + 1
    log: list[str] = []
    target, extra = "Item", {}
    update: dict[str, Any] = {"item_id": view.item_id, "rationale": decision.thought}
    update["score"] = (
        decision.score if decision.score is not None else mem.parse_score(decision.thought)
    )
    if decision.name in ("Description", "Features", "Reviews"):
        _step(env, f"click[{decision.name}]", log)
        text = subpage_text(env.session.page)
        _step(env, f"click[{PREV_PAGE}]", log)
        base["info"]["last_subpage"] = f"{decision.name}: {text}"
        update[SUMMARY_FIELDS.get(decision.name, "reviews_summary")] = text
    elif decision.name == "Buy_Now":
        config_ = _buy(env, view_options=option_arguments(view), args=decision.args, log=log)
        base["info"].update(done=True, reward=env.session.reward)
        base["info"]["reward_info"] = env.session.reward_info
        target, extra = "Stopping", {"item_config": config_}
    elif decision.name == "Prev":
        _step(env, f"click[{PREV_PAGE}]", log)
        base["info"]["last_subpage"] = ""
        target = "Result"
    if decision.name is not None:
        update["actions_taken"] = [decision.name]
    base["memory"] = mem.remember(base["memory"], update, step, capacity=ctx.memory_size)
    route = target if target == "Stopping" else _route(ctx, step, target)
    return _finish(env, "Item", decision, base, route, log, **extra)


def _buy(
    env: WebShopEnv, view_options: dict[str, str], args: dict[str, Any], log: list[str]
) -> dict[str, str]:
    """Click each chosen option value, then Buy Now; returns option type -> value."""
    chosen: dict[str, str] = {}
    for arg, option in view_options.items():
        value = args.get(arg)
        if value is None:
            continue
        _step(env, f"click[{value}]", log)
        chosen[option] = str(value)
    _step(env, "click[Buy Now]", log)
    return chosen


def _open_in_results(env: WebShopEnv, item_id: str, log: list[str]) -> bool:
    """Find ``item_id`` on the current results pages (following Next) and open it."""
    for _ in range(MAX_RESULT_PAGES):
        view = results_view(env.session.page)
        if any(i.item_id == item_id for i in view.items):
            _step(env, f"click[{item_id}]", log)
            return True
        if not view.has_next:
            return False
        _step(env, f"click[{NEXT_PAGE}]", log)
    return False


def stopping_node(
    state: LaserState, config: RunnableConfig, runtime: Runtime[LaserContext]
) -> dict[str, Any]:
    """End the episode: nothing to do after a purchase; otherwise the backup buys the best
    remembered item (search its title, open it, choose its options, Buy Now)."""
    ctx = _context(runtime)
    env = resolve_env(ctx, config)
    base = _base(state, env)
    info = base["info"]
    if info.get("done") or env.session.page.kind == "done":
        return {"route": "end", "current_laser_state": "Stopping"}
    info["backup_fired"] = True
    candidate, rule = mem.choose_backup(base["memory"], base["instruction"], info.get("max_price"))
    info["backup_rule"] = rule
    log: list[str] = []
    page = env.session.page
    on_item = page.kind in ("item", "sub")
    if page.kind == "sub":
        _step(env, f"click[{PREV_PAGE}]", log)
    target_id = candidate["item_id"] if candidate else None
    if not (on_item and (target_id is None or env.session.asin == target_id)):
        query = candidate.get("title", "") if candidate else base["instruction"]
        query = " ".join(clip(query, 120).lower().replace("[", " ").replace("]", " ").split())
        _step(env, f"search[{query}]", log)
        opened = target_id is not None and _open_in_results(env, target_id, log)
        if not opened:
            if target_id is not None and env.session.page.kind == "results":
                _step(env, f"click[{BACK_TO_SEARCH}]", log)
                _step(env, f"search[{query}]", log)
            view = results_view(env.session.page)
            if not view.items:
                info["gave_up"] = True
                return _stop_update(env, base, log, None)
            info["backup_rule"] = f"{rule}+first_result"
            _step(env, f"click[{view.items[0].item_id}]", log)
    item = item_view(env)
    choice: dict[str, Any] = {}
    if item.options:
        model = resolve_model(ctx)
        system = SYSTEM_PROMPTS["Item"]
        user = state_message("Item", base["instruction"], render_item(item), [], [], 0)
        decision = act(model, system, user, BACKUP_OPTIONS_TURN, [buy_now_tool(item)])
        choice = decision.args if decision.name == "Buy_Now" else {}
        if decision.name is None:
            info["invalid_actions"] += 1
    config_ = _buy(env, option_arguments(item), choice, log)
    info.update(done=True, reward=env.session.reward, reward_info=env.session.reward_info)
    return _stop_update(env, base, log, config_, selected=item.item_id)


def _stop_update(
    env: WebShopEnv,
    base: dict[str, Any],
    log: list[str],
    item_config: dict[str, str] | None,
    selected: str | None = None,
) -> dict[str, Any]:
    step = base["steps"] + 1
    update: dict[str, Any] = {
        "obs": env.observation,
        "url": env.session.page.url,
        "current_laser_state": "Stopping",
        "step_count": step,
        "action_history": [
            {"step": step, "state": "Stopping", "action": "backup", "env_actions": log}
        ],
        "route": "end",
        "last_action": "backup",
        "info": base["info"],
    }
    if item_config is not None:
        update["item_config"] = item_config
    if selected is not None:
        update["selected_item"] = selected
    return update


def _next(state: LaserState) -> str:
    return state.get("route") or "Stopping"


builder = StateGraph(LaserState, context_schema=LaserContext)
builder.add_node("Search", search_node)
builder.add_node("Result", result_node)
builder.add_node("Item", item_node)
builder.add_node("Stopping", stopping_node)
builder.add_edge(START, "Search")
builder.add_conditional_edges("Search", _next, ["Search", "Result", "Stopping"])
builder.add_conditional_edges("Result", _next, ["Search", "Result", "Item", "Stopping"])
builder.add_conditional_edges("Item", _next, ["Search", "Result", "Item", "Stopping"])
builder.add_edge("Stopping", END)
graph = builder.compile(name="laser")
