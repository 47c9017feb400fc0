"""One model turn of a tool-calling agent, with the guards a small model needs.

Shared by the agents that let a model call tools in a loop (react_agent and its HITL and
subgraph variants), so the rules live in one place:

- **Repeat guard.** A call identical to one already made in the current turn (same tool, same
  arguments, since the last human message) is not run again: the model is shown the earlier
  result and asked to answer from it. Without it the 1.5B model searched "LangGraph" twelve
  times in one turn.
- **No answer that tells the user to use a tool.** When the model answers before calling any
  tool this turn and its answer names one of the tools ("use the calculator", "you can search
  for..."), the turn is decided again with a tool call required.

The reply format itself (a call, or an answer that cannot contain call JSON) is the grammar's
job for embedded models (`models/local/grammar.py`); hosted models keep their native tool use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool

#: Ends an answer the model's token limit cut off.
CUT_MARKER = " … [cut off: the answer reached the model's token limit]"

ANSWER_FROM_EARLIER_RESULT = (
    "You already called {name} with these arguments in this turn, and its result is above. "
    "Do not call it again: answer the question now from the results you have."
)


NEVER_RAN = (
    "This tool call never ran: the run stopped first (a person ended the review, or the run "
    "was cancelled). Do not assume it ran."
)


def answer_unanswered_calls(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """`messages` with a `NEVER_RAN` error result right after each tool call that has none.

    Only the model's view changes; the thread keeps what really happened.
    """
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    shown: list[BaseMessage] = []
    for message in messages:
        shown.append(message)
        if isinstance(message, AIMessage):
            shown += [
                ToolMessage(NEVER_RAN, tool_call_id=c["id"], name=c["name"], status="error")
                for c in message.tool_calls
                if c["id"] and c["id"] not in answered
            ]
    return shown


def current_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the last human message: what the agent did for this question."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index + 1 :])
    return list(messages)


def latest_question(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message: what the person asks now ("" without one)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return ""


def call_key(name: str, args: Any) -> str:
    """Identity of a call for the repeat guard: tool name plus arguments, key order ignored."""
    return f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"


def earlier_result(messages: Sequence[BaseMessage], call: ToolCall) -> ToolMessage | None:
    """The result of an identical call made earlier in the current turn, if there was one."""
    turn = current_turn(messages)
    wanted = call_key(call["name"], call["args"])
    ids = {
        c["id"]
        for m in turn
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if call_key(c["name"], c["args"]) == wanted
    }
    for message in turn:
        if isinstance(message, ToolMessage) and message.tool_call_id in ids:
            return message
    return None


def called_a_tool(messages: Sequence[BaseMessage]) -> bool:
    """Whether the current turn already holds a tool result."""
    return any(isinstance(m, ToolMessage) for m in current_turn(messages))


def names_a_tool(answer: str, tool_names: Sequence[str]) -> bool:
    """Whether an answer refers to one of the tools by name (`get_current_time` also matches
    "get current time"): a sign it tells the user to do what the agent should have done."""
    for name in tool_names:
        spelled = r"[\s_]+".join(re.escape(part) for part in name.split("_") if part)
        if re.search(rf"(?<![\w]){spelled}(?![\w])", answer, re.IGNORECASE):
            return True
    return False


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)


async def decide_turn(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    tools: Sequence[BaseTool],
    config: RunnableConfig | None = None,
) -> AIMessage:
    """The model's next move: tool calls to run, or the answer.

    Args:
        model: the chat model (unbound); tools are bound here.
        messages: the full prompt, system message first.
        tools: the tools the model may call.
        config: passed to the model call (callbacks, tags, streaming).

    Returns:
        An AIMessage whose `tool_calls` are all new in this turn, or an answer without calls.
    """
    names = [t.name for t in tools]
    reply = _as_ai(await model.bind_tools(tools).ainvoke(list(messages), config))
    if not reply.tool_calls and not called_a_tool(messages) and names_a_tool(_text(reply), names):
        # An answer like "use the calculator" before any tool ran: make the model call one.
        forced = _as_ai(await model.bind_tools(tools, tool_choice="any").ainvoke(messages, config))
        if forced.tool_calls:
            reply = forced
    if not reply.tool_calls:
        return marked_if_cut(reply)
    fresh = [c for c in reply.tool_calls if earlier_result(messages, c) is None]
    if fresh:
        return reply if len(fresh) == len(reply.tool_calls) else _with_calls(reply, fresh)
    # Every call repeats an earlier one: show the model that result and ask for the answer.
    repeated = reply.tool_calls[0]
    note = ANSWER_FROM_EARLIER_RESULT.format(name=repeated["name"])
    answer = await answer_with_note(model, tools, messages, note, config)
    text = _text(answer).strip()
    if not text:  # still no answer: the user at least gets what the tool found
        earlier = earlier_result(messages, repeated)
        text = f"Here is what {repeated['name']} found: {_text(earlier) if earlier else ''}"
    return marked_if_cut(
        AIMessage(
            content=text,
            id=answer.id or reply.id,
            response_metadata={**answer.response_metadata, "repeated_call": repeated["name"]},
            usage_metadata=answer.usage_metadata,
        )
    )


def marked_if_cut(answer: AIMessage) -> AIMessage:
    """An answer the model stopped writing at its token limit ends mid-sentence; the reader
    is told so rather than left to guess (`finish_reason` "length", as OpenAI and the
    embedded models report it)."""
    if answer.response_metadata.get("finish_reason") != "length":
        return answer
    text = _text(answer).rstrip()
    if not text or text.endswith(CUT_MARKER):
        return answer
    return answer.model_copy(update={"content": f"{text}{CUT_MARKER}"})


async def answer_with_note(
    model: BaseChatModel,
    tools: Sequence[BaseTool],
    messages: Sequence[BaseMessage],
    note: str,
    config: RunnableConfig | None = None,
) -> AIMessage:
    """The model's answer (no tool call) to `messages` followed by the instruction `note`."""
    reply = await _answering(model, tools).ainvoke([*messages, HumanMessage(note)], config)
    return _as_ai(reply)


def _answering(model: BaseChatModel, tools: Sequence[BaseTool]) -> Runnable[Any, BaseMessage]:
    """The model made to answer. An embedded model keeps its tools described and only its
    grammar changes (`answer_choice`), so the prompt it has cached still matches; other
    models are asked without tools."""
    choice = getattr(type(model), "answer_choice", None)
    if isinstance(choice, str):
        return model.bind_tools(tools, tool_choice=choice)
    return model


def _as_ai(message: BaseMessage) -> AIMessage:
    if isinstance(message, AIMessage):
        return message
    return AIMessage(content=message.content, id=message.id)


def _with_calls(reply: AIMessage, calls: list[ToolCall]) -> AIMessage:
    return reply.model_copy(update={"tool_calls": calls, "tool_call_chunks": []})
