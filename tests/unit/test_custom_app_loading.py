"""Loading `http.app`: every way it can be wrong is a `ConfigError` naming `http.app` (which
`olg serve` prints as one line with exit code 2; tests/unit/test_cli_config_errors.py runs
two such cases through the real command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.applications import Starlette

from open_langgraph.config import ConfigError, load_config
from open_langgraph.server.custom_app import load_custom_app


def _config(tmp_path: Path, app: str, source: str | None = None) -> Path:
    if source is not None:
        (tmp_path / "webapp.py").write_text(source, encoding="utf-8")
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps({"graphs": {"a": "./a.py:g"}, "http": {"app": app}}))
    return path


@pytest.mark.parametrize(
    ("app", "source", "problem"),
    [
        ("./webapp.py:app", None, "'./webapp.py' does not exist"),
        ("./webapp.py:app", "raise RuntimeError('no database')\n", "RuntimeError: no database"),
        ("./webapp.py:ap", "app = 1\n", "has no attribute 'ap'"),
        ("./webapp.py:app", "app = {'routes': []}\n", "is a dict, not a Starlette or FastAPI"),
        ("olg_no_such_module:app", None, "olg_no_such_module"),
        ("./ui/app.tsx:app", None, "JavaScript"),
    ],
)
def test_a_bad_http_app_is_a_config_error(
    tmp_path: Path, app: str, source: str | None, problem: str
) -> None:
    path = _config(tmp_path, app, source)
    with pytest.raises(ConfigError) as info:
        load_custom_app(load_config(path))
    assert info.value.key == "http.app"
    assert problem in info.value.problem


def test_a_starlette_app_loads(tmp_path: Path) -> None:
    source = "from starlette.applications import Starlette\napp = Starlette()\n"
    loaded = load_custom_app(load_config(_config(tmp_path, "./webapp.py:app", source)))
    assert isinstance(loaded, Starlette)
