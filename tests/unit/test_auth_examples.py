"""The auth examples in examples/auth, called directly: who gets in, and what they may touch.

The server calls these same functions (authenticate by parameter name, then the most specific
`@auth.on` handler); here they are called without a server so every refusal is checked fast.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import importlib.util
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from langgraph_sdk import Auth

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "auth"
SECRET = "s3cret-for-tests-only-0123456789abcdef"


def load(name: str) -> ModuleType:
    """Import an example by file path, as `olg serve` does with `auth.path`."""
    spec = importlib.util.spec_from_file_location(f"auth_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


api_key = load("api_key_auth")
jwt_auth = load("jwt_auth")


@dataclass
class User:
    """A minimal `BaseUser`, as the server builds from what authenticate returned."""

    identity: str
    permissions: list[str] = field(default_factory=list)
    display_name: str = ""
    is_authenticated: bool = True

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __contains__(self, key: str) -> bool:
        return hasattr(self, key)


def handler_for(auth: Auth, resource: str, action: str) -> Any:
    """The handler the Platform runs: (resource, action), resource, action, then global."""
    for key in ((resource, action), (resource, "*"), ("*", action)):
        if key in auth._handlers:
            return auth._handlers[key][0]
    return auth._global_handlers[0] if auth._global_handlers else None


async def authorize(
    module: ModuleType, user: User, resource: str, action: str, value: dict[str, Any]
) -> Any:
    ctx = Auth.types.AuthContext(
        permissions=user.permissions, user=user, resource=resource, action=action
    )
    return await handler_for(module.auth, resource, action)(ctx=ctx, value=value)


async def refused(call: Any) -> Auth.exceptions.HTTPException:
    with pytest.raises(Auth.exceptions.HTTPException) as info:
        await call
    assert info.value.status_code == 401
    return info.value


# ------------------------------------------------------------------------------------------
# API keys
# ------------------------------------------------------------------------------------------


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLG_API_KEYS", " alice:key-a , bob:key:with:colons,")
    monkeypatch.setenv("OLG_ADMIN_USERS", "bob")


@pytest.mark.usefixtures("keys")
async def test_api_key_in_x_api_key_header_identifies_its_user() -> None:
    user = await api_key.authenticate(headers={b"x-api-key": b"key-a"})
    assert user == {"identity": "alice", "permissions": []}
    # str headers (another server's shape) work the same; a key may contain ':'.
    user = await api_key.authenticate(headers={"x-api-key": "key:with:colons"})
    assert user == {"identity": "bob", "permissions": ["admin"]}


@pytest.mark.usefixtures("keys")
async def test_api_key_as_bearer_token_is_accepted() -> None:
    user = await api_key.authenticate(headers={}, authorization="Bearer key-a")
    assert user["identity"] == "alice"


@pytest.mark.usefixtures("keys")
@pytest.mark.parametrize(
    ("headers", "authorization", "detail"),
    [
        ({b"x-api-key": b"key-b"}, None, "invalid api key"),
        ({b"x-api-key": b"key-a "[:-2]}, None, "invalid api key"),  # a prefix of a real key
        ({b"x-api-key": b"alice:key-a"}, None, "invalid api key"),
        ({}, "Basic a2V5LWE=", "missing api key"),
        ({}, None, "missing api key"),
        (None, None, "missing api key"),
    ],
)
async def test_wrong_or_missing_api_key_is_401(
    headers: dict[bytes, bytes] | None, authorization: str | None, detail: str
) -> None:
    error = await refused(api_key.authenticate(headers=headers, authorization=authorization))
    assert error.detail == detail


async def test_no_configured_keys_refuses_everyone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLG_API_KEYS", raising=False)
    await refused(api_key.authenticate(headers={b"x-api-key": b""}, authorization="Bearer "))
    await refused(api_key.authenticate(headers={b"x-api-key": b"anything"}))


@pytest.mark.parametrize("raw", ["alice", "alice:", ":key", "alice:k,bob"])
def test_malformed_key_list_is_refused_with_the_entry_named(raw: str) -> None:
    with pytest.raises(ValueError, match="OLG_API_KEYS: entry"):
        api_key.parse_api_keys(raw)


def test_key_lookup_compares_with_every_key() -> None:
    pairs = api_key.parse_api_keys("a:same,b:same,c:other")
    # The first match wins, but the loop never stops early (constant time over the key list).
    assert api_key.find_identity("same", pairs) == "a"
    assert api_key.find_identity("other", pairs) == "c"
    assert api_key.find_identity("nope", pairs) is None


# ------------------------------------------------------------------------------------------
# JWT, HS256
# ------------------------------------------------------------------------------------------


def hs256(claims: dict[str, Any], secret: str = SECRET) -> str:
    return jwt.encode({"exp": int(time.time()) + 300, **claims}, secret, algorithm="HS256")


@pytest.fixture
def hs_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLG_JWT_SECRET", SECRET)
    for name in ("OLG_JWT_JWKS_FILE", "OLG_JWT_AUDIENCE", "OLG_JWT_ISSUER"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("hs_env")
async def test_hs256_token_gives_sub_and_permissions() -> None:
    token = hs256(
        {"sub": "alice", "scope": "admin threads:write", "permissions": ["admin", "x"], "name": "A"}
    )
    user = await jwt_auth.authenticate(authorization=f"Bearer {token}")
    assert user == {
        "identity": "alice",
        "permissions": ["admin", "threads:write", "x"],
        "display_name": "A",
    }


@pytest.mark.usefixtures("hs_env")
@pytest.mark.parametrize(
    ("token", "detail"),
    [
        (lambda: hs256({"sub": "alice", "exp": int(time.time()) - 10}), "token expired"),
        (
            lambda: hs256({"sub": "alice"}, secret="another-secret-0123456789abcdef-xyz"),
            "invalid token",
        ),
        (
            lambda: jwt.encode({"sub": "alice"}, SECRET, algorithm="HS256"),
            "invalid token",
        ),  # no exp
        (lambda: hs256({}), "invalid token"),  # no sub
        (lambda: hs256({"sub": "alice"})[:-3] + "abc", "invalid token"),
        (lambda: jwt.encode({"sub": "a", "exp": 2**40}, None, algorithm="none"), "unsupported"),
        (lambda: "not-a-jwt", "malformed token"),
    ],
)
async def test_bad_hs256_tokens_are_401(token: Any, detail: str) -> None:
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {token()}"))
    assert detail in error.detail
    assert error.headers == {"WWW-Authenticate": "Bearer"}


@pytest.mark.usefixtures("hs_env")
@pytest.mark.parametrize("authorization", [None, "", "Bearer ", f"Basic {SECRET}"])
async def test_missing_bearer_token_is_401(authorization: str | None) -> None:
    error = await refused(jwt_auth.authenticate(authorization=authorization))
    assert error.detail == "missing bearer token"


@pytest.mark.usefixtures("hs_env")
async def test_audience_and_issuer_are_checked_when_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OLG_JWT_AUDIENCE", "olg")
    monkeypatch.setenv("OLG_JWT_ISSUER", "https://issuer.example")
    good = {"sub": "alice", "aud": "olg", "iss": "https://issuer.example"}
    assert (await jwt_auth.authenticate(authorization=f"Bearer {hs256(good)}"))["identity"]
    wrong_aud = hs256({**good, "aud": "someone-else"})
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {wrong_aud}"))
    assert error.detail == "token audience not accepted"
    no_aud = hs256({"sub": "alice", "iss": "https://issuer.example"})
    await refused(jwt_auth.authenticate(authorization=f"Bearer {no_aud}"))
    wrong_iss = hs256({**good, "iss": "https://evil.example"})
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {wrong_iss}"))
    assert error.detail == "token issuer not accepted"


@pytest.mark.usefixtures("hs_env")
async def test_audience_in_token_is_ignored_when_none_is_configured() -> None:
    user = await jwt_auth.authenticate(authorization=f"Bearer {hs256({'sub': 'a', 'aud': 'x'})}")
    assert user["identity"] == "a"


# ------------------------------------------------------------------------------------------
# JWT, RS256 with a JWKS file
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rsa_keys() -> tuple[rsa.RSAPrivateKey, rsa.RSAPrivateKey]:
    return (
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
    )


@pytest.fixture
def jwks_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rsa_keys: tuple[rsa.RSAPrivateKey, ...]
) -> Path:
    """A JWKS holding the public half of the first key, as kid 'k1'; no HS256 secret."""
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa_keys[0].public_key()))
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [{**public, "kid": "k1", "use": "sig"}]}))
    monkeypatch.setenv("OLG_JWT_JWKS_FILE", str(path))
    for name in ("OLG_JWT_SECRET", "OLG_JWT_AUDIENCE", "OLG_JWT_ISSUER"):
        monkeypatch.delenv(name, raising=False)
    return path


def rs256(key: rsa.RSAPrivateKey, kid: str | None = "k1", **claims: Any) -> str:
    headers = {"kid": kid} if kid else None
    body = {"sub": "carol", "exp": int(time.time()) + 300, **claims}
    return jwt.encode(body, key, algorithm="RS256", headers=headers)


async def test_rs256_token_signed_by_a_jwks_key_is_accepted(
    jwks_file: Path, rsa_keys: tuple[rsa.RSAPrivateKey, ...]
) -> None:
    user = await jwt_auth.authenticate(authorization=f"Bearer {rs256(rsa_keys[0])}")
    assert user == {"identity": "carol", "permissions": []}
    # A one-key JWKS also verifies a token without kid.
    no_kid = rs256(rsa_keys[0], kid=None)
    assert (await jwt_auth.authenticate(authorization=f"Bearer {no_kid}"))["identity"] == "carol"


async def test_rs256_tokens_not_matching_the_jwks_are_401(
    jwks_file: Path, rsa_keys: tuple[rsa.RSAPrivateKey, ...]
) -> None:
    other_key = rs256(rsa_keys[1])
    assert (await refused(jwt_auth.authenticate(authorization=f"Bearer {other_key}"))).detail == (
        "invalid token"
    )
    unknown_kid = rs256(rsa_keys[0], kid="k2")
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {unknown_kid}"))
    assert error.detail == "unknown signing key"
    expired = rs256(rsa_keys[0], exp=int(time.time()) - 5)
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {expired}"))
    assert error.detail == "token expired"
    # HS256 "signed" with the RSA public key must not pass (algorithm confusion).
    forged = hmac_signed_with_public_key(rsa_keys[0], {"sub": "carol", "exp": 2**40})
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {forged}"))
    assert error.detail == "HS256 tokens are not accepted"


def hmac_signed_with_public_key(key: rsa.RSAPrivateKey, claims: dict[str, Any]) -> str:
    """An HS256 token whose HMAC secret is the public PEM (PyJWT refuses to make one)."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    signing_input = f"{header}.{b64(json.dumps(claims).encode())}"
    signature = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


