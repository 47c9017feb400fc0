"""API-key authentication for `olg serve`: owner-only threads, shared read-only assistants.

Turn it on in open_langgraph.json::

    "auth": {"path": "./examples/auth/api_key_auth.py:auth"}

Environment:

- ``OLG_API_KEYS``: comma-separated ``identity:key`` pairs, e.g. ``alice:k3y-a,bob:k3y-b``.
  The identity is everything before the first ``:``, so a key may itself contain ``:``.
  Whitespace around entries is ignored. Keys are compared in constant time.
- ``OLG_ADMIN_USERS``: comma-separated identities that get the ``admin`` permission, which is
  what creating, updating and deleting assistants needs.

A client sends its key as ``x-api-key: KEY`` (what ``get_client(api_key=...)`` sends) or as
``Authorization: Bearer KEY``. This file is standalone on purpose: copy it into your project.
"""

from __future__ import annotations

import functools
import hmac
import logging
import os
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

KEYS_ENV = "OLG_API_KEYS"
ADMINS_ENV = "OLG_ADMIN_USERS"
ADMIN_PERMISSION = "admin"

logger = logging.getLogger(__name__)
auth = Auth()


@functools.lru_cache(maxsize=4)
def parse_api_keys(raw: str) -> tuple[tuple[str, bytes], ...]:
    """``identity:key`` pairs from OLG_API_KEYS; cached on the raw text, so parsing is paid once.

    A malformed entry raises ValueError naming it, so a typo stops start-up instead of locking
    a user out silently.
    """
    pairs: list[tuple[str, bytes]] = []
    for entry in raw.split(","):
        entry = entry.strip()
        if not entry:
            continue
        identity, sep, key = entry.partition(":")
        identity, key = identity.strip(), key.strip()
        if not sep or not identity or not key:
            raise ValueError(f"{KEYS_ENV}: entry {identity or entry[:8]!r} is not 'identity:key'")
        pairs.append((identity, key.encode()))
    return tuple(pairs)


def parse_admins(raw: str) -> frozenset[str]:
    """Identities listed in OLG_ADMIN_USERS."""
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


def find_identity(presented: str, pairs: tuple[tuple[str, bytes], ...]) -> str | None:
    """The identity whose key equals `presented`, comparing against every key in constant time.

    All keys are compared even after a match, so the time taken says nothing about which key
    (or how much of it) matched.
    """
    candidate = presented.encode()
    found: str | None = None
    for identity, key in pairs:
        if hmac.compare_digest(candidate, key) and found is None:
            found = identity
    return found


def header(headers: Mapping[Any, Any] | None, name: str) -> str | None:
    """One request header, whether the server hands headers over as bytes or as str."""
    if not headers:
        return None
    value = headers.get(name.encode(), headers.get(name))
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value


def presented_key(headers: Mapping[Any, Any] | None, authorization: str | None) -> str | None:
    """The key from ``x-api-key``, else from ``Authorization: Bearer``."""
    key = header(headers, "x-api-key")
    if key:
        return key.strip()
    authorization = authorization or header(headers, "authorization")
    if authorization:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


# Fail at start-up (when the server imports this file) on a malformed key list, and say once
# that an empty one refuses everybody.
if not parse_api_keys(os.environ.get(KEYS_ENV, "")):
    logger.warning("%s is empty: every request will be refused with 401", KEYS_ENV)


@auth.authenticate
async def authenticate(
    headers: Mapping[Any, Any] | None = None, authorization: str | None = None
) -> Auth.types.MinimalUserDict:
    """Who is calling: the identity whose key the request carries, or 401."""
    key = presented_key(headers, authorization)
    if key is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail="missing api key")
    identity = find_identity(key, parse_api_keys(os.environ.get(KEYS_ENV, "")))
    if identity is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail="invalid api key")
    admins = parse_admins(os.environ.get(ADMINS_ENV, ""))
    return {
        "identity": identity,
        "permissions": [ADMIN_PERMISSION] if identity in admins else [],
    }


@auth.on
async def owner_only(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType:
    """Threads, their runs and crons belong to whoever created them; nobody else sees them.

    On create the owner is written into the new resource's metadata; every other action gets
    the filter, so another user's thread answers 404 and never shows up in a search.
    """
    if ctx.action in ("create", "create_run"):
        metadata = dict(value.get("metadata") or {})
        metadata["owner"] = ctx.user.identity
        value["metadata"] = metadata
    return {"owner": ctx.user.identity}


@auth.on.assistants.read
@auth.on.assistants.search
async def read_assistants(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> bool:
    """Assistants (including each graph's system assistant) are shared: everyone may read."""
    return True


@auth.on.assistants.create
@auth.on.assistants.update
@auth.on.assistants.delete
async def write_assistants(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> bool:
    """Only admins change assistants; anyone else gets 403."""
    return ADMIN_PERMISSION in ctx.permissions


@auth.on.store
async def own_store_namespace(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    """Store items belong to whoever wrote them: every namespace (and a listing's prefix) is
    put under the caller's identity. Items have no metadata, so `owner_only`'s filter could
    not apply to them; the rewritten namespace is the one the server uses."""
    value["namespace"] = (ctx.user.identity, *(value.get("namespace") or ()))
