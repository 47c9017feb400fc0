"""Which webhook URLs a server accepts, and how the `webhooks` config key is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from open_langgraph.config import ConfigError, WebhookConfig, load_config
from open_langgraph.runtime.webhooks import WebhookRefused, check_webhook_url

DEFAULT = WebhookConfig()
LOOPBACK_OK = WebhookConfig(disable_loopback=False)
PRIVATE_OK = WebhookConfig(disable_private_ips=False)


@pytest.mark.parametrize(
    ("url", "config"),
    [
        ("http://10.1.2.3:9000/hook", PRIVATE_OK),  # private networks only when allowed
        ("https://192.168.0.7/hook", PRIVATE_OK),
        ("http://93.184.215.14/hook", DEFAULT),  # a public address
        ("http://127.0.0.1:8080/hook", LOOPBACK_OK),
        ("http://[::1]:8080/hook", LOOPBACK_OK),
        ("http://localhost:8080/hook", LOOPBACK_OK),
        ("https://hooks.example.com/x", WebhookConfig(allowed_domains=("hooks.example.com",))),
        ("http://10.0.0.1:8443/x", WebhookConfig(allowed_ports=(8443,), disable_private_ips=False)),
        # An address listed by exact name is trusted without the network checks.
        ("http://10.0.0.5/x", WebhookConfig(allowed_domains=("10.0.0.5",))),
    ],
)
async def test_allowed_urls(url: str, config: WebhookConfig) -> None:
    await check_webhook_url(url, config)


@pytest.mark.parametrize(
    ("url", "config", "reason"),
    [
        ("http://127.0.0.1:8080/hook", DEFAULT, "loopback"),
        ("http://localhost/hook", DEFAULT, "loopback"),
        ("http://169.254.169.254/latest/meta-data", LOOPBACK_OK, "link-local"),
        ("http://[fe80::1]/x", LOOPBACK_OK, "link-local"),
        ("http://0.0.0.0/x", LOOPBACK_OK, "not a unicast"),
        ("http://10.0.0.1/hook", DEFAULT, "private"),  # refused by default
        ("http://192.168.1.1/hook", DEFAULT, "private"),
        ("http://[fd00::1]/hook", DEFAULT, "private"),
        ("http://100.64.0.1/hook", DEFAULT, "private"),  # carrier-grade NAT
        ("http://[::ffff:10.0.0.1]/hook", DEFAULT, "private"),  # IPv4-mapped
        ("http://[::ffff:127.0.0.1]/hook", DEFAULT, "loopback"),
        ("http://127.0.0.1/hook", PRIVATE_OK, "loopback"),  # private allowed, loopback not
        ("/runs/hook", LOOPBACK_OK, "absolute"),
        ("ftp://example.com/x", DEFAULT, "absolute"),
        ("http:///no-host", DEFAULT, "absolute"),
        ("http://10.0.0.1/x", WebhookConfig(require_https=True), "https"),
        ("http://10.0.0.1:8000/x", WebhookConfig(allowed_ports=(443,)), "port 8000"),
        ("http://10.0.0.1:99999/x", DEFAULT, "invalid port"),
        ("https://evil.test/x", WebhookConfig(allowed_domains=("*.example.com",)), "allowed"),
        ("http://10.0.0.1/" + "a" * 100, WebhookConfig(max_url_length=50), "longer"),
        ("http://no-such-host.invalid/x", DEFAULT, "cannot be resolved"),
        # A wildcard match passes the domain list, then the name must still resolve (no DNS
        # here, so this also shows the wildcard was accepted).
        ("https://a.example.com/x", WebhookConfig(allowed_domains=("*.example.com",)), "resolved"),
        ("http://10.0.0.1/x", WebhookConfig(enabled=False), "disabled"),
    ],
)
async def test_refused_urls_say_why(url: str, config: WebhookConfig, reason: str) -> None:
    with pytest.raises(WebhookRefused) as info:
        await check_webhook_url(url, config)
    assert info.value.status_code == 422
    assert reason in info.value.detail


def _load(tmp_path: Path, **extra: Any):
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": {"agent": "./agent.py:graph"}, **extra}))
    return load_config(path)


def test_webhooks_config_is_read(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        webhooks={
            "url": {
                "disable_loopback": False,
                "require_https": True,
                "allowed_domains": ["Hooks.Example.com", "*.corp.test"],
                "allowed_ports": [443, 8443],
                "max_url_length": 200,
            },
            "headers": {"Authorization": "Bearer x"},
        },
    ).webhooks
    assert config == WebhookConfig(
        allowed_domains=("hooks.example.com", "*.corp.test"),
        allowed_ports=(443, 8443),
        require_https=True,
        disable_loopback=False,
        max_url_length=200,
        headers={"Authorization": "Bearer x"},
    )


def test_webhooks_default_and_disabled(tmp_path: Path) -> None:
    assert _load(tmp_path).webhooks == WebhookConfig()
    assert not _load(tmp_path, http={"disable_webhooks": True}).webhooks.enabled


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ({"webhooks": []}, "webhooks"),
        ({"webhooks": {"urls": {}}}, "webhooks"),
        ({"webhooks": {"url": {"disable_loopback": "no"}}}, "webhooks.url.disable_loopback"),
        ({"webhooks": {"url": {"allowed_ports": [0]}}}, "webhooks.url.allowed_ports"),
        ({"webhooks": {"url": {"allowed_domains": "x.com"}}}, "webhooks.url.allowed_domains"),
        ({"webhooks": {"url": {"max_url_length": 0}}}, "webhooks.url.max_url_length"),
        ({"webhooks": {"url": {"strict": True}}}, "webhooks.url"),
        ({"webhooks": {"headers": {"X": 1}}}, "webhooks.headers"),
        ({"http": {"disable_webhooks": "yes"}}, "http.disable_webhooks"),
    ],
)
def test_bad_webhooks_config_names_the_key(tmp_path: Path, extra: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, **extra)
    assert info.value.key == key
