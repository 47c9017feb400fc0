"""Which web pages and which `Host` names may reach the server.

A server on 127.0.0.1 is reachable by every page the user's browser opens. Two checks stop
those pages from driving it (starting runs, reading or deleting threads):

* **Origin.** A browser names the page behind every cross-origin request in `Origin`. A
  request whose origin is neither the server's own nor allowed by `http.cors` is refused
  outright with a 403, not only denied the CORS headers, so even requests a browser sends
  without a preflight (a no-cors POST) do nothing. Clients that are not browsers send no
  `Origin` and are unaffected.
* **Host (DNS rebinding).** A page on `evil.example` can re-point its own name at 127.0.0.1;
  its requests are then same-origin and carry `Host: evil.example`. On a loopback bind only
  loopback names and `http.allowed_hosts` are answered.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import re
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph.config import CorsConfig
from open_langgraph.server.loopback import is_loopback

logger = logging.getLogger(__name__)

#: Distinct refused origins and hosts logged before the guard stops logging new ones.
_MAX_LOGGED_REFUSALS = 100

STUDIO_ORIGIN = "https://smith.langchain.com"
"""LangGraph Studio's page; allowed when the config has no `http.cors`."""

# Without `http.cors`, only LangGraph Studio's page may call from a browser: any other page
# the user visits could otherwise start runs or read threads on a local server.
DEFAULT_CORS = CorsConfig(allow_origins=[STUDIO_ORIGIN])


@functools.lru_cache(maxsize=256)
def is_loopback_host(host: str | None) -> bool:
    """Whether a bind address (`--host`) only accepts connections from this machine.

    Cached: the request guard asks it about every request's `Host`, nearly always the same
    few names, and parsing an IP address each time was a visible share of a request."""
    if not host:
        return False
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The name of a `Host` header value, without port, brackets or trailing dot."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header[1:]
    return header.rsplit(":", 1)[0].rstrip(".") if ":" in header else header.rstrip(".")


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The `Host` names answered; None of `allowed` with a non-loopback bind: all of them."""

    bound_host: str | None
    allowed: tuple[str, ...] | None

    @property
    def enforced(self) -> bool:
        if self.allowed is not None and "*" in self.allowed:
            return False
        return self.allowed is not None or is_loopback_host(self.bound_host)

    def allows(self, header: str | None) -> bool:
        if not self.enforced or header is None:
            return True  # no Host at all (HTTP/1.0) is not a browser being misdirected
        name = _host_name(header)
        if is_loopback_host(name):
            return True
        if self.bound_host and name == _host_name(self.bound_host):
            return True
        return any(
            name == entry or (entry.startswith("*.") and name.endswith(entry[1:]))
            for entry in self.allowed or ()
        )


@dataclass(frozen=True, slots=True)
class OriginPolicy:
    """The browser origins allowed to call, as `http.cors` (or its default) says."""

    origins: frozenset[str]
    regex: re.Pattern[str] | None = None

    @classmethod
    def from_cors(cls, cors: CorsConfig) -> OriginPolicy:
        regex = re.compile(cors.allow_origin_regex) if cors.allow_origin_regex else None
        return cls(frozenset(o.rstrip("/") for o in cors.allow_origins), regex)

    def allows(self, origin: str, host: str | None) -> bool:
        if "*" in self.origins or origin in self.origins:
            return True
        if self.regex is not None and self.regex.fullmatch(origin):
            return True
        # The server's own pages (`/docs`) send their origin on POSTs; it matches the Host.
        own = origin.split("://", 1)[-1]
        return host is not None and own.lower() == host.strip().lower()


class RequestGuard:
    """ASGI middleware refusing misdirected hosts and foreign origins with a JSON 403.

    A browser hides the 403 from the page (a refused preflight, no CORS headers): the user of
    a web client sees only "Failed to connect". So each refused value is logged once, at
    WARNING, with the config key that admits it.
    """

    def __init__(self, app: ASGIApp, *, hosts: HostPolicy, origins: OriginPolicy) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = origins
        self._logged: set[str] = set()

    def _log_once(self, value: str, detail: str) -> None:
        # Bounded: a stream of made-up origins must not grow memory or flood the log.
        if value in self._logged or len(self._logged) >= _MAX_LOGGED_REFUSALS:
            return
        self._logged.add(value)
        logger.warning("refused a request: %s", detail)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or is_loopback(scope):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        detail: str | None = None
        if not self.hosts.allows(host):
            detail = (
                f"host {_host_name(host or '')!r} is not served here; add it to "
                "http.allowed_hosts in the config file if it should be"
            )
            self._log_once(f"host:{_host_name(host or '')}", detail)
        else:
            origin = headers.get("origin")
            if origin is not None and not self.origins.allows(origin.rstrip("/"), host):
                detail = (
                    f"origin {origin!r} may not call this server; add it to "
                    "http.cors.allow_origins in the config file if it should (an origin "
                    "is scheme, host and port: localhost and 127.0.0.1 differ)"
                )
                self._log_once(f"origin:{origin}", detail)
        if detail is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # the thread protocol's: refused as the SDK reads it
            await send({"type": "websocket.close", "code": 4403, "reason": ""})
            return
        await JSONResponse({"detail": detail}, status_code=403)(scope, receive, send)
