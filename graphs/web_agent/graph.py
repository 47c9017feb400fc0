"""The browser automation agent: clarify, plan, human approval, act through Playwright MCP,
report.

    START -> clarify -(question)-> clarify ... -> planning -> human_approval
    human_approval -(yes)-> agent <-> tools -> report -> END
                   -(no + feedback)-> planning
                   -(quit)-> END

Every question to the person is an `interrupt()`, so the run ends `interrupted` and the answer
comes back as `Command(resume=...)` from any client (SDK, `olg run`, a UI). No node calls the
model before an `interrupt()` in the same visit: a resumed node runs again from its start, and
the model call would otherwise be repeated. Clarify therefore records the question it decided
to ask and asks it on its next visit.

The browser phase (agent <-> tools -> report) contains no interrupt, so it runs within the one
run that resumes the approval, and one MCP session per run suffices. The session is opened by
the first browser call and closed by Report, or by the node that fails or is cancelled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from graphs.web_agent import prompts
from graphs.web_agent.approval import read_approval, read_yes_no
from graphs.web_agent.context import WebAgentContext, resolve_context, resolve_model
from graphs.web_agent.context_budget import cut_text, estimate_tokens
from graphs.web_agent.history import actions_block
from graphs.web_agent.mcp_session import SESSIONS, BrowserSession
from graphs.web_agent.repeats import asks_something_new, repeated_action
from graphs.web_agent.replies import Answer, Clarification, Plan
from graphs.web_agent.site_policy import SitePolicy, named_urls, origin_of, site_policy
from graphs.web_agent.snapshots import compact, elements, split_snapshot
from graphs.web_agent.state import InputState, WebAgentState
from graphs.web_agent.tools import (
    PAGE_CHANGING,
    agent_tools,
    check_arguments,
    check_server_tools,
    decode_tools,
)
from open_langgraph.models.local import LocalChatModel

REPLY_TOKENS = 400
"""Kept free in the context window for the Agent's reply."""
STUCK_AFTER_REPEATS = 2
"""Consecutive decisions refused as repeats after which the browser phase stops."""
ACTIONS_TOKENS = 300
"""Kept beside the page in the Agent's last message for the newest of its actions."""

Node = Callable[..., Awaitable[Any]]


def session_key(config: RunnableConfig) -> str:
    """The run's key in the session registry: the server's run id, else the thread id."""
    configurable = config.get("configurable") or {}
    key = configurable.get("run_id") or configurable.get("thread_id") or config.get("run_id")
    return str(key or "local")


def task_of(state: WebAgentState) -> str:
    task = (state.get("task") or "").strip()
    if task:
        return task
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) and str(message.content).strip():
            return str(message.content).strip()
    raise ValueError('web_agent needs a task: send {"task": "..."} or a human message')


