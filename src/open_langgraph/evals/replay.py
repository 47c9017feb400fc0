"""Offline replay: re-run a recorded episode with the recorded model outputs and no model.

The graph runs for real against a fresh environment session; only the model is replaced by
``ReplayChatModel``, which answers each call with the recorded output after checking that the
graph asked the same question. Replay fails at the first difference: a model input, an
environment action or a state update that is not what the recording holds. A recording is
therefore a regression test of everything around the model (prompts, schemas, routing,
memory, environment).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import PrivateAttr

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.evals.episode import RECORDING_VERSION, run_episode
from open_langgraph.observability.call_records import call_request, message_from_dict


class ReplayMismatch(AssertionError):
    """The replayed episode departed from its recording."""


class ReplayChatModel(BaseChatModel):
    """A chat model that plays back recorded calls, in order, checking each input."""

    calls: list[dict[str, Any]]
    _index: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "olg-replay"

    @property
    def used(self) -> int:
        return self._index

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
        with self._lock:
            index = self._index
            self._index += 1
        if index >= len(self.calls):
            raise ReplayMismatch(
                f"model call {index}: the recording has only {len(self.calls)} calls"
            )
        recorded = self.calls[index]
        asked = call_request(messages, kwargs)
        expected = recorded["input"]
        if expected is not None and asked != expected:
            raise ReplayMismatch(f"model call {index}: input differs\n{_diff(expected, asked)}")
        message = message_from_dict(recorded["output"] or {})
        return ChatResult(generations=[ChatGeneration(message=message)])


def _diff(expected: Any, actual: Any, path: str = "") -> str:
    """The first place two JSON values differ, for a readable failure."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if expected.get(key) != actual.get(key):
                return _diff(expected.get(key), actual.get(key), f"{path}.{key}")
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            if e != a:
                return _diff(e, a, f"{path}[{i}]")
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items recorded, {len(actual)} now"
    return f"{path or '<root>'}: recorded {str(expected)[:300]!r}, now {str(actual)[:300]!r}"


@dataclass
class ReplayReport:
    steps: int
    model_calls: int
    reward: float


def load_recording(path: str | Path) -> dict[str, Any]:
    """Read a recording, with a clear error for anything that is not one."""
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"no such recording: {file}")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != RECORDING_VERSION:
        raise ValueError(f"{file} is not an episode recording (version {RECORDING_VERSION})")
    return data


def replay(data: dict[str, Any], env: WebShopEnv | None = None) -> ReplayReport:
    """Replay a loaded recording; raises ReplayMismatch at the first difference.

    Args:
        env: the environment to use; built from the recording's catalog and goals when None.
    """
    record = data["record"]
    if env is None:
        env = WebShopEnv(record.get("data"), goals=record["goals"], seed=record["seed"])
    calls = [call for step in data["steps"] for call in step["model_calls"]]
    model = ReplayChatModel(calls=calls)
    identity = {k: record[k] for k in ("agent", "model", "catalog", "data", "goals", "seed")}
    episode = run_episode(
        record["agent"], env, model, record["goal_index"], data["settings"], identity
    )
    # Steps finished before any stop are compared first: the first visible difference (an
    # action, an update) says more than the model question it led to.
    for i, (want, got) in enumerate(zip(data["steps"], episode.steps, strict=False)):
        for key in ("node", "env", "delta"):
            if want[key] != got[key]:
                raise ReplayMismatch(
                    f"step {i} ({want['node']}): {key} differs\n{_diff(want[key], got[key])}"
                )
    if episode.record.get("error"):
        raise ReplayMismatch(f"replay stopped: {episode.record['error']}")
    if len(episode.steps) != len(data["steps"]):
        raise ReplayMismatch(
            f"the recording has {len(data['steps'])} steps, the replay {len(episode.steps)}"
        )
    if model.used != len(calls):
        raise ReplayMismatch(f"the replay used {model.used} of {len(calls)} recorded calls")
    return ReplayReport(len(episode.steps), len(calls), float(episode.record["reward"]))


def replay_file(path: str | Path) -> ReplayReport:
    return replay(load_recording(path))
