"""The project's `react_agent` and `react_agent_hitl` graphs on a scripted chat model, for a live
`olg serve` under the UI tests: deterministic replies, streamed a word at a time with a pause,
so the page can be seen filling in token by token.

The script reads the conversation: "calculate EXPR" asks for the calculator; a tool result is
answered with its value (or with the error, when the tool failed or a person rejected the
call); "fail, please" makes the model raise; anything else gets a plain answer of a dozen words.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

#: Pause before each streamed word: long enough for a browser to paint between tokens.
TOKEN_DELAY = 0.12


def counting(n: int) -> str:
    """The reply to "count to `n`": every number once, in order, so that a lost or repeated
    token shows."""
    return "Counting: " + " ".join(str(i) for i in range(1, n + 1)) + "."


def scripted_reply(messages: Sequence[BaseMessage]) -> AIMessage:
    """What the script answers to a conversation ending in `messages[-1]`."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        if last.status == "error":
            return AIMessage(content=f"The tool call failed: {last.content}")
        return AIMessage(content=f"The calculator says {last.content}. That is the answer.")
    text = last.text
    if text == "fail, please":
        raise RuntimeError("the scripted model was asked to fail")
    if count := re.fullmatch(r"count to (\d+)", text):
        return AIMessage(content=counting(int(count.group(1))))
    if text.lower().startswith("calculate "):
        call = {
            "name": "calculator",
            "args": {"expression": text[len("calculate ") :].strip()},
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "tool_call",
        }
        return AIMessage(content="", tool_calls=[call])
    return AIMessage(
        content=f"You asked: {text}. This answer arrives one word at a time, as tokens do."
    )


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
        return ChatResult(generations=[ChatGeneration(message=scripted_reply(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = scripted_reply(messages)
        if reply.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(reply.tool_calls)
            ]
            await asyncio.sleep(TOKEN_DELAY)
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        for i, word in enumerate(str(reply.content).split(" ")):
            await asyncio.sleep(TOKEN_DELAY)
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=word if i == 0 else f" {word}")
            )


def _load(name: str | None = None, **_: Any) -> ScriptedStreamingModel:
    return ScriptedStreamingModel()


# Both agents' model node is `graphs.react_agent.graph.make_call_model`, which loads the
# model through this module global; the package re-exports `graph`, hiding the module.
_react = importlib.import_module("graphs.react_agent.graph")
_react.load_chat_model = _load  # type: ignore[attr-defined]
react_agent = _react.graph
react_agent_hitl = importlib.import_module("graphs.react_agent_hitl.graph").graph
