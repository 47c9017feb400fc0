"""Bearer-JWT authentication for `olg serve`: owner-only threads, shared read-only assistants.

Turn it on in open_langgraph.json::

    "auth": {"path": "./examples/auth/jwt_auth.py:auth"}

Tokens are verified with PyJWT (``pip install "open-langgraph[auth]"``). Environment:

- ``OLG_JWT_SECRET``: accept HS256 tokens signed with this shared secret.
- ``OLG_JWT_JWKS_FILE``: accept RS256 tokens signed by a key of this JWKS file (a JSON
  ``{"keys": [...]}``, as an identity provider publishes at its ``jwks_uri``). The token's
  ``kid`` picks the key; a token without ``kid`` is accepted only when the file holds one key.
  The file is re-read when it changes, so rotating keys needs no restart.
- ``OLG_JWT_AUDIENCE`` / ``OLG_JWT_ISSUER``: when set, ``aud`` / ``iss`` must match.

Set at least one of the first two. Every token needs ``exp`` and ``sub``; ``sub`` is the
identity. Permissions come from ``scope`` (space-separated, OAuth 2) and ``permissions`` (a
list); ``admin`` among them allows creating, updating and deleting assistants. A client sends
``Authorization: Bearer TOKEN``. This file is standalone on purpose: copy it into your project.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import Any

import jwt
from langgraph_sdk import Auth

SECRET_ENV = "OLG_JWT_SECRET"
JWKS_ENV = "OLG_JWT_JWKS_FILE"
AUDIENCE_ENV = "OLG_JWT_AUDIENCE"
ISSUER_ENV = "OLG_JWT_ISSUER"
ADMIN_PERMISSION = "admin"

logger = logging.getLogger(__name__)
auth = Auth()


def unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    """A 401 that tells the client which scheme to use."""
    return Auth.exceptions.HTTPException(
        status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"}
    )


@functools.lru_cache(maxsize=4)
def load_jwks(path: str, mtime_ns: int) -> jwt.PyJWKSet:
    """The key set in `path`; cached per modification time, so a replaced file is re-read."""
    return jwt.PyJWKSet.from_json(Path(path).read_text(encoding="utf-8"))


def rsa_key(kid: str | None) -> jwt.PyJWK:
    """The JWKS key that signed a token, by its `kid`."""
    path = os.environ.get(JWKS_ENV)
    if not path:
        raise unauthorized("RS256 tokens are not accepted")
    try:
        keys = load_jwks(path, os.stat(path).st_mtime_ns)
    except (OSError, ValueError, jwt.PyJWTError) as exc:
        logger.error("cannot read the JWKS file %s: %s", path, exc)
        raise unauthorized("token signing keys unavailable") from exc
    if kid is None:
        if len(keys.keys) == 1:
            return keys.keys[0]
        raise unauthorized("token has no kid")
    try:
        return keys[kid]
    except KeyError:
        raise unauthorized("unknown signing key") from None


def verification_key(token: str) -> tuple[str, Any]:
    """The algorithm to accept and the key to check it with, from the token's header.

    Each algorithm has its own key source, so an HS256 token can never be checked against the
    RSA public key (the classic algorithm-confusion attack).
    """
    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise unauthorized("malformed token") from None
    algorithm = header.get("alg")
    if algorithm == "HS256":
        secret = os.environ.get(SECRET_ENV)
        if not secret:
            raise unauthorized("HS256 tokens are not accepted")
        return algorithm, secret
    if algorithm == "RS256":
        return algorithm, rsa_key(header.get("kid"))
    raise unauthorized(f"unsupported token algorithm {algorithm!r}")


def permissions_of(claims: dict[str, Any]) -> list[str]:
    """Permissions from ``scope`` (space-separated) and ``permissions`` (a list), deduplicated."""
    found: list[str] = []
    scope = claims.get("scope")
    if isinstance(scope, str):
        found.extend(scope.split())
    listed = claims.get("permissions")
    if isinstance(listed, list):
        found.extend(item for item in listed if isinstance(item, str))
    return list(dict.fromkeys(found))


def verify(token: str) -> dict[str, Any]:
    """The token's claims once its signature, expiry and (when configured) aud/iss check out."""
    algorithm, key = verification_key(token)
    audience = os.environ.get(AUDIENCE_ENV) or None
    issuer = os.environ.get(ISSUER_ENV) or None
    try:
        return jwt.decode(
            token,
            key,
            algorithms=[algorithm],
            audience=audience,
            issuer=issuer,
            options={"require": ["exp", "sub"], "verify_aud": audience is not None},
        )
    except jwt.ExpiredSignatureError:
        raise unauthorized("token expired") from None
    except jwt.InvalidAudienceError:
        raise unauthorized("token audience not accepted") from None
    except jwt.InvalidIssuerError:
        raise unauthorized("token issuer not accepted") from None
    except jwt.InvalidTokenError:
        raise unauthorized("invalid token") from None


if not (os.environ.get(SECRET_ENV) or os.environ.get(JWKS_ENV)):
    logger.warning("neither %s nor %s is set: every request will be refused", SECRET_ENV, JWKS_ENV)


@auth.authenticate
async def authenticate(authorization: str | None = None) -> Auth.types.MinimalUserDict:
    """Who is calling: the verified token's ``sub``, or 401."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("missing bearer token")
    claims = verify(token.strip())
    subject = claims["sub"]
    if not isinstance(subject, str) or not subject:
        raise unauthorized("token sub must be a non-empty string")
    user: Auth.types.MinimalUserDict = {"identity": subject, "permissions": permissions_of(claims)}
    if isinstance(claims.get("name"), str):
        user["display_name"] = claims["name"]
    return user


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
    """Only tokens carrying the ``admin`` permission change assistants; anyone else gets 403."""
    return ADMIN_PERMISSION in ctx.permissions


@auth.on.store
async def own_store_namespace(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    """Store items belong to whoever wrote them: every namespace (and a listing's prefix) is
    put under the caller's identity. Items have no metadata, so `owner_only`'s filter could
    not apply to them; the rewritten namespace is the one the server uses."""
    value["namespace"] = (ctx.user.identity, *(value.get("namespace") or ()))
