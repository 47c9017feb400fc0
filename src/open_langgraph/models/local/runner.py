"""One llama.cpp instance per model file per process, with calls serialised.

Binding: `xllamacpp` (prebuilt wheels, llama.cpp's own server core in-process; see
docs/models.md for the comparison with llama-cpp-python). Loading a model costs seconds and
hundreds of MB, and two llama.cpp computations on a 2-core machine stall each other for 10-24 s,
so every chat model object of a process shares one runner per file and a lock lets one request
decode at a time. No socket is opened: requests are passed as dicts to the in-process server.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_langgraph.extras import install_hint
from open_langgraph.models.errors import ModelUnavailableError

ChunkCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Completion:
    """The result of one chat completion: text, why it stopped, and llama.cpp's timings."""

    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings: Mapping[str, float] = field(default_factory=dict)


class LlamaRunner:
    """A loaded GGUF model answering OpenAI-style chat requests, one at a time."""

    def __init__(self, model_path: Path, *, n_ctx: int, n_threads: int | None = None) -> None:
        try:
            import xllamacpp
        except ImportError:  # pragma: no cover - depends on the environment
            raise ModelUnavailableError(
                f"local models need the `xllamacpp` package: {install_hint('local-models')}"
            ) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        params.n_parallel = 1  # one slot: calls are serialised anyway
        params.cpuparams.n_threads = n_threads or min(os.cpu_count() or 1, 4)
        params.cpuparams_batch.n_threads = params.cpuparams.n_threads
        params.use_jinja = True  # apply the chat template stored in the GGUF
        params.verbosity = -1  # llama.cpp logs every request otherwise
        started = time.perf_counter()
        self._server = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        self.model_path = model_path
        self._lock = threading.Lock()

    def complete(
        self, request: Mapping[str, Any], on_chunk: ChunkCallback | None = None
    ) -> Completion:
        """Run one chat completion; `on_chunk` receives text pieces as they are decoded.

        Args:
            request: an OpenAI chat-completions body (`messages`, `max_tokens`, `grammar`, ...).
            on_chunk: called from this thread for each decoded text piece when given.

        Raises:
            RuntimeError: llama.cpp rejected the request (the message is llama.cpp's).
        """
        body = dict(request)
        with self._lock:
            if on_chunk is None:
                body["stream"] = False
                result = self._server.handle_chat_completions(body)
                _raise_on_error(result)
                choice = result["choices"][0]
                text = choice["message"].get("content") or ""
                return Completion(
                    text=text,
                    finish_reason=choice.get("finish_reason") or "stop",
                    prompt_tokens=result.get("usage", {}).get("prompt_tokens", 0),
                    completion_tokens=result.get("usage", {}).get("completion_tokens", 0),
                    timings=result.get("timings", {}),
                )
            return self._stream(body, on_chunk)

    def _stream(self, body: dict[str, Any], on_chunk: ChunkCallback) -> Completion:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        pieces: list[str] = []
        last: dict[str, Any] = {}
        errors: list[Mapping[str, Any]] = []
        finish_reason = "stop"

        # Exceptions cannot cross the C++ callback boundary cleanly: record, raise afterwards.
        def receive(chunk: Mapping[str, Any]) -> None:
            nonlocal finish_reason
            if "error" in chunk:
                errors.append(chunk)
                return
            for choice in chunk.get("choices", ()):
                piece = choice.get("delta", {}).get("content")
                if piece:
                    pieces.append(piece)
                    on_chunk(piece)
                if choice.get("finish_reason"):
                    finish_reason = choice["finish_reason"]
            if "timings" in chunk or "usage" in chunk:
                last.update(chunk)

        self._server.handle_chat_completions(body, receive)
        for error in errors:
            _raise_on_error(error)
        usage = last.get("usage") or {}
        return Completion(
            text="".join(pieces),
            finish_reason=finish_reason,
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
            timings=last.get("timings", {}),
        )


def _raise_on_error(payload: Any) -> None:
    if isinstance(payload, Mapping) and "error" in payload:
        error = payload["error"]
        message = error.get("message", error) if isinstance(error, Mapping) else error
        raise RuntimeError(f"llama.cpp rejected the request: {message}")


_RUNNERS: dict[Path, LlamaRunner] = {}
_RUNNERS_LOCK = threading.Lock()


#: Loading a model holds the interpreter for seconds (llama.cpp keeps the GIL while it maps
#: and warms the weights), so nothing else in the process runs meanwhile. A queue worker
#: registers a hook here to extend its runs' leases first, so that other workers do not
#: take them over from a worker that is only busy loading (runtime/queue_worker.py). The
#: hook returns what to call once the load is over: the leases go back to their usual length,
#: so a worker that dies later is replaced as quickly as any other.
LoadHook = Callable[[float], Callable[[], None] | None]
_before_load: LoadHook | None = None
#: How long a load may take, generously: a cold 1.5B model took 7-11 s here, 55 s overloaded.
LOAD_ALLOWANCE_SECONDS = 180.0


def set_before_load(hook: LoadHook | None) -> None:
    """Call `hook(seconds)` before each model load (it may block until it is safe to load),
    and what it returns once the load is over."""
    global _before_load
    _before_load = hook


@contextlib.contextmanager
def announced_load(seconds: float) -> Iterator[None]:
    """Around a load of up to `seconds` that will freeze the process: the registered hook
    is told before it starts and after it ends (failed or not)."""
    after = _before_load(seconds) if _before_load is not None else None
    try:
        yield
    finally:
        if after is not None:
            after()


def is_loaded(filename: str) -> bool:
    """Whether a model file of that name is loaded in this process already."""
    with _RUNNERS_LOCK:
        return any(path.name == filename for path in _RUNNERS)


def get_runner(model_path: Path, *, n_ctx: int) -> LlamaRunner:
    """The process-wide runner for `model_path`, loading the model on first call."""
    key = model_path.resolve()
    with _RUNNERS_LOCK:
        runner = _RUNNERS.get(key)
        if runner is None:
            with announced_load(LOAD_ALLOWANCE_SECONDS):
                runner = _RUNNERS[key] = LlamaRunner(key, n_ctx=n_ctx)
        return runner
