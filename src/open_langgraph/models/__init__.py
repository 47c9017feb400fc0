"""Chat models for agents: hosted `provider/model` strings and embedded `local/<name>` models.

```python
from open_langgraph.models import load_chat_model

model = load_chat_model("openai/gpt-4o-mini")      # hosted, via LangChain's init_chat_model
model = load_chat_model("local/smollm2-135m")      # embedded, offline, grammar-constrained
model = load_chat_model()                          # $OLG_MODEL or local/qwen2.5-coder-1.5b
```
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.language_models import BaseChatModel

from open_langgraph.model_aliases import active_target, local_model
from open_langgraph.models.errors import (
    ModelError,
    ModelFileError,
    ModelNameError,
    ModelUnavailableError,
)
from open_langgraph.models.hosted import load_hosted_model, parse_model_string
from open_langgraph.models.settings import DEFAULT_MODEL, default_model

__all__ = [
    "DEFAULT_MODEL",
    "ModelError",
    "ModelFileError",
    "ModelNameError",
    "ModelUnavailableError",
    "default_model",
    "load_chat_model",
    "parse_model_string",
    "shared_chat_model",
]


def load_chat_model(model: str | None = None, **kwargs: Any) -> BaseChatModel:
    """The chat model named `provider/model`, or the configured default when `model` is None.

    Args:
        model: e.g. `openai/gpt-4o-mini`, `ollama/llama3.1`, `local/smollm2-135m`.
        **kwargs: passed to the model (`temperature`, `max_tokens`, `base_url`, ...).

    Raises:
        ModelNameError: the string is malformed or names an unknown local model/provider.
        ModelUnavailableError: the provider's package or API key is missing.
    """
    requested = model or default_model()
    target = active_target(requested)
    if target is not None:
        return local_model(target, kwargs)
    provider, name = parse_model_string(requested)
    if provider == "local":
        # Imported here so hosted-only deployments never import the llama.cpp binding.
        from open_langgraph.models.local import LOCAL_MODELS, LocalChatModel

        if name not in LOCAL_MODELS:
            known = ", ".join(f"local/{n}" for n in LOCAL_MODELS)
            raise ModelNameError(f"unknown local model {name!r}; known: {known}")
        return LocalChatModel(model_name=name, **kwargs)
    return load_hosted_model(provider, name, **kwargs)


_shared: dict[str, BaseChatModel] = {}
_shared_lock = threading.Lock()


def shared_chat_model(model: str | None = None) -> BaseChatModel:
    """One model object per name for the whole process, built on first use.

    Agents that pick their model per run call this instead of `load_chat_model`, so a served
    graph does not rebuild a client (or re-open an embedded model file) on every call.
    """
    name = model or ""
    with _shared_lock:
        found = _shared.get(name)
        if found is None:
            found = _shared[name] = load_chat_model(model)
        return found
