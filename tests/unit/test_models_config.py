"""`models.aliases` of the config file, and which embedded model a `/v1` request's name reaches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.config import ConfigError, load_config
from open_langgraph.models_config import ModelsConfig
from open_langgraph.services.openai_models import OpenAIError, resolve_chat_model

GRAPHS = {"agent": "tests.fixtures.graphs:counter"}


def _config(tmp_path: Path, models: object) -> Path:
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": GRAPHS, "models": models}))
    return path


def test_aliases_are_read_with_or_without_the_local_prefix(tmp_path: Path) -> None:
    models = {"aliases": {"openai:gpt-4o-mini": "local/smollm2-135m", "gpt-4o": "smollm2-135m"}}
    config = load_config(_config(tmp_path, models))
    assert config.models == ModelsConfig(
        aliases={"openai:gpt-4o-mini": "smollm2-135m", "gpt-4o": "smollm2-135m"}
    )


def test_no_models_section_means_no_aliases(tmp_path: Path) -> None:
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": GRAPHS}))
    assert load_config(path).models == ModelsConfig()


@pytest.mark.parametrize(
    ("models", "key"),
    [
        ([], "models"),
        ({"alias": {}}, "models.alias"),
        ({"aliases": ["gpt-4o"]}, "models.aliases"),
        ({"aliases": {"gpt-4o": "local/llama-70b"}}, "models.aliases.gpt-4o"),
        ({"aliases": {"gpt-4o": 3}}, "models.aliases.gpt-4o"),
    ],
)
def test_a_bad_models_section_stops_start_up_naming_the_key(
    tmp_path: Path, models: object, key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_config(tmp_path, models))
    assert key in str(caught.value)


def test_names_resolve_through_aliases_then_the_catalogue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OLG_MODEL", raising=False)
    aliases = {"openai:gpt-4o-mini": "smollm2-135m"}
    assert resolve_chat_model("gpt-4o-mini", aliases).name == "smollm2-135m"
    assert resolve_chat_model("local/smollm2-135m", {}).name == "smollm2-135m"
    assert resolve_chat_model("qwen2.5-coder-1.5b", {}).name == "qwen2.5-coder-1.5b"


def test_openai_names_without_alias_go_to_the_default_embedded_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OLG_MODEL", raising=False)
    for name in ("gpt-4o", "gpt-4.1-nano", "o3-mini", "o1", "chatgpt-4o-latest"):
        assert resolve_chat_model(name, {}).name == "qwen2.5-coder-1.5b"
    monkeypatch.setenv("OLG_MODEL", "local/smollm2-135m")
    assert resolve_chat_model("gpt-4o", {}).name == "smollm2-135m"
    monkeypatch.setenv("OLG_MODEL", "anthropic/claude-3-5-haiku-latest")  # hosted: not /v1's
    assert resolve_chat_model("gpt-4o", {}).name == "qwen2.5-coder-1.5b"


@pytest.mark.parametrize("name", ["claude-3-haiku", "llama3", "omni", "local/nope"])
def test_other_names_are_404(name: str) -> None:
    with pytest.raises(OpenAIError) as caught:
        resolve_chat_model(name, {})
    assert caught.value.status == 404 and caught.value.code == "model_not_found"