async def test_replaced_jwks_file_is_reread(
    jwks_file: Path, rsa_keys: tuple[rsa.RSAPrivateKey, ...]
) -> None:
    token = rs256(rsa_keys[1], kid="k2")
    await refused(jwt_auth.authenticate(authorization=f"Bearer {token}"))
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa_keys[1].public_key()))
    replacement = jwks_file.with_suffix(".new")
    replacement.write_text(json.dumps({"keys": [{**public, "kid": "k2"}]}))
    replacement.replace(jwks_file)  # a new inode, so a new mtime even on coarse clocks
    assert (await jwt_auth.authenticate(authorization=f"Bearer {token}"))["identity"] == "carol"


async def test_unreadable_jwks_file_is_401_not_a_crash(
    jwks_file: Path, rsa_keys: tuple[rsa.RSAPrivateKey, ...]
) -> None:
    jwks_file.write_text("{not json")
    error = await refused(jwt_auth.authenticate(authorization=f"Bearer {rs256(rsa_keys[0])}"))
    assert error.detail == "token signing keys unavailable"


# ------------------------------------------------------------------------------------------
# Authorization: owner-only threads, shared read-only assistants (same rules in both files)
# ------------------------------------------------------------------------------------------

EXAMPLE_MODULES = pytest.mark.parametrize("module", [api_key, jwt_auth], ids=["api_key", "jwt"])


