"""What an episode did, captured without touching the agent: model calls through LangChain's
callbacks (inputs, outputs, token usage) and environment steps through a recording env."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.observability.call_records import call_request, message_to_dict, token_usage


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
        tokens = token_usage(message)
        with self._lock:
            call = self._pending.pop(run_id, {"input": None})
            call["output"] = message_to_dict(message) if message is not None else None
            call["usage"] = dict(usage)
            self.llm_calls += 1
            self.prompt_tokens += tokens["input"]
            self.completion_tokens += tokens["output"]
            self.cached_prompt_tokens += tokens["cached"]
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
