"""Which `Host` names and browser origins the server answers, and how the config names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from open_langgraph.config import ConfigError, CorsConfig, load_config
from open_langgraph.server.security import HostPolicy, OriginPolicy, is_loopback_host


@pytest.mark.parametrize(
    ("bound", "allowed", "host", "served"),
    [
        ("127.0.0.1", None, "127.0.0.1:8123", True),
        ("127.0.0.1", None, "localhost", True),
        ("127.0.0.1", None, "[::1]:8123", True),
        ("127.0.0.1", None, "LOCALHOST.:8123", True),
        ("127.0.0.1", None, "evil.example:8123", False),
        ("127.0.0.1", None, "localhost.evil.example", False),
        ("::1", None, "[::1]", True),
        ("localhost", None, "rebind.evil.example", False),
        ("127.0.0.1", ("olg.internal",), "olg.internal:8123", True),
        ("127.0.0.1", ("*.corp.test",), "a.b.corp.test", True),
        ("127.0.0.1", ("*.corp.test",), "corp.test.evil.example", False),
        ("127.0.0.1", ("*",), "anything.example", True),
        # A public bind answers every name unless the config lists them.
        ("0.0.0.0", None, "evil.example", True),
        ("0.0.0.0", ("olg.example.com",), "evil.example", False),
        ("0.0.0.0", ("olg.example.com",), "olg.example.com", True),
        (None, None, "testserver", True),  # an app built without a bind (in-process tests)
    ],
)
def test_host_policy(bound: str | None, allowed: tuple[str, ...] | None, host: str, served: bool):
    assert HostPolicy(bound, allowed).allows(host) is served


def test_loopback_binds() -> None:
    assert all(map(is_loopback_host, ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback_host, ["0.0.0.0", "::", "192.168.1.4", "example.com", None]))


def test_origin_policy() -> None:
    default = OriginPolicy.from_cors(CorsConfig(allow_origins=["https://smith.langchain.com"]))
    assert default.allows("https://smith.langchain.com", "127.0.0.1:8123")
    assert not default.allows("https://evil.example", "127.0.0.1:8123")
    assert not default.allows("null", "127.0.0.1:8123")
    assert default.allows("http://127.0.0.1:8123", "127.0.0.1:8123")  # the server's /docs
    regex = OriginPolicy.from_cors(CorsConfig(allow_origin_regex=r"http://localhost:\d+"))
    assert regex.allows("http://localhost:3000", None)
    assert not regex.allows("http://localhost:3000.evil.example", None)
    assert OriginPolicy.from_cors(CorsConfig(allow_origins=["*"])).allows("https://x.test", None)


def _load(tmp_path: Path, **extra: Any):
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}, **extra}))
    return load_config(path)


def test_allowed_hosts_config(tmp_path: Path) -> None:
    assert _load(tmp_path).hosts.allowed_hosts is None
    hosts = _load(tmp_path, http={"allowed_hosts": ["OLG.internal", "*.corp.test"]}).hosts
    assert hosts.allowed_hosts == ("olg.internal", "*.corp.test")


@pytest.mark.parametrize(
    "value", ["olg.internal", [1], [""], ["http://olg.internal"], ["olg.internal:8123"]]
)
def test_bad_allowed_hosts_name_the_key(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, http={"allowed_hosts": value})
    assert info.value.key == "http.allowed_hosts"
