"""The project's `react_agent` and `react_agent_hitl` graphs, and two `create_agent` graphs gated
by LangChain's `HumanInTheLoopMiddleware` (`hitl_batched`, `hitl_per_call`), on a scripted chat
model, for a live `olg serve` under the UI and `olg run` tests: deterministic replies, streamed
a word at a time with a pause, so the page can be seen filling in token by token.

The script reads the conversation: "calculate EXPR" asks for the calculator, "delete PATH" for
`delete_file`, and parts joined by " and " ask for several calls at once; the tool results are
read back (the error, when the tool failed or a person rejected the call); "fail, please" makes
the model raise; anything else gets a plain answer of a dozen words.

Each reply reports its tokens as hosted models do (`usage_metadata`), counted in words: the
prompt's as input, all but the last message's as cached (a prefix the model read before), the
reply's as output; the run trace shows them.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool

from graphs.react_agent.tools import calculator

#: Pause before each streamed word: long enough for a browser to paint between tokens.
TOKEN_DELAY = 0.12


def counting(n: int) -> str:
    """The reply to "count to `n`": every number once, in order, so that a lost or repeated
    token shows."""
    return "Counting: " + " ".join(str(i) for i in range(1, n + 1)) + "."


#: The tool each request word asks for, and the argument the rest of the request is.
REQUESTS = {"calculate": ("calculator", "expression"), "delete": ("delete_file", "path")}


def _requested_calls(text: str) -> list[dict[str, Any]] | None:
    """The tool calls `text` asks for ("calculate 6 * 7 and delete notes.txt"), or None when
    any part of it is not a request."""
    calls = []
    for part in text.split(" and "):
        word, _, rest = part.strip().partition(" ")
        if word.lower() not in REQUESTS or not rest.strip():
            return None
        name, argument = REQUESTS[word.lower()]
        calls.append(
            {
                "name": name,
                "args": {argument: rest.strip()},
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "tool_call",
            }
        )
    return calls


def _read_results(results: Sequence[ToolMessage]) -> str:
    """The model's reading of the tool results of its last turn. A result a reviewer's edit
    produced carries the middleware's notice first; the value follows "Tool response:"."""
    phrases = []
    for result in results:
        text = str(result.content).rsplit("Tool response:", 1)[-1].strip()
        if result.status == "error":
            phrases.append(f"The {result.name} call failed: {text}")
        else:
            phrases.append(f"The {result.name} says {text}.")
    if all(result.status != "error" for result in results):
        phrases.append("That is the answer.")
    return " ".join(phrases)


def scripted_reply(messages: Sequence[BaseMessage]) -> AIMessage:
    """What the script answers to a conversation ending in `messages[-1]`."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        turn: list[ToolMessage] = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                # Read in the order of the calls, however the results arrived.
                order = [c["id"] for c in getattr(message, "tool_calls", [])]
                turn.sort(
                    key=lambda m: order.index(m.tool_call_id) if m.tool_call_id in order else 0
                )
                break
            turn.insert(0, message)
        return AIMessage(content=_read_results(turn))
    text = last.text
    if text == "fail, please":
        raise RuntimeError("the scripted model was asked to fail")
    if count := re.fullmatch(r"count to (\d+)", text):
        return AIMessage(content=counting(int(count.group(1))))
    if calls := _requested_calls(text):
        return AIMessage(content="", tool_calls=calls)
    return AIMessage(
        content=f"You asked: {text}. This answer arrives one word at a time, as tokens do."
    )


def _words(message: BaseMessage) -> int:
    return len(message.text.split()) + len(getattr(message, "tool_calls", None) or [])


def scripted_usage(messages: Sequence[BaseMessage], reply: AIMessage) -> dict[str, Any]:
    """The tokens `reply` to `messages` reports, counted in words."""
    prompt = sum(_words(m) for m in messages)
    output = _words(reply)
    return {
        "input_tokens": prompt,
        "output_tokens": output,
        "total_tokens": prompt + output,
        "input_token_details": {"cache_read": prompt - _words(messages[-1])},
    }


class ScriptedStreamingModel(BaseChatModel):
    """A tool-calling chat model whose replies come from `scripted_reply`."""

    @property
    def _llm_type(self) -> str:
        return "scripted-ui"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedStreamingModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = scripted_reply(messages)
        reply.usage_metadata = scripted_usage(messages, reply)  # type: ignore[assignment]
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = scripted_reply(messages)
        usage: Any = scripted_usage(messages, reply)
        if reply.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(reply.tool_calls)
            ]
            await asyncio.sleep(TOKEN_DELAY)
            yield ChatGenerationChunk(
                message=AIMessageChunk(content="", tool_call_chunks=chunks, usage_metadata=usage)
            )
            return
        words = str(reply.content).split(" ")
        for i, word in enumerate(words):
            await asyncio.sleep(TOKEN_DELAY)
            last = i == len(words) - 1
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content=word if i == 0 else f" {word}", usage_metadata=usage if last else None
                )
            )


def _load(name: str | None = None, **_: Any) -> ScriptedStreamingModel:
    return ScriptedStreamingModel()


# Both agents' RunSettings middleware (graphs/react_agent/graph.py::run_model) loads the
# model through this module global; the package re-exports `graph`, hiding the module.
_react = importlib.import_module("graphs.react_agent.graph")
_react.load_chat_model = _load  # type: ignore[attr-defined]
react_agent = _react.graph
react_agent_hitl = importlib.import_module("graphs.react_agent_hitl.graph").graph


@tool
def delete_file(path: str) -> str:
    """Delete a file (here only pretended)."""
    return f"deleted {path}"


#: Every decision for the calculator, only approve or reject for deleting: the page and
#: `olg run` must offer each action its own decisions.
INTERRUPT_ON: dict[str, Any] = {
    "calculator": True,
    "delete_file": {"allowed_decisions": ["approve", "reject"]},
}


def _middleware_agent(mode: Literal["batched", "per_call"]) -> Any:
    return create_agent(
        ScriptedStreamingModel(),
        [calculator, delete_file],
        middleware=[HumanInTheLoopMiddleware(INTERRUPT_ON, interrupt_mode=mode)],
        name=f"hitl_{mode}",
    )


hitl_batched = _middleware_agent("batched")
hitl_per_call = _middleware_agent("per_call")
