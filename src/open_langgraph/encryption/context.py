"""The encryption context of the request (or run) being served.

A client names it in the `X-Encryption-Context` header (base64 of a JSON object), and an
`@encryption.context` handler may derive it from the authenticated user
(`server/encryption_context.py`). Encrypting handlers receive it as `ctx.metadata`; it is
stored next to each ciphertext, so the decrypting handler gets the context the data was
written with, whoever reads it later. A run executes in the context of the request that
created it (`RunManager.submit` keeps it).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import orjson

HEADER = "x-encryption-context"

_current: ContextVar[dict[str, Any] | None] = ContextVar("olg_encryption_context", default=None)


def current_context() -> dict[str, Any]:
    """The context new ciphertext is written with; empty outside a request."""
    return _current.get() or {}


@contextlib.contextmanager
def using_context(context: dict[str, Any] | None) -> Iterator[None]:
    """Encrypt what the block writes with `context`."""
    token = _current.set(context)
    try:
        yield
    finally:
        _current.reset(token)


def parse_header(value: str) -> dict[str, Any]:
    """The context an `X-Encryption-Context` header carries.

    Raises:
        ValueError: the header is not base64 of a JSON object.
    """
    try:
        context = orjson.loads(base64.b64decode(value.encode(), validate=True))
    except (binascii.Error, ValueError, orjson.JSONDecodeError) as exc:
        raise ValueError(
            "X-Encryption-Context must be the base64 encoding of a JSON object"
        ) from exc
    if not isinstance(context, dict):
        raise ValueError("X-Encryption-Context must be the base64 encoding of a JSON object")
    return context
