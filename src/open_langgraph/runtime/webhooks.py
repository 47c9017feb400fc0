"""Run webhooks: a POST of the finished run to the URL the client gave when creating it.

A URL is checked twice: when the run is created (a bad one is a 422, before anything runs)
and again when it is called, because a host name can resolve elsewhere by then. The second
check's answer is pinned: the request connects to the address that was checked (keeping the
name in the Host header and TLS SNI, so certificates are still verified against it), so a
second DNS answer (DNS rebinding) cannot send it to an address the policy refuses. Delivery
runs beside the worker, retries connection failures, 429 and 5xx answers with exponential
backoff, and only logs when it gives up: a webhook never fails or delays a run. URLs are
logged redacted, since they often carry a token.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from typing import Any
from urllib.parse import urlsplit

import httpx

from open_langgraph.config import WebhookConfig
from open_langgraph.errors import InvalidInput
from open_langgraph.redact import redact_text, redact_url
from open_langgraph.serde import dumps
from open_langgraph.storage.base import utc_now

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class WebhookRefused(InvalidInput):
    """The webhook URL breaks the server's webhook policy."""


def _host_allowed_by_name(host: str, domains: tuple[str, ...]) -> bool:
    return any(
        host == domain or (domain.startswith("*.") and host.endswith(domain[1:]))
        for domain in domains
    )


def _address_problem(address: IPAddress, config: WebhookConfig) -> str | None:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:10.0.0.1 is 10.0.0.1
    if address.is_link_local:
        return "is link-local (cloud metadata endpoints live there)"
    if address.is_loopback:
        if config.disable_loopback:
            return (
                "is loopback, which webhooks may not call unless the config sets "
                "webhooks.url.disable_loopback to false"
            )
        return None
    if address.is_unspecified or address.is_multicast or address.is_reserved:
        return "is not a unicast address"
    if not address.is_global and config.disable_private_ips:
        return (
            "is in a private network, which webhooks may not call unless the config sets "
            "webhooks.url.disable_private_ips to false"
        )
    return None


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise WebhookRefused(f"webhook host {host!r} cannot be resolved: {exc}") from None
    return [ipaddress.ip_address(info[4][0]) for info in infos]


async def check_webhook_url(url: str, config: WebhookConfig) -> IPAddress | None:
    """Raise `WebhookRefused` unless `url` may be called under `config`.

    Returns the checked address the request must connect to, or None for a host the config
    lists by exact name (the operator vouches for whatever it resolves to).
    """
    if not config.enabled:
        raise WebhookRefused("webhooks are disabled on this server (http.disable_webhooks)")
    if len(url) > config.max_url_length:
        raise WebhookRefused(f"webhook URL is longer than {config.max_url_length} characters")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRefused(
            f"webhook must be an absolute http(s) URL, got {redact_url(url)[:100]!r}"
        )
    if config.require_https and parts.scheme != "https":
        raise WebhookRefused("webhook must use https (webhooks.url.require_https)")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise WebhookRefused(
            f"webhook URL has an invalid port: {redact_url(url)[:100]!r}"
        ) from None
    if config.allowed_ports and port not in config.allowed_ports:
        raise WebhookRefused(f"webhook port {port} is not in webhooks.url.allowed_ports")
    host = parts.hostname.lower()
    named = _host_allowed_by_name(host, config.allowed_domains)
    if config.allowed_domains and not named:
        raise WebhookRefused(f"webhook host {host!r} is not in webhooks.url.allowed_domains")
    if host in config.allowed_domains:
        return None  # listed by exact name: the operator vouches for it
    addresses = await _resolve(host, port)
    if not addresses:
        raise WebhookRefused(f"webhook host {host!r} resolves to no address")
    # Every answer is checked, not only the one used: a name answering both a public and a
    # private address is refused.
    for address in addresses:
        problem = _address_problem(address, config)
        if problem:
            raise WebhookRefused(f"webhook host {host!r} resolves to {address}, which {problem}")
    return addresses[0]


def pinned_request(
    url: str, address: IPAddress | None
) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
    """The URL to connect to, extra headers and request extensions for calling `url` at
    `address`: the IP replaces the name in the URL, the name stays in the Host header and,
    for https, in the TLS SNI and certificate check. `address` None: `url` unchanged."""
    target = httpx.URL(url)
    if address is None or target.host == str(address):
        return target, {}, {}
    name = target.raw_host.decode("ascii")  # IDNA-encoded, as DNS and TLS want it
    host_header = name if target.port is None else f"{name}:{target.port}"
    extensions: dict[str, Any] = {}
    if target.scheme == "https":
        extensions["sni_hostname"] = name
    return target.copy_with(host=str(address)), {"Host": host_header}, extensions


class WebhookSender:
    """Delivers webhooks in background tasks; `aclose` lets in-flight ones finish briefly."""

    def __init__(
        self,
        config: WebhookConfig,
        *,
        attempts: int = 5,
        first_delay: float = 0.5,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self._transport = transport
        self._attempts = attempts
        self._first_delay = first_delay
        self._timeout = httpx.Timeout(timeout, connect=5.0)
        self._tasks: set[asyncio.Task[None]] = set()

    async def check(self, url: str) -> IPAddress | None:
        return await check_webhook_url(url, self.config)

    def send(self, url: str, payload: dict[str, Any]) -> None:
        name = f"webhook-of-run-{payload.get('run_id')}"
        task = asyncio.create_task(self._deliver(url, payload), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self, grace: float = 2.0) -> None:
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=grace)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(BaseException):
                await task

    def _fields(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The payload, cut to `webhooks.allowed_fields` when the config names them."""
        allowed = self.config.allowed_fields
        if allowed is None:
            return payload
        return {key: value for key, value in payload.items() if key in allowed}

    async def _deliver(self, url: str, payload: dict[str, Any]) -> None:
        run_id = payload.get("run_id")
        shown = redact_url(url)
        try:
            address = await self.check(url)
        except WebhookRefused as exc:
            logger.warning("webhook of run %s not sent: %s", run_id, exc.detail)
            return
        target, pinned_headers, extensions = pinned_request(url, address)
        headers = {"Content-Type": "application/json", **self.config.headers, **pinned_headers}
        async with httpx.AsyncClient(
            timeout=self._timeout, follow_redirects=False, transport=self._transport
        ) as client:
            for attempt in range(1, self._attempts + 1):
                body = dumps(self._fields({**payload, "webhook_sent_at": utc_now()}))
                failure: str
                try:
                    request = client.build_request(
                        "POST", target, content=body, headers=headers, extensions=extensions
                    )
                    response = await client.send(request)
                except httpx.HTTPError as exc:
                    failure = f"{type(exc).__name__}: {redact_text(str(exc))}"
                else:
                    if response.status_code < 400:
                        logger.info("webhook of run %s delivered to %s", run_id, shown)
                        return
                    failure = f"HTTP {response.status_code}"
                    if response.status_code < 500 and response.status_code != 429:
                        logger.warning(
                            "webhook of run %s refused by %s: %s", run_id, shown, failure
                        )
                        return
                if attempt == self._attempts:
                    logger.warning(
                        "webhook of run %s to %s failed %d times, giving up: %s",
                        run_id,
                        shown,
                        attempt,
                        failure,
                    )
                    return
                await asyncio.sleep(self._first_delay * 2 ** (attempt - 1))
