"""`encryption` and `ui` / `ui_config` of the config file: their shapes, and what a JSON field
looks like once the user's handlers have encrypted it (`encryption/fields.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.encryption.types import EncryptionContext

from open_langgraph.config import ConfigError, load_config
from open_langgraph.encryption.context import parse_header, using_context
from open_langgraph.encryption.fields import MARKER, EncryptionError, JsonFields

GRAPHS = {"agent": "./agent.py:graph"}


def config_of(tmp_path: Path, **keys: Any) -> Path:
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps({"graphs": GRAPHS, **keys}))
    return path


def test_encryption_path_is_kept_for_start_up(tmp_path: Path) -> None:
    config = load_config(config_of(tmp_path, encryption={"path": "./enc.py:encryption"}))
    assert config.encryption_path == "./enc.py:encryption"
    assert load_config(config_of(tmp_path)).encryption_path is None


@pytest.mark.parametrize(
    ("value", "key", "problem"),
    [
        ("./enc.py:encryption", "encryption", "must be an object like"),
        ({"path": "./enc.py:encryption", "other": 1}, "encryption", "must be an object like"),
        ({"path": "./enc.py"}, "encryption.path", "must be 'path/to/file.py:attribute'"),
    ],
)
def test_a_malformed_encryption_key_is_a_config_error(
    tmp_path: Path, value: Any, key: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(config_of(tmp_path, encryption=value))
    assert raised.value.key == key
    assert problem in str(raised.value)


def test_ui_names_files_and_shared_packages(tmp_path: Path) -> None:
    (tmp_path / "ui.tsx").write_text("export default {};")
    config = load_config(
        config_of(tmp_path, ui={"agent": "./ui.tsx"}, ui_config={"shared": ["@acme/ds"]})
    )
    assert config.generative_ui.components == {"agent": "./ui.tsx"}
    assert config.generative_ui.shared == ("@acme/ds",)


@pytest.mark.parametrize(
    ("keys", "key", "problem"),
    [
        ({"ui": ["./ui.tsx"]}, "ui", "must map names to files"),
        ({"ui": {"agent": "./missing.tsx"}}, "ui.agent", "does not exist"),
        ({"ui": {"a/b": "./ui.tsx"}}, "ui.a/b", "a name may hold only"),
        ({"ui_config": {"shared": "react"}}, "ui_config.shared", "must be a list"),
        ({"ui_config": {"other": []}}, "ui_config", "must be an object like"),
    ],
)
def test_a_malformed_ui_key_is_a_config_error(
    tmp_path: Path, keys: dict[str, Any], key: str, problem: str
) -> None:
    (tmp_path / "ui.tsx").write_text("export default {};")
    with pytest.raises(ConfigError) as raised:
        load_config(config_of(tmp_path, **keys))
    assert raised.value.key == key
    assert problem in str(raised.value)


def test_the_context_header_is_base64_json_of_an_object() -> None:
    assert parse_header("eyJ0ZW5hbnQiOiAiYSJ9") == {"tenant": "a"}
    for bad in ("not base64", "WzFd"):  # the second is `[1]`
        with pytest.raises(ValueError, match="X-Encryption-Context"):
            parse_header(bad)


# -- JSON fields through handlers -----------------------------------------------------------
calls: list[tuple[str | None, str | None, dict[str, Any]]] = []


async def _encrypt(ctx: EncryptionContext, data: dict[str, Any]) -> dict[str, Any]:
    calls.append((ctx.model, ctx.field, dict(ctx.metadata)))
    return {k: "enc:" + json.dumps(v) for k, v in data.items()}


async def _decrypt(ctx: EncryptionContext, data: dict[str, Any]) -> dict[str, Any]:
    return {
        k: json.loads(v[4:]) if isinstance(v, str) and v.startswith("enc:") else v
        for k, v in data.items()
    }


async def test_a_field_keeps_its_keys_ids_plain_and_round_trips() -> None:
    fields = JsonFields(_encrypt, _decrypt)
    with using_context({"tenant": "t1"}):
        stored = await fields.encrypt("thread", "metadata", {"topic": "x", "graph_id": "g"})
    assert stored == {"topic": 'enc:"x"', "graph_id": "g", MARKER: {"tenant": "t1"}}
    assert await fields.decrypt("thread", "metadata", stored) == {"topic": "x", "graph_id": "g"}
    # Stored before encryption was configured: read as it is.
    assert await fields.decrypt("thread", "metadata", {"topic": "x"}) == {"topic": "x"}


async def test_nested_dicts_are_fields_of_their_own_and_non_dicts_are_boxed() -> None:
    fields = JsonFields(_encrypt, _decrypt)
    calls.clear()
    kwargs = {"input": {"q": 1}, "config": {"configurable": {"k": "v"}, "tags": []}, "x": 2}
    stored = await fields.encrypt("run", "kwargs", kwargs)
    assert [field for _, field, _ in calls] == ["kwargs", "input", "config", "configurable"]
    assert stored["config"]["configurable"]["k"] == 'enc:"v"'
    assert await fields.decrypt("run", "kwargs", stored) == kwargs
    boxed = await fields.encrypt("run", "output", [1, 2])
    assert await fields.decrypt("run", "output", boxed) == [1, 2]


async def test_a_handler_changing_the_keys_is_refused() -> None:
    async def envelope(ctx: EncryptionContext, data: dict[str, Any]) -> dict[str, Any]:
        return {"blob": json.dumps(data)}

    with pytest.raises(EncryptionError, match="changed the keys"):
        await JsonFields(envelope, _decrypt).encrypt("thread", "metadata", {"a": 1})
