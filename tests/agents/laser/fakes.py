"""Fake chat models for deterministic agent tests: LangChain's list-playing fake, taught to
accept ``bind_tools``, and a policy fake that answers any page with a valid call."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable

_ids = itertools.count()


def call(name: str, **args: Any) -> AIMessage:
    """A reply calling ``name(**args)``."""
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"call_{next(_ids)}"}]
    )


def say(text: str) -> AIMessage:
    return AIMessage(content=text)


class ScriptedChatModel(FakeMessagesListChatModel):
    """Plays ``responses`` in order (think replies and tool calls alike); tools are accepted
    and ignored, as the script already knows which call to make."""

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)


class FirstChoiceChatModel(BaseChatModel):
    """Calls the first bound tool in ``preference`` order, with the first value of every enum
    argument and ``text`` for free strings; answers ``thought`` when no tool is bound. Reports
    token usage like a real model so metrics can be checked."""

    preference: list[str] = ["Search", "select_item", "Buy_Now", "search", "click"]
    thought: str = "The first result looks right. Match score: 7/10"
    text: str = "shampoo"

    @property
    def _llm_type(self) -> str:
        return "first-choice-fake"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = [t["function"] for t in kwargs.get("tools") or []]
        usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
        if not tools:
            message = AIMessage(content=self.thought, usage_metadata=usage)
        else:
            by_name = {t["name"]: t for t in tools}
            name = next((n for n in self.preference if n in by_name), tools[0]["name"])
            args = {}
            for key, prop in by_name[name]["parameters"].get("properties", {}).items():
                if prop.get("enum"):
                    args[key] = prop["enum"][0]
                elif "string" in prop.get("type", []):
                    args[key] = self.text
                else:
                    args[key] = None
            message = call(name, **args)
            message.usage_metadata = usage
        return ChatResult(generations=[ChatGeneration(message=message)])