@EXAMPLE_MODULES
async def test_thread_create_stamps_the_owner_and_keeps_other_metadata(module: ModuleType) -> None:
    value: dict[str, Any] = {"thread_id": None, "metadata": {"topic": "x", "owner": "mallory"}}
    result = await authorize(module, User("alice"), "threads", "create", value)
    assert result == {"owner": "alice"}
    assert value["metadata"] == {"topic": "x", "owner": "alice"}
    value = {"thread_id": None, "metadata": None}
    await authorize(module, User("alice"), "threads", "create", value)
    assert value["metadata"] == {"owner": "alice"}


@EXAMPLE_MODULES
@pytest.mark.parametrize(
    ("resource", "action"),
    [
        ("threads", "read"),
        ("threads", "update"),
        ("threads", "delete"),
        ("threads", "search"),
        ("threads", "create_run"),
        ("crons", "search"),
    ],
)
async def test_every_thread_action_is_filtered_to_the_owner(
    module: ModuleType, resource: str, action: str
) -> None:
    value: dict[str, Any] = {"thread_id": "t", "metadata": {}}
    assert await authorize(module, User("bob"), resource, action, value) == {"owner": "bob"}


@EXAMPLE_MODULES
async def test_create_run_records_the_owner_in_run_metadata(module: ModuleType) -> None:
    value: dict[str, Any] = {"thread_id": "t", "assistant_id": "a", "metadata": {"k": 1}}
    await authorize(module, User("bob"), "threads", "create_run", value)
    assert value["metadata"] == {"k": 1, "owner": "bob"}


@EXAMPLE_MODULES
@pytest.mark.parametrize("action", ["read", "search"])
async def test_anyone_reads_assistants(module: ModuleType, action: str) -> None:
    value: dict[str, Any] = {"assistant_id": "a", "metadata": {}}
    assert await authorize(module, User("alice"), "assistants", action, value) is True
    assert value == {"assistant_id": "a", "metadata": {}}  # no owner filter or stamp


@EXAMPLE_MODULES
@pytest.mark.parametrize("action", ["create", "update", "delete"])
async def test_only_admins_write_assistants(module: ModuleType, action: str) -> None:
    value: dict[str, Any] = {"assistant_id": "a", "graph_id": "g", "metadata": {}}
    assert await authorize(module, User("alice"), "assistants", action, value) is False
    writer = User("root", permissions=["threads:write"])
    assert await authorize(module, writer, "assistants", action, value) is False
    admin = User("root", permissions=["admin"])
    assert await authorize(module, admin, "assistants", action, value) is True
