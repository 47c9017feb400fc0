"""MCP's vocabulary as this server speaks it: protocol versions, error codes, result shapes.

The endpoint answers MCP's JSON-RPC itself (as langgraph-api does) rather than through the
`mcp` package, so serving never depends on which `mcp` a user's graphs install. Two eras of the
protocol reach it over the same streamable HTTP POST:

- the handshake era (2024-11-05 to 2025-11-25): `initialize`, then requests carrying the
  negotiated version in the `MCP-Protocol-Version` header (absent: 2025-03-26, as the
  transport specifies);
- the per-request era (2026-07-28): no handshake; every request carries the version, the
  client's capabilities and its identity in `params._meta`, mirrored in the
  `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers; `server/discover` tells a
  client what the server speaks, and results are tagged `resultType`.

Names and numbers follow the MCP specification and its reference SDK (`mcp_types`).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Final

from open_langgraph import __version__

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PER_REQUEST_VERSIONS: Final = ("2026-07-28",)
#: What a handshake-era request without the version header is taken to speak.
DEFAULT_HEADER_VERSION: Final = "2025-03-26"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
HEADER_MISMATCH: Final = -32020
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

#: The HTTP status of an error in the per-request era (the handshake era answers 200).
PER_REQUEST_ERROR_STATUS: Final = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"

VERSION_HEADER: Final = "mcp-protocol-version"
METHOD_HEADER: Final = "mcp-method"
NAME_HEADER: Final = "mcp-name"

SERVER_INFO: Final = {"name": "open-langgraph", "version": __version__}
CAPABILITIES: Final = {"tools": {"listChanged": False}}


class McpError(Exception):
    """A JSON-RPC error object to answer a request with."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def as_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def unsupported_version(requested: str) -> McpError:
    """The refusal of a version this server does not speak, naming the ones it does."""
    supported = [*HANDSHAKE_VERSIONS, *PER_REQUEST_VERSIONS]
    return McpError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version {requested!r}",
        {"supported": supported, "requested": requested},
    )


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The handshake's answer: the client's version when it is one of ours, else our newest
    (the client then decides whether it can go on)."""
    requested = params.get("protocolVersion")
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {"protocolVersion": version, "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO}


def discover_result() -> dict[str, Any]:
    """`server/discover`: every version spoken (handshake ones included, so a client that
    prefers the handshake may still use it), the capabilities, and who we are."""
    return {
        "supportedVersions": [*HANDSHAKE_VERSIONS, *PER_REQUEST_VERSIONS],
        "capabilities": CAPABILITIES,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {SERVER_INFO_KEY: SERVER_INFO},
    }


_BASE64_HEADER = re.compile(r"^=\?base64\?(.*)\?=$")


def header_value(raw: str | None) -> str | None:
    """A header as the client meant it: values that are not plain ASCII travel base64-wrapped
    (`=?base64?...?=`)."""
    match = _BASE64_HEADER.fullmatch(raw) if raw is not None else None
    if match is None:
        return raw
    try:
        return base64.b64decode(match.group(1), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None


def per_request_result(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A result as the per-request era tags it: complete, and a list not to be cached beyond
    the request (with auth, each user is listed their own assistants)."""
    tagged = {"resultType": "complete", **result}
    if method == "tools/list":
        tagged.update(ttlMs=0, cacheScope="private")
    return tagged


def check_envelope(params: dict[str, Any], headers: dict[str, str], method: str) -> None:
    """A per-request-era request's `_meta` envelope and the headers that mirror it.

    Raises:
        McpError: a missing envelope key, a header that disagrees with the body, or a version
            this server does not speak.
    """
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not {PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY} <= set(
        meta
    ):
        raise McpError(
            INVALID_PARAMS,
            f"params._meta must carry {PROTOCOL_VERSION_KEY!r} and {CLIENT_CAPABILITIES_KEY!r}",
        )
    version = meta[PROTOCOL_VERSION_KEY]
    if headers.get(VERSION_HEADER) != version:
        raise McpError(HEADER_MISMATCH, f"{VERSION_HEADER} header differs from params._meta")
    if headers.get(METHOD_HEADER) != method:
        raise McpError(HEADER_MISMATCH, f"{METHOD_HEADER} header differs from the method")
    name = params.get("name")
    if (
        method == "tools/call"
        and isinstance(name, str)
        and header_value(headers.get(NAME_HEADER)) != name
    ):
        raise McpError(HEADER_MISMATCH, f"{NAME_HEADER} header differs from the tool's name")
    if version not in PER_REQUEST_VERSIONS:
        raise unsupported_version(str(version))
