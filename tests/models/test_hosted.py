"""Model strings, defaults and the errors a misconfigured provider produces."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from open_langgraph.models import (
    DEFAULT_MODEL,
    ModelNameError,
    ModelUnavailableError,
    default_model,
    load_chat_model,
    parse_model_string,
)
from open_langgraph.models.hosted import check_requirements
from open_langgraph.models.local import LocalChatModel
from open_langgraph.models.settings import openai_base_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("openai/gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("anthropic/claude-3-5-sonnet-20241022", ("anthropic", "claude-3-5-sonnet-20241022")),
        ("ollama/llama3.1", ("ollama", "llama3.1")),
        ("ollama/llama3.1:8b", ("ollama", "llama3.1:8b")),
        ("openai:gpt-4o", ("openai", "gpt-4o")),
        (" OpenAI/meta-llama/Llama-3-8B ", ("openai", "meta-llama/Llama-3-8B")),
        ("google/gemini-2.0-flash", ("google_genai", "gemini-2.0-flash")),
        ("local/smollm2-135m", ("local", "smollm2-135m")),
    ],
)
def test_parse_model_string(text: str, expected: tuple[str, str]) -> None:
    assert parse_model_string(text) == expected


@pytest.mark.parametrize("text", ["gpt-4o", "/gpt-4o", "openai/", ""])
def test_malformed_model_strings_are_refused(text: str) -> None:
    with pytest.raises(ModelNameError, match="provider"):
        parse_model_string(text)


def test_missing_package_and_key_are_both_named() -> None:
    with pytest.raises(ModelUnavailableError) as info:
        check_requirements("anthropic", "claude-3-5-sonnet-20241022", env={})
    message = str(info.value)
    assert "langchain-anthropic" in message and "pip install langchain-anthropic" in message
    assert "ANTHROPIC_API_KEY" in message


@pytest.fixture
def without_langchain_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    """langchain-openai as if not installed (the `dev` extra has it, for the /v1 tests)."""
    find_spec = importlib.util.find_spec

    def hiding(name: str, *args: Any) -> Any:
        return None if name == "langchain_openai" else find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", hiding)


@pytest.mark.usefixtures("without_langchain_openai")
def test_key_present_leaves_only_package_missing() -> None:
    with pytest.raises(ModelUnavailableError) as info:
        check_requirements("openai", "gpt-4o-mini", env={"OPENAI_API_KEY": "sk-test"})
    assert "langchain-openai" in str(info.value) and "OPENAI_API_KEY" not in str(info.value)


@pytest.mark.usefixtures("without_langchain_openai")
def test_base_url_makes_openai_key_optional() -> None:
    with pytest.raises(ModelUnavailableError) as info:
        check_requirements("openai", "llama3", env={}, base_url="http://localhost:8000/v1")
    assert "OPENAI_API_KEY" not in str(info.value)


def test_ollama_needs_no_key() -> None:
    with pytest.raises(ModelUnavailableError) as info:
        check_requirements("ollama", "llama3.1", env={})
    assert "langchain-ollama" in str(info.value) and "KEY" not in str(info.value)


def test_load_chat_model_raises_the_same_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelUnavailableError, match="ANTHROPIC_API_KEY"):
        load_chat_model("anthropic/claude-3-5-sonnet-20241022")


def test_unknown_provider_is_reported_by_name() -> None:
    with pytest.raises(ModelNameError, match="nosuchcloud"):
        load_chat_model("nosuchcloud/model-1")


def test_default_model_env_and_fallback() -> None:
    assert default_model({}) == DEFAULT_MODEL == "local/qwen2.5-coder-1.5b"
    assert default_model({"OLG_MODEL": " openai/gpt-4o-mini "}) == "openai/gpt-4o-mini"
    assert default_model({"OLG_MODEL": ""}) == DEFAULT_MODEL


def test_base_url_settings_order() -> None:
    env = {"OPENAI_BASE_URL": "http://b/v1", "OLG_OPENAI_BASE_URL": "http://a/v1"}
    assert openai_base_url(env) == "http://a/v1"
    assert openai_base_url({}) is None


def test_local_models_resolve_without_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLG_MODEL", raising=False)
    model = load_chat_model()
    assert isinstance(model, LocalChatModel) and model.model_name == "qwen2.5-coder-1.5b"
    small = load_chat_model("local/smollm2-135m", temperature=0.3)
    assert isinstance(small, LocalChatModel) and small.temperature == 0.3


def test_unknown_local_model_lists_known_ones() -> None:
    with pytest.raises(ModelNameError, match="local/smollm2-135m"):
        load_chat_model("local/gpt-5")
