"""Both examples in examples/auth served by a live `olg serve`, driven through langgraph_sdk.

What a user of either file relies on: no credential, no access; each user sees only their own
threads (another user's thread is 404, never listed); everybody may run the shared assistants;
only admins change them.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, write_config

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "auth"


@dataclass
class Served:
    """A server of one example; the `get_client` arguments that make a client alice (an
    admin) or bob (not one); headers carrying a credential the server must refuse."""

    server: ServerProcess
    alice: dict[str, Any]
    bob: dict[str, Any]
    wrong: dict[str, str]


def serve(directory: Path, example: str, env: dict[str, str]) -> ServerProcess:
    """The server of one example, not started yet: `with` starts and closes it."""
    config = write_config(directory, auth={"path": f"{EXAMPLES / example}:auth"})
    return ServerProcess(config, directory / "olg.db", directory / "server.log", env=env)


def api_key_server(directory: Path) -> Served:
    alice_key, bob_key = secrets.token_hex(16), secrets.token_hex(16)
    env = {"OLG_API_KEYS": f"alice:{alice_key},bob:{bob_key}", "OLG_ADMIN_USERS": "alice"}
    return Served(
        serve(directory, "api_key_auth.py", env),
        # The SDK sends `api_key` as x-api-key (and refuses x-api-key in `headers`).
        alice={"api_key": alice_key},
        bob={"headers": {"Authorization": f"Bearer {bob_key}"}},  # the other accepted header
        wrong={"x-api-key": secrets.token_hex(16)},
    )


def jwt_server(directory: Path) -> Served:
    """HS256 for alice (with the admin scope), RS256 through a JWKS file for bob."""
    secret = secrets.token_hex(32)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwks = directory / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**public, "kid": "k1"}]}))
    env = {
        "OLG_JWT_SECRET": secret,
        "OLG_JWT_JWKS_FILE": str(jwks),
        "OLG_JWT_AUDIENCE": "olg-tests",
        "OLG_JWT_ISSUER": "",
    }
    exp = int(time.time()) + 3600
    alice = jwt.encode(
        {"sub": "alice", "aud": "olg-tests", "exp": exp, "scope": "admin"}, secret, "HS256"
    )
    bob = jwt.encode(
        {"sub": "bob", "aud": "olg-tests", "exp": exp}, key, "RS256", headers={"kid": "k1"}
    )
    other_audience = jwt.encode({"sub": "alice", "aud": "elsewhere", "exp": exp}, secret, "HS256")
    return Served(
        serve(directory, "jwt_auth.py", env),
        alice={"headers": {"Authorization": f"Bearer {alice}"}},
        bob={"headers": {"Authorization": f"Bearer {bob}"}},
        wrong={"Authorization": f"Bearer {other_audience}"},
    )


@pytest.fixture(scope="module", params=["api_key", "jwt"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp(f"olg-auth-{request.param}")
    result = (api_key_server if request.param == "api_key" else jwt_server)(directory)
    with result.server:
        yield result


@pytest.fixture
async def alice(served: Served) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.server.url, **{"api_key": None, **served.alice}) as client:
        yield client


@pytest.fixture
async def bob(served: Served) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.server.url, **{"api_key": None, **served.bob}) as client:
        yield client


async def status_of(call: Awaitable[Any]) -> int:
    with pytest.raises(httpx.HTTPStatusError) as info:
        await call
    return info.value.response.status_code


async def test_no_or_wrong_credential_is_401_and_health_stays_open(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.server.url) as http:
        assert (await http.get("/ok")).status_code == 200
        for headers in ({}, served.wrong):
            response = await http.post("/threads", json={}, headers=headers)
            assert response.status_code == 401, response.text
            assert isinstance(response.json()["detail"], str)
            response = await http.post("/threads/search", json={}, headers=headers)
            assert response.status_code == 401
    async with sdk_client(served.server.url, api_key=None) as anonymous:
        assert await status_of(anonymous.threads.search()) == 401
        assert await status_of(anonymous.assistants.search()) == 401


async def test_a_thread_is_visible_to_its_owner_only(
    alice: LangGraphClient, bob: LangGraphClient
) -> None:
    thread = await alice.threads.create(metadata={"topic": "secret plans"})
    thread_id = thread["thread_id"]
    assert thread["metadata"]["owner"] == "alice"
    assert (await alice.threads.get(thread_id))["metadata"]["topic"] == "secret plans"
    result = await alice.runs.wait(thread_id, "counter", input={"count": 0})
    assert result["count"] == 2

    assert await status_of(bob.threads.get(thread_id)) == 404
    assert await status_of(bob.threads.get_state(thread_id)) == 404
    assert await status_of(bob.threads.update(thread_id, metadata={"owner": "bob"})) == 404
    assert await status_of(bob.runs.list(thread_id)) == 404
    assert await status_of(bob.runs.wait(thread_id, "counter", input={"count": 0})) == 404
    assert await status_of(bob.threads.delete(thread_id)) == 404
    bob_ids = {t["thread_id"] for t in await bob.threads.search(limit=1000)}
    assert thread_id not in bob_ids
    assert thread_id in {t["thread_id"] for t in await alice.threads.search(limit=1000)}
    # Bob's attempts changed nothing.
    after = await alice.threads.get(thread_id)
    assert after["metadata"]["owner"] == "alice"
    assert (await alice.threads.get_state(thread_id))["values"]["count"] == 2


async def test_owner_cannot_be_forged_on_create(bob: LangGraphClient) -> None:
    thread = await bob.threads.create(metadata={"owner": "alice"})
    assert thread["metadata"]["owner"] == "bob"
    assert (await bob.threads.get(thread["thread_id"]))["thread_id"] == thread["thread_id"]


async def test_everyone_runs_shared_assistants_on_their_own_threads(bob: LangGraphClient) -> None:
    assistant = await bob.assistants.get("counter")
    assert assistant["graph_id"] == "counter"
    assert any(a["graph_id"] == "counter" for a in await bob.assistants.search(limit=100))
    thread = await bob.threads.create()
    result = await bob.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    assert result["count"] == 2


async def test_only_admins_change_assistants(alice: LangGraphClient, bob: LangGraphClient) -> None:
    assert await status_of(bob.assistants.create("counter", name="bob's")) == 403
    created = await alice.assistants.create("counter", name="shared")
    assistant_id = created["assistant_id"]
    assert (await bob.assistants.get(assistant_id))["name"] == "shared"
    assert await status_of(bob.assistants.update(assistant_id, name="mine")) == 403
    assert await status_of(bob.assistants.delete(assistant_id)) == 403
    await alice.assistants.delete(assistant_id)