class WebAgent:
    """The nodes, sharing how they find the run's model."""

    def __init__(self, model: BaseChatModel | None = None) -> None:
        self.default_model = model

    def _setup(self, runtime: Runtime[Any]) -> tuple[WebAgentContext, BaseChatModel]:
        ctx = resolve_context(runtime.context)
        if ctx.chat_model is None and self.default_model is not None:
            return ctx, self.default_model
        return ctx, resolve_model(ctx)

    # -- clarify and plan --------------------------------------------------------------------

    async def clarify(self, state: WebAgentState, runtime: Runtime[Any]) -> Command[Any]:
        """Ask the question decided on the last visit (if any), then decide whether to ask
        another one or to plan."""
        ctx, model = self._setup(runtime)
        task = task_of(state)
        clarifications = list(state.get("clarifications") or [])
        update: dict[str, Any] = {"task": task}
        question = state.get("pending_question")
        if question:
            answer = interrupt(
                {
                    "type": "clarification",
                    "question": question,
                    "message_to_user": state.get("message_to_user") or "",
                }
            )
            clarifications.append({"question": question, "answer": _text_of(answer)})
            update.update(clarifications=clarifications, pending_question=None)
        if len(clarifications) >= ctx.max_clarifications:
            return Command(goto="planning", update=update)
        prompt = prompts.CLARIFY.format(task=task, answers=prompts.answers_block(clarifications))
        reply = await model.with_structured_output(Clarification).ainvoke([HumanMessage(prompt)])
        reply = _as(Clarification, reply)
        if reply.need_clarification and asks_something_new(reply.question, task, clarifications):
            update.update(
                pending_question=reply.question.strip(), message_to_user=reply.message_to_user
            )
            return Command(goto="clarify", update=update)
        return Command(goto="planning", update=update)

    async def planning(self, state: WebAgentState, runtime: Runtime[Any]) -> dict[str, Any]:
        _, model = self._setup(runtime)
        feedback = state.get("plan_feedback")
        feedback_block = ""
        if feedback and state.get("plan"):
            previous = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(state["plan"]))
            feedback_block = (
                f"The person rejected this plan:\n{previous}\nTheir feedback: {feedback}\n"
            )
        prompt = prompts.PLAN.format(
            task=task_of(state),
            answers=prompts.answers_block(state.get("clarifications") or []),
            feedback=feedback_block,
        )
        reply = _as(Plan, await model.with_structured_output(Plan).ainvoke([HumanMessage(prompt)]))
        steps = [s.strip() for s in reply.steps if s.strip()]
        if not steps:
            raise ValueError("the planner returned an empty plan")
        return {"plan": steps}

    def human_approval(self, state: WebAgentState) -> Command[Any]:
        """Show the plan; yes runs it, no re-plans with the feedback, anything else asks
        whether to quit (yes ends the run, no shows the plan again)."""
        plan = state["plan"]
        while True:
            answer = interrupt(
                {
                    "type": "plan_approval",
                    "plan": plan,
                    "question": "Run this plan? Answer yes, or no with what to change.",
                }
            )
            verdict = read_approval(answer)
            if verdict.kind == "yes":
                return Command(
                    goto="agent",
                    update={
                        "plan_feedback": None,
                        "finished": None,
                        "agent_steps": 0,
                        "last_error": None,
                    },
                )
            if verdict.kind == "no":
                feedback = verdict.feedback or "The person rejected the plan without a reason."
                return Command(goto="planning", update={"plan_feedback": feedback})
            while True:
                confirm = read_yes_no(
                    interrupt({"type": "confirm_quit", "question": "Quit without running it?"})
                )
                if confirm is True:
                    return Command(
                        goto=END,
                        update={
                            "outcome": "quit",
                            "workflow_summary": "The person quit before the plan ran; "
                            "nothing was done in the browser.",
                            "final_answer": None,
                        },
                    )
                if confirm is False:
                    break

    # -- the browser phase -------------------------------------------------------------------

    async def agent(self, state: WebAgentState, runtime: Runtime[Any]) -> dict[str, Any]:
        """Decide the next tool call. The prompt is the stable part first (tools, rules, task,
        plan), then one message with what changes: the actions so far and the current page.
        Each call re-reads only that message instead of the whole prompt."""
        steps = state.get("agent_steps", 0) + 1
        opening = open_named_site(state)
        if opening is not None:
            return {"messages": [opening], "agent_steps": steps}
        ctx, model = self._setup(runtime)
        task = task_of(state)
        snapshot = state.get("last_snapshot") or ""
        error = state.get("last_error")
        system = SystemMessage(
            prompts.AGENT.format(
                task=task,
                answers=prompts.answers_block(state.get("clarifications") or []),
                plan=prompts.plan_block(state.get("plan") or []),
            )
        )
        records = state.get("action_history") or []
        fields = {
            "task": task,
            "actions": "",
            "extracted": prompts.extracted_block(state.get("extracted_data") or {}),
            "error": f"Last action failed: {error}\n" if error else "",
            "url": f" ({state['snapshot_url']})" if state.get("snapshot_url") else "",
        }
        budget = ctx.context_tokens - REPLY_TOKENS
        offered = agent_tools(snapshot)
        fixed = estimate_tokens(str(system.content)) + estimate_tokens(str(offered))
        # Findings stay in the state; only the prompt shows the newest that fit.
        findings = dict(state.get("extracted_data") or {})
        frame = prompts.PAGE.format(**fields, snapshot="")
        while findings and fixed + estimate_tokens(frame) + 300 > budget:
            findings.pop(next(iter(findings)))
            hidden = len(state.get("extracted_data") or {}) - len(findings)
            fields["extracted"] = prompts.extracted_block(
                f"{findings} ({hidden} older findings not shown)"
            )
            frame = prompts.PAGE.format(**fields, snapshot="")
        room = max(200, budget - fixed - estimate_tokens(frame))
        # The page first, then as many of the newest actions as fit beside it.
        shown = cut_text(snapshot, max(100, room - ACTIONS_TOKENS)) if snapshot else prompts.NO_PAGE
        fields["actions"] = actions_block(records, max(50, room - estimate_tokens(shown)))
        page = HumanMessage(prompts.PAGE.format(**fields, snapshot=shown))
        if isinstance(model, LocalChatModel) and snapshot:
            bound = model.bind_tools(
                offered, tool_choice="any", decode_tools=decode_tools(offered, snapshot)
            )
        else:
            bound = model.bind_tools(offered, tool_choice="any")
        reply = await bound.ainvoke([system, page])
        if isinstance(reply, AIMessage) and len(reply.tool_calls) > 1:
            reply = reply.model_copy(update={"tool_calls": reply.tool_calls[:1]})
        return {"messages": [reply], "agent_steps": steps}

    async def tools(
        self, state: WebAgentState, runtime: Runtime[Any], config: RunnableConfig
    ) -> dict[str, Any]:
        ctx, _ = self._setup(runtime)
        message = state["messages"][-1]
        assert isinstance(message, AIMessage) and message.tool_calls
        page = state.get("snapshot_url") or ""
        update: dict[str, Any] = {"last_error": None}
        results: list[BaseMessage] = []
        records: list[dict[str, Any]] = []
        policy = site_policy(
            ctx.allowed_origins,
            task_of(state),
            state.get("clarifications") or [],
            state.get("action_history") or [],
        )
        for call in message.tool_calls:
            name, args = call["name"], call["args"]
            record: dict[str, Any] = {"page": page, "tool": name, "args": args}
            label = None
            if isinstance(args, dict) and "target" in args:
                label = elements(state.get("last_snapshot") or "").get(str(args["target"]))
                if label:
                    record["label"] = label
            problem = check_arguments(name, args)
            earlier = None
            if problem is None:
                history = state.get("action_history") or []
                earlier = repeated_action(history, page, name, args, label)
            if problem is None and earlier is not None:
                problem = repeat_refusal(earlier)
                record["repeat"] = True
            if problem is None and name == "browser_navigate":
                problem = policy.refusal(str(args["url"]))  # before the browser moves
            if problem is not None:
                text, ok = problem, False
            elif name == "finish":
                text, ok = "Finished.", True
                update["finished"] = str(args["result"])
            elif name == "extract_data":
                update.setdefault("extracted_data", {})[args["name"]] = args["value"]
                text, ok = f"Stored {args['name']}.", True
            else:
                session = await SESSIONS.get(session_key(config), ctx.browser_options())
                text, ok = await self._browse(session, name, args, ctx, policy, update, record)
            if not ok:
                update["last_error"] = text
            record.update(ok=ok, result=text[:300])
            records.append(record)
            results.append(
                ToolMessage(
                    content=text,
                    tool_call_id=call["id"],
                    name=name,
                    status="success" if ok else "error",
                )
            )
        update["messages"] = results
        update["action_history"] = records
        return update

    async def _browse(
        self,
        session: BrowserSession,
        name: str,
        args: dict[str, Any],
        ctx: WebAgentContext,
        policy: SitePolicy,
        update: dict[str, Any],
        record: dict[str, Any],
    ) -> tuple[str, bool]:
        """Run one browser tool; after anything that may change the page, read it again.
        A page outside the allowed sites is left at once and never shown to the model."""
        if session.calls == 0:
            check_server_tools(session.tool_names)
        ok = True
        summary = "Snapshot taken; it is shown as the current page."
        if name != "browser_snapshot":
            text, failed = await session.call(name, args)
            ok = not failed
            summary = _summarise(text, failed)
        if name == "browser_snapshot" or name in PAGE_CHANGING:
            text, failed = await session.call("browser_snapshot", {})
            # Only web pages count: a browser error page (chrome-error://) is not a site.
            left = split_snapshot(text)[0] if not failed else ""
            refusal = policy.refusal(left) if origin_of(left) else None
            if refusal is not None:
                await session.call("browser_navigate_back", {})
                text, failed = await session.call("browser_snapshot", {})
                ok, summary = False, f"{name} led off the allowed sites and was undone: {refusal}"
            if not failed:
                url, raw = split_snapshot(text)
                snapshot = compact(raw)
                update["last_snapshot"] = snapshot[: ctx.snapshot_chars]
                update["snapshot_url"] = url
                record["snapshot_tokens_raw"] = estimate_tokens(raw)
                record["snapshot_tokens"] = estimate_tokens(snapshot)
                if ok and url:
                    summary = f"{summary} Page: {url}"
        return summary, ok

    async def report(
        self, state: WebAgentState, runtime: Runtime[Any], config: RunnableConfig
    ) -> dict[str, Any]:
        """Close the browser, then say what was done and, from the extracted data only, what
        was found."""
        await SESSIONS.close(session_key(config))
        _, model = self._setup(runtime)
        ctx = resolve_context(runtime.context)
        if state.get("finished") is not None:
            outcome = "completed"
        elif state.get("agent_steps", 0) >= ctx.max_steps:
            outcome = "out_of_steps"
        else:  # the model answered without a tool call, or repeated refused actions
            outcome = "stopped"
        summary = _workflow_summary(state, outcome)
        extracted = state.get("extracted_data") or {}
        final_answer = None
        if extracted:
            prompt = prompts.ANSWER.format(task=task_of(state), extracted=extracted)
            reply = await model.with_structured_output(Answer).ainvoke([HumanMessage(prompt)])
            final_answer = _as(Answer, reply).final_answer.strip() or None
        text = summary if final_answer is None else f"{final_answer}\n\n{summary}"
        return {
            "outcome": outcome,
            "workflow_summary": summary,
            "final_answer": final_answer,
            "messages": [AIMessage(text)],
        }


