"""Which chat model the server uses when a graph does not name one.

`OLG_MODEL` wins; without it the embedded Qwen2.5-Coder 1.5B runs, so a fresh install with no
API key and no network still has a working agent. Base-URL settings point the `openai` provider
at any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, ...).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

MODEL_ENV_VAR = "OLG_MODEL"
DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
BASE_URL_ENV_VARS = ("OLG_OPENAI_BASE_URL", "OPENAI_BASE_URL")
"""Checked in order; the first set one is the base URL for `openai/...` models."""


def default_model(env: Mapping[str, str] | None = None) -> str:
    """The model string to use when none is given: `$OLG_MODEL` or the embedded default."""
    source = os.environ if env is None else env
    return source.get(MODEL_ENV_VAR, "").strip() or DEFAULT_MODEL


def openai_base_url(env: Mapping[str, str] | None = None) -> str | None:
    """The configured OpenAI-compatible base URL, if any."""
    source = os.environ if env is None else env
    for name in BASE_URL_ENV_VARS:
        value = source.get(name, "").strip()
        if value:
            return value
    return None
