"""What an episode did, captured without touching the agent: model calls through LangChain's
callbacks (inputs, outputs, token usage) and environment steps through a recording env."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult

from open_langgraph.envs.webshop import WebShopEnv


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """A message as JSON: its type, text and tool calls (ids left out: they are random)."""
    data: dict[str, Any] = {"type": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        data["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in calls]
    return data


def message_from_dict(data: dict[str, Any]) -> AIMessage:
    calls = [
        {"name": c["name"], "args": c["args"], "id": f"replay_{i}", "type": "tool_call"}
        for i, c in enumerate(data.get("tool_calls") or [])
    ]
    return AIMessage(content=data.get("content") or "", tool_calls=calls)


def call_request(messages: list[BaseMessage], params: dict[str, Any]) -> dict[str, Any]:
    """A model call's input as recorded: the messages plus the bound tools and choice."""
    tools = params.get("tools") or []
    names = []
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        names.append(fn.get("name", str(tool)))
    return {
        "messages": [message_to_dict(m) for m in messages],
        "tools": names,
        "tool_choice": params.get("tool_choice"),
    }


class EpisodeRecorder(BaseCallbackHandler):
    """Counts and records every chat-model call of one episode."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[UUID, dict[str, Any]] = {}
        self._done: list[dict[str, Any]] = []
        self.llm_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cached_prompt_tokens = 0
        """Prompt tokens the model re-used from its cache instead of reading them again
        (`usage_metadata.input_token_details.cache_read`; 0 for models that do not say)."""

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        params = kwargs.get("invocation_params") or {}
        with self._lock:
            self._pending[run_id] = {"input": call_request(messages[0], params)}

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        generation = response.generations[0][0]
        message = getattr(generation, "message", None)
        usage = getattr(message, "usage_metadata", None) or {}
        with self._lock:
            call = self._pending.pop(run_id, {"input": None})
            call["output"] = message_to_dict(message) if message is not None else None
            call["usage"] = dict(usage)
            self.llm_calls += 1
            self.prompt_tokens += int(usage.get("input_tokens") or 0)
            self.completion_tokens += int(usage.get("output_tokens") or 0)
            details = usage.get("input_token_details") or {}
            self.cached_prompt_tokens += int(details.get("cache_read") or 0)
            self._done.append(call)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._pending.pop(run_id, None)

    def drain(self) -> list[dict[str, Any]]:
        """The calls finished since the last drain, in order."""
        with self._lock:
            calls, self._done = self._done, []
            return calls


class RecordingEnv(WebShopEnv):
    """A session of ``base`` (sharing its catalog, index and goals) that logs every step.

    The base's constructor is deliberately not re-run: building the index again per episode
    would cost more than the episode's environment steps.
    """

    def __init__(self, base: WebShopEnv) -> None:
        self.__dict__.update(base.__dict__)
        self._session = None
        self._log: list[dict[str, Any]] = []

    def step(self, action: str) -> tuple[str, float, bool, dict[str, Any]]:
        obs, reward, done, info = super().step(action)
        self._log.append({"action": action, "observation": obs, "reward": reward, "done": done})
        return obs, reward, done, info

    def drain(self) -> list[dict[str, Any]]:
        log, self._log = self._log, []
        return log
