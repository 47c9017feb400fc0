"""The config's `models.aliases` in force inside the graphs this process serves.

A public project names its model in its own code:
`init_chat_model("anthropic:claude-3-5-haiku-latest")`, `create_agent("openai:gpt-4o-mini")`,
or a context field `"anthropic/claude-sonnet-4-5"` that its `load_chat_model` splits.
`OPENAI_BASE_URL` reroutes only OpenAI's client; every other provider needs a key and a
network. With an alias for the name, the graph gets the embedded model instead, unchanged: the
alias is applied where LangChain turns a model string into a chat model
(`langchain.chat_models.base._init_chat_model_helper`, which `init_chat_model`, its
configurable models, `create_agent` and `create_react_agent` all go through) and in our own
`load_chat_model`.

The same lookup answers the `/v1` endpoint's `model` field (services/openai_models.py), so one
alias serves a project whichever way it calls the model.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

_active: dict[str, str] = {}
"""The aliases of the served config (requested name -> catalogue name); empty until applied."""


def alias_target(aliases: Mapping[str, str], model: str, provider: str | None = None) -> str | None:
    """The catalogue model an alias gives `model`, or None.

    Looked up as written (`claude-3-5-haiku-latest`, `anthropic:claude-...`), then with its
    provider in both spellings projects use (`anthropic:claude-...`, `anthropic/claude-...`),
    then bare when the string carried the provider itself.
    """
    if not aliases:
        return None
    bare = model
    if provider is None:
        # The first separator splits, as in `parse_model_string`: ids may contain `/`.
        cuts = [i for i in (model.find(":"), model.find("/")) if i > 0]
        if cuts and min(cuts) < len(model) - 1:
            provider, bare = model[: min(cuts)], model[min(cuts) + 1 :]
    candidates = [model]
    if provider:
        candidates += [f"{provider}:{bare}", f"{provider}/{bare}", bare]
    for name in candidates:
        target = aliases.get(name)
        if target is not None:
            return target
    return None


def active_target(model: str, provider: str | None = None) -> str | None:
    """`alias_target` with the served config's aliases."""
    return alias_target(_active, model, provider)


def local_model(target: str, settings: Mapping[str, Any]) -> BaseChatModel:
    """The embedded model `target` with the settings it shares with hosted models
    (`temperature`, `max_tokens`, `stop`, `seed`); keys, URLs and timeouts mean nothing here."""
    from open_langgraph.models.local import LocalChatModel

    fields = LocalChatModel.model_fields
    kept = {
        k: v for k, v in settings.items() if k in fields and k != "model_name" and v is not None
    }
    return LocalChatModel(model_name=target, **kept)


def apply_model_aliases(aliases: Mapping[str, str]) -> None:
    """Puts `aliases` in force for every chat model built from a string from now on: called
    before the served graphs are imported, so module-level models are covered too."""
    _active.clear()
    _active.update(aliases)
    if not aliases:
        return
    try:
        from langchain.chat_models import base
    except ImportError:
        return  # no `langchain`: projects cannot call init_chat_model either
    original = getattr(base, "_init_chat_model_helper", None)
    if original is None:
        logger.warning(
            "models.aliases apply to /v1 and load_chat_model only: this langchain version "
            "builds models from strings in a way open-langgraph does not know"
        )
        return
    original = getattr(original, "__wrapped__", original)

    def init_aliased(model: str, *, model_provider: str | None = None, **kwargs: Any) -> Any:
        target = active_target(model, model_provider)
        if target is None:
            return original(model, model_provider=model_provider, **kwargs)
        logger.debug("model %s answered by local/%s (models.aliases)", model, target)
        return local_model(target, kwargs)

    init_aliased.__wrapped__ = original  # type: ignore[attr-defined]
    base._init_chat_model_helper = init_aliased  # type: ignore[attr-defined]
