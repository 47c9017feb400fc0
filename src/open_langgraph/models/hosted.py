"""Hosted chat models named `provider/model`, built with LangChain's `init_chat_model`.

We check the provider's integration package and API key ourselves before calling LangChain, so
a misconfigured server fails at start-up with one message naming both the package to install
and the environment variable to set, instead of an ImportError or a 401 on the first request.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from open_langgraph.models.errors import ModelNameError, ModelUnavailableError
from open_langgraph.models.settings import openai_base_url


@dataclass(frozen=True, slots=True)
class Provider:
    """What LangChain calls a provider and what it needs to run."""

    langchain_name: str
    """The `model_provider` understood by `init_chat_model`."""
    package: str
    """The pip name of the LangChain integration."""
    module: str
    """Its import name, probed without importing it."""
    key_env: str | None
    """The API key variable, or None for providers without keys (Ollama)."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", "langchain-openai", "langchain_openai", "OPENAI_API_KEY"),
    "anthropic": Provider(
        "anthropic", "langchain-anthropic", "langchain_anthropic", "ANTHROPIC_API_KEY"
    ),
    "google_genai": Provider(
        "google_genai", "langchain-google-genai", "langchain_google_genai", "GOOGLE_API_KEY"
    ),
    "mistralai": Provider(
        "mistralai", "langchain-mistralai", "langchain_mistralai", "MISTRAL_API_KEY"
    ),
    "groq": Provider("groq", "langchain-groq", "langchain_groq", "GROQ_API_KEY"),
    "deepseek": Provider(
        "deepseek", "langchain-deepseek", "langchain_deepseek", "DEEPSEEK_API_KEY"
    ),
    "xai": Provider("xai", "langchain-xai", "langchain_xai", "XAI_API_KEY"),
    "fireworks": Provider(
        "fireworks", "langchain-fireworks", "langchain_fireworks", "FIREWORKS_API_KEY"
    ),
    "together": Provider(
        "together", "langchain-together", "langchain_together", "TOGETHER_API_KEY"
    ),
    "ollama": Provider("ollama", "langchain-ollama", "langchain_ollama", None),
}
ALIASES = {"google": "google_genai", "gemini": "google_genai", "mistral": "mistralai"}


def parse_model_string(model: str) -> tuple[str, str]:
    """Split `provider/model` (or LangChain's `provider:model`) into its two parts.

    Only the first separator splits, so model ids that contain `/` survive
    (`openai/meta-llama/Llama-3-8B` on an OpenAI-compatible server).

    Raises:
        ModelNameError: the string has no provider or no model part.
    """
    text = model.strip()
    slash, colon = text.find("/"), text.find(":")
    cuts = [i for i in (slash, colon) if i > 0]
    if not cuts:
        raise ModelNameError(
            f"model {model!r} must be `provider/model`, e.g. `openai/gpt-4o-mini`, "
            "`anthropic/claude-3-5-sonnet-20241022`, `ollama/llama3.1` or "
            "`local/qwen2.5-coder-1.5b`"
        )
    cut = min(cuts)
    provider, name = text[:cut].strip().lower(), text[cut + 1 :].strip()
    if not name:
        raise ModelNameError(f"model {model!r} names provider {provider!r} but no model")
    return ALIASES.get(provider, provider), name


def check_requirements(
    provider: str, model: str, *, env: Mapping[str, str] | None = None, base_url: str | None = None
) -> None:
    """Raise one error listing everything `provider` still needs (package and/or key).

    Raises:
        ModelUnavailableError: the integration package or the API key is missing.
    """
    spec = PROVIDERS.get(provider)
    if spec is None:
        return  # unknown to us: init_chat_model reports it
    source = os.environ if env is None else env
    missing = []
    if importlib.util.find_spec(spec.module) is None:
        missing.append(f"the `{spec.package}` package (pip install {spec.package})")
    # An OpenAI-compatible local server usually needs no key; see load_hosted_model.
    key_optional = provider == "openai" and base_url is not None
    if spec.key_env and not key_optional and not source.get(spec.key_env):
        missing.append(f"the {spec.key_env} environment variable")
    if missing:
        raise ModelUnavailableError(f"{provider}/{model} needs " + " and ".join(missing))


def load_hosted_model(provider: str, model: str, **kwargs: Any) -> BaseChatModel:
    """A LangChain chat model for a hosted provider.

    For `openai`, `base_url` (argument, `OLG_OPENAI_BASE_URL` or `OPENAI_BASE_URL`) targets any
    OpenAI-compatible server; without a key, a placeholder is sent since such servers usually
    ignore it but the OpenAI client refuses to start without one.

    Raises:
        ModelUnavailableError: a package or key is missing.
        ModelNameError: LangChain does not know the provider.
    """
    from langchain.chat_models import init_chat_model

    base_url = kwargs.pop("base_url", None)
    if provider == "openai":
        base_url = base_url or openai_base_url()
    check_requirements(provider, model, base_url=base_url)
    if base_url is not None:
        kwargs["base_url"] = base_url
        if not os.environ.get("OPENAI_API_KEY") and "api_key" not in kwargs:
            kwargs["api_key"] = "not-needed"
    try:
        return init_chat_model(model, model_provider=provider, **kwargs)
    except ValueError as exc:
        if provider not in PROVIDERS and "provider" in str(exc).lower():
            raise ModelNameError(f"unknown model provider {provider!r}: {exc}") from None
        raise