def repeat_refusal(earlier: Mapping[str, Any]) -> str:
    """What the model is told instead of running an action a second time on a page."""
    if earlier.get("repeat"):
        return "Refused again as a repeat. Do something else, or call finish."
    result = earlier.get("result") or "done"
    if earlier.get("ok"):
        return (
            f"Already done on this page, with the result: {result}. Do not repeat it: do the "
            "next thing, or call finish if the task is done."
        )
    return (
        f"This failed on this page before: {result}. Do not try it again: use a ref shown on "
        "the current page, or another action."
    )


def open_named_site(state: WebAgentState) -> AIMessage | None:
    """The first browser action when it needs no decision: open the page the person named.

    Before any page is open, a task that names a URL (or an answer that gave one) can only
    start there; the model is asked from the first page on, which saves a call and shows it a
    page from its first decision. None when a browser action was taken or no URL was named."""
    history = state.get("action_history") or []
    if state.get("last_snapshot") or any(r.get("tool", "").startswith("browser_") for r in history):
        return None
    answers = [str(c.get("answer") or "") for c in state.get("clarifications") or []]
    urls = named_urls([*answers, task_of(state)])
    if not urls:
        return None
    call = {"name": "browser_navigate", "args": {"url": urls[0]}, "id": "open_named_site"}
    return AIMessage(content="", tool_calls=[call])


