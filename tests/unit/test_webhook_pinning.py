"""A webhook connects to the address its check approved, whatever DNS answers next, and its
URL's credentials never reach the log."""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from open_langgraph.config import WebhookConfig
from open_langgraph.runtime.webhooks import WebhookSender, pinned_request
from tests.fixtures.webhook_listener import Listener

LOOPBACK_OK = WebhookConfig(disable_loopback=False)


class Resolver:
    """Stands in for DNS: `hook.test` answers `first`, then `later` (a rebinding attacker)."""

    def __init__(self, first: str, later: str | None) -> None:
        self.first, self.later = first, later
        self.lookups = 0
        self._real = socket.getaddrinfo

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hook.test":
            return self._real(host, port, *args, **kwargs)
        self.lookups += 1
        answer = self.first if self.lookups == 1 else self.later
        if answer is None:
            raise socket.gaierror(socket.EAI_NONAME, "the second answer never comes")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer, int(port or 80)))]


@pytest.fixture
def listener() -> Iterator[Listener]:
    listening = Listener()
    yield listening
    listening.close()


async def test_delivery_connects_to_the_checked_address(
    listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Any lookup after the check fails; delivery works only if it reuses the checked answer.
    resolver = Resolver("127.0.0.1", later=None)
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    sender = WebhookSender(LOOPBACK_OK, attempts=1)
    sender.send(f"http://hook.test:{listener.port}/done?k=v", {"run_id": "r1"})
    await sender.aclose(grace=10)
    assert resolver.lookups == 1
    [(path, body, headers)] = listener.received
    assert path == "/done?k=v" and body["run_id"] == "r1"
    assert headers["Host"] == f"hook.test:{listener.port}"


async def test_a_private_second_answer_is_refused_at_delivery(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Checked public at creation, private when called: nothing is sent."""
    monkeypatch.setattr(socket, "getaddrinfo", Resolver("93.184.215.14", later="10.0.0.7"))
    sender = WebhookSender(WebhookConfig(), attempts=1)
    await sender.check("http://hook.test/x")  # the check when the run is created
    with caplog.at_level(logging.WARNING, logger="open_langgraph.runtime.webhooks"):
        sender.send("http://hook.test/x", {"run_id": "r2"})
        await sender.aclose(grace=10)
    assert "resolves to 10.0.0.7" in caplog.text and "private" in caplog.text


async def test_https_keeps_the_name_for_sni_and_the_host_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", Resolver("93.184.215.14", later="10.0.0.7"))
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    sender = WebhookSender(WebhookConfig(), attempts=1, transport=httpx.MockTransport(answer))
    sender.send("https://hook.test:8443/x?token=t", {"run_id": "r3"})
    await sender.aclose(grace=10)
    [request] = seen
    assert request.url.host == "93.184.215.14" and request.url.port == 8443
    assert request.url.query == b"token=t"
    assert request.headers["host"] == "hook.test:8443"
    assert request.extensions["sni_hostname"] == "hook.test"


def test_pinned_request_shapes() -> None:
    address = ipaddress.ip_address("2001:db8::5")
    url, headers, extensions = pinned_request("http://user:pw@hook.test/a", address)
    assert str(url) == "http://user:pw@[2001:db8::5]/a"
    assert headers == {"Host": "hook.test"} and extensions == {}
    # A literal address or a host trusted by name is called as written.
    assert pinned_request("http://10.0.0.1/a", ipaddress.ip_address("10.0.0.1"))[1:] == ({}, {})
    assert pinned_request("https://trusted.test/a", None)[1:] == ({}, {})


async def test_webhook_logs_show_no_credentials(
    listener: Listener, caplog: pytest.LogCaptureFixture
) -> None:
    listener.failures["/hook?token=tok-SECRET"] = 1  # the first POST fails: a warning
    sender = WebhookSender(LOOPBACK_OK, attempts=1)
    url = f"http://bob:pw-SECRET@127.0.0.1:{listener.port}/hook?token=tok-SECRET"
    with caplog.at_level(logging.INFO, logger="open_langgraph.runtime.webhooks"):
        sender.send(url, {"run_id": "r4"})
        await sender.aclose(grace=10)
        sender.send(url, {"run_id": "r5"})
        await sender.aclose(grace=10)
        refused = WebhookSender(WebhookConfig(), attempts=1)
        refused.send("http://127.0.0.1:9/x?token=tok-SECRET", {"run_id": "r6"})
        await refused.aclose(grace=10)
    assert len(listener.received) == 2
    assert "giving up: HTTP 500" in caplog.text
    assert "delivered to http://***@127.0.0.1" in caplog.text
    assert "not sent" in caplog.text
    assert "SECRET" not in caplog.text
