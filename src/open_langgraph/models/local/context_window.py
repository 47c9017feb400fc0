"""How many tokens of context an embedded model loads with.

A model's window costs memory in proportion to its length: the KV cache keeps a key and a
value per layer and per attention head for every token (28 KB a token for Qwen2.5-Coder-1.5B,
896 MB at its trained 32,768; 23 KB for SmolLM2-135M), allocated in full when the model loads.
Decoding is not slower for a longer window (llama.cpp attends over the cells in use), so the
window is the longest the model was trained for that the memory budget holds: real projects'
first prompts run past 8k tokens (deer-flow's: 10,010).
"""

from __future__ import annotations

from open_langgraph.models.errors import ModelUnavailableError
from open_langgraph.models.local.gguf_header import ModelShape

#: Below this many tokens an agent's system prompt, tools and one exchange no longer fit.
MIN_CONTEXT = 2048
#: Windows are whole multiples of this, as llama.cpp pads its KV cache anyway.
CONTEXT_STEP = 256


def fit_context(shape: ModelShape, *, wanted: int | None, room: int | None, model: str) -> int:
    """The window to load `model` with: `wanted` (else the trained window), never beyond the
    trained window, and cut to the KV cache that fits in `room` bytes (None: no bound).

    Raises:
        ModelUnavailableError: `room` holds fewer than MIN_CONTEXT tokens (or fewer than
            `wanted`, when that is smaller).
    """
    ceiling = min(wanted or shape.trained_context, shape.trained_context)
    if room is None:
        return ceiling
    per_token = shape.kv_bytes_per_token
    fits = max(room, 0) // per_token // CONTEXT_STEP * CONTEXT_STEP
    least = min(MIN_CONTEXT, ceiling)
    if fits < least:
        mib = 2**20
        raise ModelUnavailableError(
            f"{model}: the models' memory budget leaves {max(room, 0) // mib} MB for the KV "
            f"cache after the weights, buffers and prompt cache, room for {fits} tokens of "
            f"context ({per_token // 1024} KB each), fewer than the {least} it needs: raise "
            "OLG_MODEL_MEMORY_MB or lower OLG_MODEL_PROMPT_CACHE_MB"
        )
    return min(ceiling, fits)