def _closing_on_failure(node: Node) -> Node:
    """Wrap a browser-phase node: if it fails or its run is cancelled, the run's browser is
    closed before the error goes on."""

    async def guarded(state: WebAgentState, runtime: Runtime[Any], config: RunnableConfig) -> Any:
        try:
            return await node(state, runtime, config)
        except GraphBubbleUp:
            raise
        except BaseException:
            await SESSIONS.close(session_key(config))
            raise

    guarded.__name__ = node.__name__
    guarded.__doc__ = node.__doc__
    return guarded


def route_after_agent(state: WebAgentState, runtime: Runtime[Any]) -> str:
    message = state["messages"][-1]
    if isinstance(message, AIMessage) and message.tool_calls:
        return "tools"
    return "report"


def route_after_tools(state: WebAgentState, runtime: Runtime[Any]) -> str:
    ctx = resolve_context(runtime.context)
    if state.get("finished") is not None:
        return "report"
    if state.get("agent_steps", 0) >= ctx.max_steps:
        return "report"
    if stuck_repeating(state.get("action_history") or []):
        return "report"
    return "agent"


def stuck_repeating(history: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the Agent's last decisions were all refused as repeats. Told that an action was
    done already, the 1.5B model asked for it again until its steps ran out (nine times after a
    purchase), so a second refusal in a row stops the run ("stopped") instead."""
    last = history[-STUCK_AFTER_REPEATS:]
    return len(last) == STUCK_AFTER_REPEATS and all(r.get("repeat") for r in last)


def _text_of(answer: Any) -> str:
    if isinstance(answer, dict):
        for key in ("answer", "text", "content"):
            if isinstance(answer.get(key), str):
                return answer[key].strip()
    return str(answer).strip()


def _as(schema: type, reply: Any) -> Any:
    return reply if isinstance(reply, schema) else schema.model_validate(reply)


def _summarise(text: str, failed: bool) -> str:
    """A short tool result for the history: the error line, or that it worked."""
    if failed or text.startswith("### Error"):
        lines = [line for line in text.splitlines() if line and not line.startswith("###")]
        return (lines[0] if lines else "the browser reported an error")[:300]
    return "Done."


def _workflow_summary(state: WebAgentState, outcome: str) -> str:
    lines = [f"Outcome: {outcome}."]
    if state.get("finished"):
        lines.append(f"The agent's own account: {state['finished']}")
    actions = state.get("action_history") or []
    if actions:
        lines.append(f"Actions ({len(actions)}):")
        for i, a in enumerate(actions, 1):
            args = ", ".join(f"{k}={v}" for k, v in (a.get("args") or {}).items())
            status = "ok" if a.get("ok") else f"failed: {a.get('result', '')}"
            lines.append(f"{i}. {a['tool']}({args}) - {status}")
    extracted = state.get("extracted_data") or {}
    if extracted:
        lines.append("Found: " + "; ".join(f"{k}: {v}" for k, v in extracted.items()))
    return "\n".join(lines)


def build_graph(model: BaseChatModel | None = None, **compile_kwargs: Any) -> Any:
    """The compiled agent; `model` replaces the run's model when the context injects none."""
    nodes = WebAgent(model)
    builder = StateGraph(WebAgentState, input_schema=InputState, context_schema=WebAgentContext)
    builder.add_node("clarify", nodes.clarify, destinations=("clarify", "planning"))
    builder.add_node("planning", nodes.planning)
    builder.add_node(
        "human_approval", nodes.human_approval, destinations=("agent", "planning", END)
    )
    builder.add_node("agent", _closing_on_failure(_without_config(nodes.agent)))
    builder.add_node("tools", _closing_on_failure(nodes.tools))
    builder.add_node("report", nodes.report)
    builder.add_edge(START, "clarify")
    builder.add_edge("planning", "human_approval")
    builder.add_conditional_edges("agent", route_after_agent, ["tools", "report"])
    builder.add_conditional_edges("tools", route_after_tools, ["agent", "report"])
    builder.add_edge("report", END)
    return builder.compile(name="web_agent", **compile_kwargs)


def _without_config(node: Node) -> Node:
    async def call(state: WebAgentState, runtime: Runtime[Any], config: RunnableConfig) -> Any:
        return await node(state, runtime)

    call.__name__ = node.__name__
    return call


graph = build_graph()
