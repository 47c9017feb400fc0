"""`models.aliases` inside graphs: a project's hosted model string, however LangChain is asked
for it, builds the embedded model the alias names, without the provider's package or key; a
string with no alias is left to LangChain."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain.agents import create_agent
from langchain.chat_models import init_chat_model
from langchain_openai import ChatOpenAI

from open_langgraph.model_aliases import alias_target, apply_model_aliases
from open_langgraph.models import load_chat_model
from open_langgraph.models.local import LocalChatModel

ALIASES = {
    "anthropic:claude-3-5-haiku-latest": "smollm2-135m",
    "gpt-4o": "qwen2.5-coder-1.5b",
}


@pytest.fixture
def aliased(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    apply_model_aliases(ALIASES)
    yield
    apply_model_aliases({})


@pytest.mark.parametrize(
    ("model", "provider", "expected"),
    [
        ("anthropic:claude-3-5-haiku-latest", None, "smollm2-135m"),
        ("anthropic/claude-3-5-haiku-latest", None, "smollm2-135m"),
        ("claude-3-5-haiku-latest", "anthropic", "smollm2-135m"),
        ("gpt-4o", None, "qwen2.5-coder-1.5b"),
        ("openai:gpt-4o", None, "qwen2.5-coder-1.5b"),
        ("gpt-4o", "openai", "qwen2.5-coder-1.5b"),
        ("claude-3-5-haiku-latest", None, None),  # no provider named: another model
        ("openai:gpt-4o-mini", None, None),
    ],
)
def test_alias_lookup(model: str, provider: str | None, expected: str | None) -> None:
    assert alias_target(ALIASES, model, provider) == expected


def test_init_chat_model_builds_the_aliased_model(aliased: None) -> None:
    model = init_chat_model("anthropic:claude-3-5-haiku-latest", temperature=0.5, max_tokens=64)
    assert isinstance(model, LocalChatModel)
    assert (model.model_name, model.temperature, model.max_tokens) == ("smollm2-135m", 0.5, 64)
    # The template's `load_chat_model` form: provider apart, plus keys that mean nothing here.
    split = init_chat_model("claude-3-5-haiku-latest", model_provider="anthropic", api_key="k")
    assert isinstance(split, LocalChatModel)


def test_configurable_models_and_agents_follow_the_alias(aliased: None) -> None:
    configurable = init_chat_model(configurable_fields=("model", "model_provider"), max_tokens=4)
    chosen = configurable.with_config(
        configurable={"model": "claude-3-5-haiku-latest", "model_provider": "anthropic"}
    )
    # Built when called, from the run's configuration: the embedded model answers.
    reply = chosen.invoke("Say hi")
    assert reply.response_metadata["model_name"] == "smollm2-135m"
    agent = create_agent("anthropic:claude-3-5-haiku-latest", tools=[])
    assert "model" in agent.nodes


def test_load_chat_model_follows_the_alias(aliased: None) -> None:
    model = load_chat_model("anthropic/claude-3-5-haiku-latest")
    assert isinstance(model, LocalChatModel) and model.model_name == "smollm2-135m"


def test_names_without_an_alias_are_left_to_langchain(aliased: None) -> None:
    model = init_chat_model("openai:gpt-4o-mini", api_key="sk-test")
    assert isinstance(model, ChatOpenAI) and model.model_name == "gpt-4o-mini"
    apply_model_aliases({})
    with pytest.raises(ImportError, match=r"langchain[-_]anthropic"):
        init_chat_model("anthropic:claude-3-5-haiku-latest")
