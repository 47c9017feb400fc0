"""The six nodes. Only the Intent Classifier, Planner, Re-planner and Final Answer call the model;
the Executor runs tools without one and the Error Handler answers from the recorded reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from graphs.plan_execute import prompts, recovery
from graphs.plan_execute.context import Context, korea_now
from graphs.plan_execute.plan_schema import (
    StructuredReplyError,
    intent_wire_schema,
    plan_wire_schema,
    validate_intent,
    validate_plan,
)
from graphs.plan_execute.state import PlanStep, State, StepRecord
from graphs.plan_execute.structured_reply import ask_for_json
from graphs.plan_execute.tools import ToolsFactory, input_name, tool_manifest
from open_langgraph.models import default_model, load_chat_model

HISTORY_MESSAGES = 10
"""Earlier messages shown to the classifier and the general-conversation answer."""
HISTORY_CHARS = 800
RESULT_CHARS = 3000
"""Per step, in the prompts; the audit trail keeps the full output."""


@lru_cache(maxsize=8)
def _load_model(name: str, max_tokens: int | None) -> BaseChatModel:
    limits = {} if max_tokens is None else {"max_tokens": max_tokens}
    return load_chat_model(name, **limits)


def _transcript(messages: Sequence[AnyMessage]) -> str:
    lines = []
    for message in messages[-HISTORY_MESSAGES:]:
        speaker = "User" if isinstance(message, HumanMessage) else "Assistant"
        lines.append(f"{speaker}: {message.text[:HISTORY_CHARS]}")
    return "\n".join(lines) or "(none)"


def _turn_message(state: State) -> tuple[str, list[HumanMessage]]:
    """The turn's user text, and the message to append when it came only as `input`.

    A human message at the end of `messages` is this turn's (a chat client sent it); otherwise
    `input` is. This way a stale `input` from an earlier turn is never asked again.
    """
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        return messages[-1].text.strip(), []
    given = (state.get("input") or "").strip()
    return given, [HumanMessage(given)] if given else []


def _records_text(records: Sequence[StepRecord]) -> str:
    return "\n".join(
        json.dumps({**r, "output": r["output"][:RESULT_CHARS]}, ensure_ascii=False) for r in records
    )


@dataclass
class Nodes:
    chat_model: BaseChatModel | None
    """Used for every run when given (tests pass scripted models); else the context's model."""
    tools_factory: ToolsFactory

    def model(self, runtime: Runtime[Context]) -> BaseChatModel:
        if self.chat_model is not None:
            return self.chat_model
        context = runtime.context or Context()
        return _load_model(context.model or default_model(), context.max_tokens)

    def tools(self, model: BaseChatModel) -> dict[str, BaseTool]:
        return {tool.name: tool for tool in self.tools_factory(model)}

    # -- nodes --------------------------------------------------------------------------------

    def intent_classifier(
        self, state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        """Starts the turn: resets its fields, then classifies the message (one LLM call)."""
        text, new_messages = _turn_message(state)
        model = self.model(runtime)
        tools = list(self.tools(model).values())
        turn: dict[str, Any] = {
            "input": text,
            "messages": new_messages,
            "current_datetime": korea_now().isoformat(timespec="seconds"),
            "tool_manifest": tool_manifest(tools),
            "available_tools": [t.name for t in tools],
            "intent": "new_question",
            "rewritten_query": text,
            "needs_tool": False,
            "plan": [],
            "next_step": 0,
            "past_steps": [],
            "replan_count": 0,
            "error": None,
            "result": "",
        }
        if not text:
            return {**turn, "error": "the request has no text: send `input` or a user message"}
        earlier = (state.get("messages") or [])[: -1 if not new_messages else None]
        request = [
            SystemMessage(prompts.INTENT_PROMPT.format(**turn)),
            HumanMessage(prompts.INTENT_REQUEST.format(history=_transcript(earlier), input=text)),
        ]
        try:
            data = ask_for_json(model, request, intent_wire_schema(), "intent classifier", config)
            decision = validate_intent(data)
        except StructuredReplyError as exc:
            return {**turn, "error": str(exc)}
        return {
            **turn,
            "intent": decision.intent,
            "rewritten_query": decision.rewritten_query,
            "needs_tool": decision.needs_tool and decision.intent != "chitchat",
        }

    def planner(
        self, state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        """Compiles the request into a validated plan (one LLM call)."""
        available = state["available_tools"]
        request = [
            SystemMessage(prompts.PLANNER_PROMPT.format(**state)),
            HumanMessage(state["rewritten_query"]),
        ]
        try:
            data = ask_for_json(
                self.model(runtime), request, plan_wire_schema(available), "planner", config
            )
            plan = validate_plan(data, available)
        except StructuredReplyError as exc:
            return {"error": str(exc)}
        return {"plan": plan, "next_step": 0}

    def executor(
        self, state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        """Runs the next plan step with no LLM call and appends it to the audit trail."""
        step = state["plan"][state.get("next_step", 0)]
        past_steps = list(state.get("past_steps") or [])
        tools = self.tools(self.model(runtime))
        record = _run_step(step, tools, past_steps, config)
        next_step = state.get("next_step", 0) + (1 if record["status"] == "ok" else 0)
        return {"past_steps": [*past_steps, record], "next_step": next_step}

    def replanner(
        self, state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        """After a failed step: a revised plan that repeats no failure (one LLM call), or a stop
        at the re-plan limit or when no tool is left to try (no LLM call)."""
        context = runtime.context or Context()
        past_steps = state["past_steps"]
        failed = past_steps[-1]
        count = state.get("replan_count", 0)
        if count >= context.max_replans:
            return {
                "error": f"{failed['step']['step_id']} ({failed['step']['tool']}) failed and the "
                f"re-plan limit of {context.max_replans} is reached: {failed['output']}"
            }
        available = state["available_tools"]
        failures = recovery.Failures.of(past_steps)
        usable = failures.usable(available)
        if not usable:
            return {"error": f"{recovery.describe(failed)}, and no other tool is left to try"}
        model = self.model(runtime)
        manifest = tool_manifest([t for t in self.tools(model).values() if t.name in usable])
        request = [
            SystemMessage(prompts.REPLANNER_PROMPT.format(**{**state, "tool_manifest": manifest})),
            HumanMessage(
                prompts.REPLANNER_REQUEST.format(
                    query=state["rewritten_query"],
                    plan=json.dumps(state["plan"], ensure_ascii=False),
                    past_steps=_records_text(past_steps),
                    failed="\n".join(f"- {recovery.describe(r)}" for r in failures.calls.values()),
                )
            ),
        ]
        outputs = {r["step"]["step_id"]: r["output"] for r in past_steps if r["status"] == "ok"}
        try:
            # The model may only choose usable tools; a known tool it names anyway (a model
            # without a grammar) is replaced below rather than refused as unknown.
            data = ask_for_json(model, request, plan_wire_schema(usable), "re-planner", config)
            plan = validate_plan(data, available, done_steps=list(outputs), who="re-planner")
            plan = recovery.avoid(plan, failures, state["rewritten_query"], usable, outputs)
        except (StructuredReplyError, recovery.NoDifferentPlan) as exc:
            return {"error": str(exc), "replan_count": count + 1}
        return {"plan": plan, "next_step": 0, "replan_count": count + 1}

    def final_answer(
        self, state: State, runtime: Runtime[Context], config: RunnableConfig
    ) -> dict[str, Any]:
        """The reply (one LLM call): from the tool results when tools ran, else conversational."""
        results = [r for r in state.get("past_steps") or [] if r["status"] == "ok"]
        if results:
            request: list[AnyMessage] = [
                SystemMessage(prompts.RESULTS_PROMPT.format(**state)),
                HumanMessage(
                    prompts.RESULTS_REQUEST.format(
                        query=state["rewritten_query"], results=_records_text(results)
                    )
                ),
            ]
        else:
            history = list(state.get("messages") or [])[-HISTORY_MESSAGES:]
            request = [SystemMessage(prompts.GENERAL_PROMPT.format(**state)), *history]
        reply = self.model(runtime).invoke(request, config)
        # Said by the graph, not left to the model: which tool's answer this is not.
        note = recovery.fallback_note(state.get("past_steps") or []) if results else None
        if note is not None:
            reply = reply.model_copy(update={"content": f"{reply.text}\n\n{note}"})
        return {"result": reply.text, "messages": [reply]}

    def error_handler(self, state: State) -> dict[str, Any]:
        """Ends a turn that broke a rule, saying which; no model call, so nothing is made up."""
        reason = state.get("error") or "the run stopped for an unknown reason"
        result = f"I stopped without answering because {reason}."
        return {"result": result, "messages": [AIMessage(content=result)]}


def _run_step(
    step: PlanStep,
    tools: dict[str, BaseTool],
    past_steps: Sequence[StepRecord],
    config: RunnableConfig,
) -> StepRecord:
    """One tool call; any failure becomes an `error` record for the Re-planner to read."""
    executed: PlanStep = dict(step)  # type: ignore[assignment]
    if "input_from" in step:
        outputs = {r["step"]["step_id"]: r["output"] for r in past_steps if r["status"] == "ok"}
        if step["input_from"] not in outputs:
            missing = f"{step['input_from']} has no successful output to take as input"
            return {"step": executed, "status": "error", "output": missing}
        executed["input"] = outputs[step["input_from"]]
    tool = tools.get(step["tool"])
    if tool is None:
        return {"step": executed, "status": "error", "output": f"no tool {step['tool']!r}"}
    # The Re-planner already keeps failures out of a plan; an `input_from` resolved only now
    # can still land on one, and running it would fail the same way.
    repeated = recovery.Failures.of(past_steps).blocking(step["tool"], executed["input"])
    if repeated is not None:
        output = f"not run, as it would repeat {recovery.describe(repeated)}"
        return {"step": executed, "status": "error", "output": output}
    try:
        output = tool.invoke({input_name(tool): executed["input"]}, config)
    except Exception as exc:  # a tool failure is data for the Re-planner, not a crash
        record: StepRecord = {
            "step": executed,
            "status": "error",
            "output": f"{type(exc).__name__}: {exc}",
        }
        if recovery.is_unreachable(exc):
            record["unreachable"] = True
        return record
    return {"step": executed, "status": "ok", "output": str(output)}
