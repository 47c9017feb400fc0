"""Two users on one live server with API-key auth: neither reaches the other's resources.

The server runs `tests/fixtures/auth_api_key.py:auth`: `key-a` is user-a, `key-b` is user-b,
threads (and the runs, state, history and streams reached through them) belong to the user
who created them, assistants are shared read-only. For every route of the server's own
`/openapi.json` a case below tries, as B, to read, list, count, change, delete, run on,
stream from, copy or cancel A's resources (also by passing A's ids inside config, metadata,
checkpoint, checkpoint_id, command, if_exists, batch bodies and the thread stream's
Last-Event-ID), checks that A's resources are exactly as they were, and that A can still do
the same thing. `test_every_route_has_a_case` makes a new route without a case fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.schema import StreamPart

from open_langgraph.services.assistants import system_assistant_id
from tests.fixtures.server import ServerProcess, serving, write_config
from tests.fixtures.streams import _parts as sse_parts

pytestmark = pytest.mark.e2e

AUTH_FILE = Path(__file__).parent.parent / "fixtures" / "auth_api_key.py"
#: Routes every client may call without a key (`/docs` and `/openapi.json` are not in the
#: schema, and are checked in `test_open_routes_need_no_key`).
OPEN_ROUTES = {("GET", "/ok")}
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
#: Put into A's thread values, so any answer to B that carries A's state is recognised.
MARKER = "a-secret-marker"
#: What a refused attempt on someone else's resource answers: it does not exist for B.
NOT_FOUND = (404,)
#: A request that smuggles A's ids is either refused or runs on B's own resources only.
SMUGGLE_REFUSED = (400, 404, 409, 422)
TIMEOUT = 20.0
#: B's own thread's input: nothing in it matches A's values.
B_VALUES = {"count": 10, "trail": ["b-own"]}


# -- the server and the two users ------------------------------------------------------------
@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-auth")
    config = write_config(directory, auth={"path": f"{AUTH_FILE}:auth"})
    with serving(directory, config) as process:
        yield process


@dataclass
class World:
    """Both users' clients and A's resources, made once for the module."""

    a: LangGraphClient
    b: LangGraphClient
    anon: httpx.AsyncClient
    spec: dict[str, Any]
    counter: str  # the shared system assistant of the `counter` graph
    nested: str  # the one of `nested`, which has a subgraph
    a_thread: str = ""  # a finished counter run on it, values carry MARKER
    a_run: str = ""
    a_checkpoint: str = ""
    busy_thread: str = ""  # A's thread with a run that runs until A cancels it
    busy_run: str = ""
    b_thread: str = ""  # B's own thread with a finished run
    b_run: str = ""
    baseline: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def snapshot(self, thread_id: str) -> dict[str, Any]:
        """Everything A can see of a thread, read as A."""
        thread = await self.a.threads.get(thread_id)
        state = await self.a.threads.get_state(thread_id)
        history = await self.a.threads.get_history(thread_id, limit=100)
        runs = await self.a.runs.list(thread_id, limit=100)
        return {
            "thread": thread,
            "values": state["values"],
            "next": state["next"],
            "checkpoint": state["checkpoint"],
            "history": [h["checkpoint"]["checkpoint_id"] for h in history],
            "runs": sorted((r["run_id"], r["status"], orjson.dumps(r["metadata"])) for r in runs),
        }

    async def assert_a_intact(self, *more: tuple[str, dict[str, Any]]) -> None:
        """A's module-wide threads (and any given `(thread_id, snapshot)`) are unchanged.

        A change is blamed on the case that made it only: the baseline moves on to it."""
        for thread_id, before in [*self.baseline.items(), *more]:
            after = await self.snapshot(thread_id)
            if after != before and thread_id in self.baseline:
                self.baseline[thread_id] = after
            assert after == before, f"A's thread {thread_id} changed:\n{before}\n->\n{after}"

    async def a_thread_with_run(self) -> tuple[str, str, str]:
        """A fresh thread of A with a finished counter run: (thread, run, last checkpoint)."""
        return await thread_with_run(self.a, {"topic": "a-only"}, {"count": 100, "trail": [MARKER]})


async def thread_with_run(
    client: LangGraphClient, metadata: dict[str, Any], values: dict[str, Any]
) -> tuple[str, str, str]:
    thread = await client.threads.create(metadata=metadata)
    thread_id = thread["thread_id"]
    run = await client.runs.create(thread_id, "counter", input=values)
    await client.runs.join(thread_id, run["run_id"])
    state = await client.threads.get_state(thread_id)
    return thread_id, run["run_id"], state["checkpoint"]["checkpoint_id"]


async def blocking_run(client: LangGraphClient, thread_id: str) -> str:
    """A run parked in its node until cancelled; returns once its first checkpoint is written."""
    run = await client.runs.create(thread_id, "blocking", input={"count": 0})
    async with asyncio.timeout(TIMEOUT):
        while (await client.threads.get_state(thread_id))["next"] != ["block"]:
            await asyncio.sleep(0.02)
    return run["run_id"]


def user_client(server: ServerProcess, key: str) -> LangGraphClient:
    # `headers={"x-api-key": ...}` is refused by the SDK (a reserved header): api_key sets it.
    return get_client(url=server.url, api_key=key, timeout=TIMEOUT)


@pytest.fixture(scope="module")
async def world(auth_server: ServerProcess) -> AsyncIterator[World]:
    a = user_client(auth_server, "key-a")
    b = user_client(auth_server, "key-b")
    anon = httpx.AsyncClient(base_url=auth_server.url, timeout=TIMEOUT)
    spec = (await anon.get("/openapi.json")).json()
    assistants = await a.assistants.search(limit=100)
    by_graph = {x["graph_id"]: x["assistant_id"] for x in assistants if x["name"] == x["graph_id"]}
    w = World(
        a=a, b=b, anon=anon, spec=spec, counter=by_graph["counter"], nested=by_graph["nested"]
    )
    w.a_thread, w.a_run, w.a_checkpoint = await w.a_thread_with_run()
    w.busy_thread = (await a.threads.create(metadata={"topic": "a-only"}))["thread_id"]
    w.busy_run = await blocking_run(a, w.busy_thread)
    w.b_thread, w.b_run, _ = await thread_with_run(b, {"topic": "b-only"}, B_VALUES)
    for thread_id in (w.a_thread, w.busy_thread):
        w.baseline[thread_id] = await w.snapshot(thread_id)
    try:
        yield w
    finally:
        with contextlib.suppress(httpx.HTTPError):
            await a.runs.cancel(w.busy_thread, w.busy_run, wait=True)
        for client in (a.http.client, b.http.client, anon):
            await client.aclose()


# -- helpers ------------------------------------------------------------------------------------
async def expect_status(call: Awaitable[Any], *statuses: int) -> httpx.Response:
    """The SDK call fails with one of `statuses` and a JSON `detail`."""
    try:
        async with asyncio.timeout(TIMEOUT):
            result = await call
    except httpx.HTTPStatusError as err:
        response = err.response
        body = error_body(err)
    except TimeoutError:
        raise AssertionError(f"expected HTTP {statuses}, the call hung for {TIMEOUT}s") from None
    else:
        raise AssertionError(f"expected HTTP {statuses}, got success: {str(result)[:400]}")
    where = f"{response.request.method} {response.request.url.path}"
    assert response.status_code in statuses, (
        f"{where}: expected {statuses}, got {response.status_code}: {str(body)[:300]}"
    )
    assert isinstance(body, dict) and isinstance(body.get("detail"), str), f"{where}: {body!r}"
    return response


def error_body(err: httpx.HTTPStatusError) -> object:
    """The JSON body of a refusal: the SDK keeps it on the error, or (for `join` and `wait`,
    which raise httpx's own error) in the error's note."""
    body = getattr(err, "body", None)
    for note in getattr(err, "__notes__", ()) if body is None else ():
        with contextlib.suppress(orjson.JSONDecodeError):
            body = orjson.loads(note)
    return body


async def outcome(call: Awaitable[Any], refused: tuple[int, ...]) -> Any:
    """The call's result, or None when it was refused with one of `refused`."""
    try:
        async with asyncio.timeout(TIMEOUT):
            return await call
    except httpx.HTTPStatusError as err:
        assert err.response.status_code in refused, (
            f"{err.response.request.method} {err.response.request.url.path}: "
            f"{err.response.status_code} {error_body(err)!s:.300}"
        )
        return None


async def raw(client: LangGraphClient, method: str, path: str, **kwargs: Any) -> httpx.Response:
    try:
        async with asyncio.timeout(TIMEOUT):
            return await client.http.client.request(method, path, **kwargs)
    except TimeoutError:
        raise AssertionError(f"{method} {path} hung for {TIMEOUT}s") from None


def assert_status(response: httpx.Response, *statuses: int) -> None:
    where = f"{response.request.method} {response.request.url.path}"
    assert response.status_code in statuses, (
        f"{where}: expected {statuses}, got {response.status_code}: {response.text[:300]}"
    )
    if response.status_code >= 400:
        assert isinstance(response.json().get("detail"), str), f"{where}: {response.text[:300]}"


async def drain(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    parts: list[StreamPart] = []
    async for part in stream:
        parts.append(part)
    return parts


def leaks(value: object) -> bool:
    """Whether `value` carries A's state (the marker only A's thread values hold)."""
    return MARKER.encode() in orjson.dumps(value, default=str)


async def b_fresh_thread(w: World) -> str:
    return (await w.b.threads.create(metadata={"topic": "b-only"}))["thread_id"]


async def thread_ids(client: LangGraphClient, **filters: Any) -> set[str]:
    return {t["thread_id"] for t in await client.threads.search(limit=1000, **filters)}


async def assert_none_found(client: LangGraphClient, **filters: Any) -> None:
    """A search (and a count) with these filters finds nothing."""
    found = await client.threads.search(limit=1000, **filters)
    assert not found, f"search {filters} found {[(t['thread_id'], t['metadata']) for t in found]}"
    assert await client.threads.count(**filters) == 0, f"count {filters}"


def smuggled(w: World) -> list[dict[str, Any]]:
    """Run bodies that put A's ids where a careless server would follow them."""
    a_checkpoint = {"thread_id": w.a_thread, "checkpoint_ns": "", "checkpoint_id": w.a_checkpoint}
    a_configurable = {"thread_id": w.a_thread, "checkpoint_id": w.a_checkpoint}
    return [
        {"input": {"count": 0}, "config": {"configurable": a_configurable}},
        {"input": {"count": 0}, "checkpoint": a_checkpoint},
        {"input": {"count": 0}, "checkpoint_id": w.a_checkpoint},
        # (`goto` "a" only: a second node writing `count` in the same step fails the run.)
        {"command": {"goto": "a", "update": {"count": 0}}, "checkpoint": a_checkpoint},
        {"command": {"goto": ["a"], "update": {"count": 0}}, "checkpoint_id": w.a_checkpoint},
        {
            "command": {"goto": "a", "update": {"count": 0}},
            "config": {"configurable": a_configurable},
        },
        {"input": {"count": 0}, "metadata": {"owner": "user-a", "thread_id": w.a_thread}},
        {"input": {"count": 0}, "if_not_exists": "create", "metadata": {"owner": "user-a"}},
    ]


def assert_no_leak(result: object, what: str) -> None:
    assert not leaks(result), f"{what} returned A's state: {str(result)[:400]}"


# -- the cases, one per route ---------------------------------------------------------------
Case = Callable[[World], Awaitable[None]]
CASES: dict[tuple[str, str], Case] = {}


def case(method: str, path: str) -> Callable[[Case], Case]:
    def register(function: Case) -> Case:
        assert (method, path) not in CASES, f"two cases for {method} {path}"
        CASES[(method, path)] = function
        return function

    return register


@case("GET", "/info")
async def _info(w: World) -> None:
    for client in (w.b, w.a):
        assert_status(await raw(client, "GET", "/info"), 200)


@case("GET", "/metrics")
async def _metrics(w: World) -> None:
    # Server-wide counts, no resource of anyone's: any authenticated user may scrape them.
    for client in (w.b, w.a):
        response = await raw(client, "GET", "/metrics")
        assert_status(response, 200)
        assert "olg_http_requests_total" in response.text


# -- the OpenAI-compatible endpoint: the embedded models, no resource of anyone's -----------
@case("GET", "/v1/models")
async def _openai_models(w: World) -> None:
    for client in (w.b, w.a):
        response = await raw(client, "GET", "/v1/models")
        assert_status(response, 200)
        assert "smollm2-135m" in {m["id"] for m in response.json()["data"]}


@case("GET", "/v1/models/{model}")
async def _openai_model(w: World) -> None:
    for client in (w.b, w.a):
        assert_status(await raw(client, "GET", "/v1/models/smollm2-135m"), 200)


@case("POST", "/v1/chat/completions")
async def _openai_chat(w: World) -> None:
    # Past auth, a name no model answers is the model's 404 (and no model is loaded for it).
    body = {"model": "no-such-model", "messages": [{"role": "user", "content": "Hi"}]}
    for client in (w.b, w.a):
        assert_status(await raw(client, "POST", "/v1/chat/completions", json=body), 404)


@case("POST", "/v1/embeddings")
async def _openai_embeddings(w: World) -> None:
    for client in (w.b, w.a):
        response = await raw(client, "POST", "/v1/embeddings", json={"model": "x", "input": "a"})
        assert_status(response, 404)


# -- assistants: shared, read-only for users without `assistants:write` ----------------------
async def _assistant_ids(client: LangGraphClient) -> list[str]:
    return sorted(x["assistant_id"] for x in await client.assistants.search(limit=1000))


@case("POST", "/assistants")
async def _assistants_create(w: World) -> None:
    before = await w.a.assistants.count()
    for client in (w.b, w.a):  # neither has `assistants:write`
        await expect_status(client.assistants.create("counter", name="mine"), 403)
        await expect_status(client.assistants.create("counter", assistant_id=w.counter), 403)
    assert await w.a.assistants.count() == before
    await w.assert_a_intact()


@case("GET", "/assistants")
async def _assistants_list(w: World) -> None:
    listed = {}
    for name, client in (("b", w.b), ("a", w.a)):
        response = await raw(client, "GET", "/assistants", params={"limit": 1000})
        assert_status(response, 200)
        listed[name] = sorted(x["assistant_id"] for x in response.json()["data"])
    assert w.counter in listed["a"]
    assert listed["a"] == listed["b"]


@case("POST", "/assistants/search")
async def _assistants_search(w: World) -> None:
    a_ids, b_ids = await _assistant_ids(w.a), await _assistant_ids(w.b)
    assert w.counter in a_ids
    assert a_ids == b_ids


@case("POST", "/assistants/count")
async def _assistants_count(w: World) -> None:
    count = await w.a.assistants.count()
    assert count >= 2
    assert await w.b.assistants.count() == count
    assert await w.b.assistants.count(graph_id="counter") == 1


@case("GET", "/assistants/{assistant_id}")
async def _assistants_get(w: World) -> None:
    assert await w.b.assistants.get(w.counter) == await w.a.assistants.get(w.counter)


@case("PATCH", "/assistants/{assistant_id}")
async def _assistants_patch(w: World) -> None:
    before = await w.a.assistants.get(w.counter)
    for client in (w.b, w.a):
        await expect_status(client.assistants.update(w.counter, metadata={"owner": "x"}), 403)
    assert await w.a.assistants.get(w.counter) == before


@case("DELETE", "/assistants/{assistant_id}")
async def _assistants_delete(w: World) -> None:
    for client in (w.b, w.a):
        await expect_status(client.assistants.delete(w.counter), 403)
    assert (await w.b.assistants.get(w.counter))["assistant_id"] == w.counter


@case("POST", "/assistants/{assistant_id}/versions")
async def _assistants_versions(w: World) -> None:
    a_versions = await w.a.assistants.get_versions(w.counter)
    assert a_versions
    assert await w.b.assistants.get_versions(w.counter) == a_versions


@case("POST", "/assistants/{assistant_id}/latest")
async def _assistants_latest(w: World) -> None:
    before = await w.a.assistants.get(w.counter)
    for client in (w.b, w.a):
        await expect_status(client.assistants.set_latest(w.counter, 1), 403)
    assert await w.a.assistants.get(w.counter) == before


@case("GET", "/assistants/{assistant_id}/graph")
async def _assistants_graph(w: World) -> None:
    graph = await w.a.assistants.get_graph(w.counter)
    assert graph["nodes"]
    assert await w.b.assistants.get_graph(w.counter) == graph


@case("GET", "/assistants/{assistant_id}/schemas")
async def _assistants_schemas(w: World) -> None:
    schemas = await w.a.assistants.get_schemas(w.counter)
    assert await w.b.assistants.get_schemas(w.counter) == schemas


@case("GET", "/assistants/{assistant_id}/subgraphs")
async def _assistants_subgraphs(w: World) -> None:
    subgraphs = await w.a.assistants.get_subgraphs(w.nested)
    assert "inner" in subgraphs
    assert await w.b.assistants.get_subgraphs(w.nested) == subgraphs


@case("GET", "/assistants/{assistant_id}/subgraphs/{namespace}")
async def _assistants_subgraphs_in(w: World) -> None:
    subgraphs = await w.a.assistants.get_subgraphs(w.nested, namespace="inner")
    assert "inner" in subgraphs
    assert await w.b.assistants.get_subgraphs(w.nested, namespace="inner") == subgraphs


# -- threads: each user's own ------------------------------------------------------------------
@case("POST", "/threads")
async def _threads_create(w: World) -> None:
    # B claims A's thread id: never answered with A's thread.
    for if_exists in (None, "raise", "do_nothing"):
        await expect_status(w.b.threads.create(thread_id=w.a_thread, if_exists=if_exists), 404, 409)
        await expect_status(
            w.b.threads.create(thread_id=w.a_thread, if_exists=if_exists, metadata={"x": 1}),
            404,
            409,
        )
    # B writes A's identity into its new thread's metadata: the server's filter wins.
    forged = await w.b.threads.create(metadata={"owner": "user-a", "label": "forged"})
    assert forged["metadata"]["owner"] == "user-b"
    assert (await w.b.threads.get(forged["thread_id"]))["metadata"]["owner"] == "user-b"
    await expect_status(w.a.threads.get(forged["thread_id"]), *NOT_FOUND)
    assert forged["thread_id"] not in await thread_ids(w.a)
    assert not await thread_ids(w.a, metadata={"label": "forged"})
    await w.assert_a_intact()
    # A creates its own, and gets it back on do_nothing; B does not see it.
    mine = await w.a.threads.create(metadata={"topic": "a-new"})
    assert mine["metadata"]["owner"] == "user-a"
    again = await w.a.threads.create(thread_id=mine["thread_id"], if_exists="do_nothing")
    assert again["thread_id"] == mine["thread_id"]
    assert again["metadata"]["owner"] == "user-a"
    await expect_status(w.b.threads.get(mine["thread_id"]), *NOT_FOUND)


@case("POST", "/threads/search")
async def _threads_search(w: World) -> None:
    a_ids = {w.a_thread, w.busy_thread}
    for filters in (
        {"metadata": {"topic": "a-only"}},
        {"metadata": {"owner": "user-a"}},
        {"metadata": {"owner": "user-a", "topic": "a-only"}},
        {"values": {"count": 102}},
        {"status": "busy"},
    ):
        await assert_none_found(w.b, **filters)
    assert not await thread_ids(w.b, ids=sorted(a_ids))
    everything = await w.b.threads.search(limit=1000)
    assert w.b_thread in {t["thread_id"] for t in everything}
    assert {t["metadata"].get("owner") for t in everything} == {"user-b"}
    assert not leaks(everything)
    extracted = await w.b.threads.search(limit=1000, extract={"v": "values.trail"})
    assert not a_ids & {t["thread_id"] for t in extracted}
    mine = await thread_ids(w.a, metadata={"topic": "a-only"})
    assert a_ids <= mine
    assert a_ids <= await thread_ids(w.a, ids=sorted(a_ids))
    assert w.b_thread not in await thread_ids(w.a)


@case("POST", "/threads/count")
async def _threads_count(w: World) -> None:
    assert await w.b.threads.count(metadata={"topic": "a-only"}) == 0
    assert await w.b.threads.count(metadata={"owner": "user-a"}) == 0
    assert await w.b.threads.count(values={"count": 102}) == 0
    assert await w.b.threads.count(status="busy") == 0
    assert await w.b.threads.count() == len(await thread_ids(w.b))
    assert await w.a.threads.count(metadata={"topic": "a-only"}) >= 2
    assert await w.a.threads.count(status="busy") >= 1
    assert await w.a.threads.count() == len(await thread_ids(w.a))


@case("POST", "/threads/prune")
async def _threads_prune(w: World) -> None:
    thread_id, _, _ = await w.a_thread_with_run()
    before = await w.snapshot(thread_id)
    for targets in ([thread_id], [w.busy_thread], [thread_id, w.a_thread]):
        for strategy in ("delete", "keep_latest"):
            pruned = await outcome(w.b.threads.prune(targets, strategy=strategy), NOT_FOUND)
            assert pruned is None or pruned["pruned_count"] == 0, (targets, pruned)
    await w.assert_a_intact((thread_id, before))
    assert (await w.a.threads.prune([thread_id]))["pruned_count"] == 1
    await expect_status(w.a.threads.get(thread_id), 404)


@case("GET", "/threads/{thread_id}")
async def _threads_get(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        await expect_status(w.b.threads.get(thread_id), *NOT_FOUND)
        await expect_status(w.b.threads.get(thread_id, include=["ttl"]), *NOT_FOUND)
    # B cannot tell A's thread from one that does not exist.
    nowhere = str(uuid.uuid4())
    for path in ("/threads/{}", "/threads/{}/state", "/threads/{}/runs", "/threads/{}/history"):
        theirs = await raw(w.b, "GET", path.format(w.a_thread))
        missing = await raw(w.b, "GET", path.format(nowhere))
        assert theirs.status_code == missing.status_code == 404, path
        assert theirs.json()["detail"].replace(w.a_thread, nowhere) == missing.json()["detail"]
    thread = await w.a.threads.get(w.a_thread)
    assert thread["metadata"]["owner"] == "user-a"
    assert leaks(thread["values"])


@case("GET", "/threads/{thread_id}/storage")
async def _threads_storage(w: World) -> None:
    nowhere = str(uuid.uuid4())
    for thread_id in (w.a_thread, w.busy_thread):
        theirs = await raw(w.b, "GET", f"/threads/{thread_id}/storage")
        missing = await raw(w.b, "GET", f"/threads/{nowhere}/storage")
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json()["detail"].replace(thread_id, nowhere) == missing.json()["detail"]
    own = await raw(w.b, "GET", f"/threads/{w.b_thread}/storage")
    assert_status(own, 200)
    assert own.json()["checkpoints"]["count"] > 0
    mine = await raw(w.a, "GET", f"/threads/{w.a_thread}/storage")
    assert_status(mine, 200)
    assert mine.json()["thread_id"] == w.a_thread


@case("PATCH", "/threads/{thread_id}")
async def _threads_patch(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        hijack = {"topic": "hijacked", "owner": "user-b"}
        await expect_status(w.b.threads.update(thread_id, metadata=hijack), *NOT_FOUND)
        await expect_status(w.b.threads.update(thread_id, metadata={}, ttl=1), *NOT_FOUND)
    await w.assert_a_intact()
    # B relabels its own thread as A's: it stays B's, and A does not see it.
    mine = await b_fresh_thread(w)
    await outcome(w.b.threads.update(mine, metadata={"owner": "user-a"}), (403, 404, 422))
    assert (await w.b.threads.get(mine))["metadata"]["owner"] == "user-b"
    await expect_status(w.a.threads.get(mine), *NOT_FOUND)
    assert mine not in await thread_ids(w.a, metadata={"owner": "user-a"})
    # A edits its own.
    thread_id, _, _ = await w.a_thread_with_run()
    updated = await w.a.threads.update(thread_id, metadata={"note": "edited"})
    assert updated["metadata"]["note"] == "edited"
    assert updated["metadata"]["owner"] == "user-a"


@case("DELETE", "/threads/{thread_id}")
async def _threads_delete(w: World) -> None:
    thread_id, _, _ = await w.a_thread_with_run()
    before = await w.snapshot(thread_id)
    for target in (thread_id, w.a_thread, w.busy_thread):
        await expect_status(w.b.threads.delete(target), *NOT_FOUND)
    await w.assert_a_intact((thread_id, before))
    await w.a.threads.delete(thread_id)
    await expect_status(w.a.threads.get(thread_id), 404)


@case("POST", "/threads/{thread_id}/copy")
async def _threads_copy(w: World) -> None:
    b_before = await thread_ids(w.b)
    # The Platform's copy answers 409 for a source thread it cannot see.
    for target in (w.a_thread, w.busy_thread):
        await expect_status(w.b.threads.copy(target), 409)
    assert await thread_ids(w.b) == b_before
    await w.assert_a_intact()
    copy = await w.a.threads.copy(w.a_thread)
    assert copy["thread_id"] != w.a_thread
    assert copy["metadata"]["owner"] == "user-a"
    assert leaks((await w.a.threads.get_state(copy["thread_id"]))["values"])
    await expect_status(w.b.threads.get(copy["thread_id"]), *NOT_FOUND)
    # B's copy of its own thread is B's.
    b_copy = await w.b.threads.copy(w.b_thread)
    assert b_copy["metadata"]["owner"] == "user-b"
    await expect_status(w.a.threads.get(b_copy["thread_id"]), *NOT_FOUND)


@case("GET", "/threads/{thread_id}/state")
async def _threads_state(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        await expect_status(w.b.threads.get_state(thread_id), *NOT_FOUND)
        await expect_status(w.b.threads.get_state(thread_id, subgraphs=True), *NOT_FOUND)
    state = await w.a.threads.get_state(w.a_thread)
    assert state["values"]["count"] == 102
    assert leaks(state["values"])


@case("POST", "/threads/{thread_id}/state")
async def _threads_update_state(w: World) -> None:
    thread_id, _, checkpoint_id = await w.a_thread_with_run()
    before = await w.snapshot(thread_id)
    await expect_status(w.b.threads.update_state(thread_id, {"count": 666}), *NOT_FOUND)
    await expect_status(
        w.b.threads.update_state(
            thread_id, {"count": 666}, as_node="b", checkpoint_id=checkpoint_id
        ),
        *NOT_FOUND,
    )
    await expect_status(w.b.threads.update_state(w.busy_thread, {"count": 666}), *NOT_FOUND)
    # B edits its own thread at A's checkpoint.
    a_checkpoint = {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
    mine, _, _ = await thread_with_run(w.b, {"topic": "b-only"}, B_VALUES)
    for kwargs in ({"checkpoint": a_checkpoint}, {"checkpoint_id": checkpoint_id}):
        result = await outcome(
            w.b.threads.update_state(mine, {"count": 666}, as_node="b", **kwargs), SMUGGLE_REFUSED
        )
        assert result is None or result["checkpoint"]["thread_id"] == mine, result
    await w.assert_a_intact((thread_id, before))
    await w.a.threads.update_state(thread_id, {"count": 7}, as_node="b")
    assert (await w.a.threads.get_state(thread_id))["values"]["count"] == 7


async def _smuggled_state(w: World, read: Callable[..., Awaitable[Any]]) -> None:
    """B reads its own thread at A's checkpoint: refused, or nothing of A's comes back."""
    a_checkpoint = {"thread_id": w.a_thread, "checkpoint_ns": "", "checkpoint_id": w.a_checkpoint}
    for thread_id, checkpoint in (
        (w.a_thread, a_checkpoint),
        (w.a_thread, {**a_checkpoint, "thread_id": w.b_thread}),
    ):
        await expect_status(read(w.b, thread_id, checkpoint), *NOT_FOUND)
    result = await outcome(read(w.b, w.b_thread, a_checkpoint), SMUGGLE_REFUSED)
    assert_no_leak(result, f"B's state of its own thread at A's checkpoint ({read.__name__})")
    await w.assert_a_intact()
    state = await read(w.a, w.a_thread, a_checkpoint)
    assert state["checkpoint"]["checkpoint_id"] == w.a_checkpoint
    assert leaks(state["values"])


@case("POST", "/threads/{thread_id}/state/checkpoint")
async def _threads_state_at_checkpoint_post(w: World) -> None:
    async def by_body(client: LangGraphClient, thread_id: str, checkpoint: dict) -> Any:
        return await client.threads.get_state(thread_id, checkpoint=checkpoint)

    await _smuggled_state(w, by_body)


@case("GET", "/threads/{thread_id}/state/{checkpoint_id}")
async def _threads_state_at_checkpoint_get(w: World) -> None:
    async def by_path(client: LangGraphClient, thread_id: str, checkpoint: dict) -> Any:
        return await client.threads.get_state(thread_id, checkpoint_id=checkpoint["checkpoint_id"])

    await _smuggled_state(w, by_path)


@case("GET", "/threads/{thread_id}/history")
async def _threads_history_get(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        assert_status(await raw(w.b, "GET", f"/threads/{thread_id}/history"), *NOT_FOUND)
    response = await raw(
        w.b, "GET", f"/threads/{w.b_thread}/history", params={"before": w.a_checkpoint}
    )
    assert_status(response, 200, *SMUGGLE_REFUSED)
    assert not leaks(response.json())
    response = await raw(w.a, "GET", f"/threads/{w.a_thread}/history", params={"limit": 100})
    assert_status(response, 200)
    assert leaks(response.json())


@case("POST", "/threads/{thread_id}/history")
async def _threads_history_post(w: World) -> None:
    a_checkpoint = {"thread_id": w.a_thread, "checkpoint_ns": "", "checkpoint_id": w.a_checkpoint}
    for thread_id in (w.a_thread, w.busy_thread):
        await expect_status(w.b.threads.get_history(thread_id), *NOT_FOUND)
        await expect_status(w.b.threads.get_history(thread_id, checkpoint=a_checkpoint), *NOT_FOUND)
    for kwargs in (
        {"checkpoint": a_checkpoint},
        {"before": a_checkpoint},
        {"before": w.a_checkpoint},
        {"metadata": {"thread_id": w.a_thread}},
        {"metadata": {"owner": "user-a"}},
    ):
        result = await outcome(w.b.threads.get_history(w.b_thread, **kwargs), SMUGGLE_REFUSED)
        assert_no_leak(result, f"B's history with {kwargs}")
    history = await w.a.threads.get_history(w.a_thread, limit=100)
    assert w.a_checkpoint in {h["checkpoint"]["checkpoint_id"] for h in history}


# -- runs on a thread ---------------------------------------------------------------------------
async def _run_routes_refuse_a_thread(w: World, start: Callable[..., Awaitable[Any]]) -> None:
    """B starting a run on A's threads gets a 404, whatever it asks for, and nothing runs."""
    for thread_id in (w.a_thread, w.busy_thread):
        for extra in (
            {},
            {"if_not_exists": "create"},
            {"multitask_strategy": "interrupt"},
            {"multitask_strategy": "rollback"},
            {"command": {"resume": "yes"}},
        ):
            await expect_status(start(w.b, thread_id, **extra), *NOT_FOUND)
    await w.assert_a_intact()


async def _smuggling_runs(w: World, start: Callable[..., Awaitable[Any]], stateless: bool) -> None:
    """B's runs with A's ids inside the body run on B's threads only, and never see A's state."""
    for body in smuggled(w):
        thread_id = None if stateless else await b_fresh_thread(w)
        if stateless:  # kept, so the run's thread can be checked afterwards
            body = {k: v for k, v in body.items() if k != "if_not_exists"}
            body["on_completion"] = "keep"
        before = await thread_ids(w.b)
        result = await outcome(start(w.b, thread_id, **body), SMUGGLE_REFUSED)
        assert_no_leak(result, f"B's run with {body}")
        touched = (await thread_ids(w.b) - before) | ({thread_id} if thread_id else set())
        for touched_id in touched:
            state = await w.b.threads.get_state(touched_id)
            assert_no_leak(state, f"B's thread after a run with {body}")
            await expect_status(w.a.threads.get(touched_id), *NOT_FOUND)
    await w.assert_a_intact()


async def _create_and_join(client: LangGraphClient, thread_id: str | None, **body: Any) -> Any:
    run = await client.runs.create(thread_id, "counter", **body)
    return await client.runs.join(run["thread_id"], run["run_id"])


async def _wait(client: LangGraphClient, thread_id: str | None, **body: Any) -> Any:
    # A smuggled command may make the graph fail: the error comes back as the result.
    return await client.runs.wait(thread_id, "counter", raise_error=False, **body)


async def _stream(client: LangGraphClient, thread_id: str | None, **body: Any) -> Any:
    stream_mode = ["values", "updates", "debug", "checkpoints", "tasks"]
    return await drain(client.runs.stream(thread_id, "counter", stream_mode=stream_mode, **body))


async def _a_runs_on_its_own(w: World, start: Callable[..., Awaitable[Any]]) -> Any:
    thread_id, _, _ = await w.a_thread_with_run()
    result = await start(w.a, thread_id, input={"count": 1})
    state = await w.a.threads.get_state(thread_id)
    assert state["values"]["count"] == 3
    assert len(await w.a.runs.list(thread_id)) == 2
    return result


@case("POST", "/threads/{thread_id}/runs")
async def _runs_create(w: World) -> None:
    await _run_routes_refuse_a_thread(w, _create_and_join)
    await _smuggling_runs(w, _create_and_join, stateless=False)
    await _a_runs_on_its_own(w, _create_and_join)


@case("POST", "/threads/{thread_id}/runs/wait")
async def _runs_wait(w: World) -> None:
    await _run_routes_refuse_a_thread(w, _wait)
    await _smuggling_runs(w, _wait, stateless=False)
    assert (await _a_runs_on_its_own(w, _wait))["count"] == 3


@case("POST", "/threads/{thread_id}/runs/stream")
async def _runs_stream(w: World) -> None:
    await _run_routes_refuse_a_thread(w, _stream)
    await _smuggling_runs(w, _stream, stateless=False)
    parts = await _a_runs_on_its_own(w, _stream)
    assert any(p.event == "values" and p.data.get("count") == 3 for p in parts)


@case("GET", "/threads/{thread_id}/runs")
async def _runs_list(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        await expect_status(w.b.runs.list(thread_id), *NOT_FOUND)
        await expect_status(w.b.runs.list(thread_id, status="running"), *NOT_FOUND)
    b_runs = await w.b.runs.list(w.b_thread)
    assert [r["run_id"] for r in b_runs] == [w.b_run]
    assert w.a_run in {r["run_id"] for r in await w.a.runs.list(w.a_thread)}
    assert w.busy_run in {r["run_id"] for r in await w.a.runs.list(w.busy_thread)}


def _runs_b_must_not_read(w: World) -> list[tuple[str, str]]:
    """(thread, run) pairs naming A's runs, or B's run under A's thread."""
    return [
        (w.a_thread, w.a_run),
        (w.b_thread, w.a_run),
        (w.busy_thread, w.busy_run),
        (w.b_thread, w.busy_run),
        (w.a_thread, w.b_run),
    ]


@case("GET", "/threads/{thread_id}/runs/{run_id}")
async def _runs_get(w: World) -> None:
    for thread_id, run_id in _runs_b_must_not_read(w):
        await expect_status(w.b.runs.get(thread_id, run_id), *NOT_FOUND)
    assert (await w.a.runs.get(w.a_thread, w.a_run))["status"] == "success"
    assert (await w.b.runs.get(w.b_thread, w.b_run))["status"] == "success"


@case("GET", "/threads/{thread_id}/runs/{run_id}/trace")
async def _runs_trace(w: World) -> None:
    # A trace carries prompts and tool results: reading it is reading the thread.
    for thread_id, run_id in _runs_b_must_not_read(w):
        assert_status(
            await raw(w.b, "GET", f"/threads/{thread_id}/runs/{run_id}/trace"), *NOT_FOUND
        )
    response = await raw(w.a, "GET", f"/threads/{w.a_thread}/runs/{w.a_run}/trace")
    assert_status(response, 200)
    assert (response.json()["run_id"], response.json()["status"]) == (w.a_run, "success")
    own = await raw(w.b, "GET", f"/threads/{w.b_thread}/runs/{w.b_run}/trace")
    assert_status(own, 200)
    assert not leaks(own.json())


@case("DELETE", "/threads/{thread_id}/runs/{run_id}")
async def _runs_delete(w: World) -> None:
    thread_id, run_id, _ = await w.a_thread_with_run()
    before = await w.snapshot(thread_id)
    for target_thread, target_run in (
        (thread_id, run_id),
        (w.b_thread, run_id),
        (w.busy_thread, w.busy_run),
        (w.b_thread, w.busy_run),
    ):
        await expect_status(w.b.runs.delete(target_thread, target_run), *NOT_FOUND)
    await w.assert_a_intact((thread_id, before))
    await w.a.runs.delete(thread_id, run_id)
    await expect_status(w.a.runs.get(thread_id, run_id), 404)


@case("GET", "/threads/{thread_id}/runs/{run_id}/join")
async def _runs_join(w: World) -> None:
    for thread_id, run_id in (
        (w.a_thread, w.a_run),
        (w.b_thread, w.a_run),
        (w.busy_thread, w.busy_run),  # would block until A cancels, were it allowed
        (w.b_thread, w.busy_run),
    ):
        await expect_status(w.b.runs.join(thread_id, run_id), *NOT_FOUND)
    assert leaks(await w.a.runs.join(w.a_thread, w.a_run))


@case("GET", "/threads/{thread_id}/runs/{run_id}/stream")
async def _runs_join_stream(w: World) -> None:
    for thread_id, run_id in (
        (w.a_thread, w.a_run),
        (w.b_thread, w.a_run),
        (w.busy_thread, w.busy_run),
        (w.b_thread, w.busy_run),
    ):
        await expect_status(
            drain(w.b.runs.join_stream(thread_id, run_id, last_event_id="-1")), *NOT_FOUND
        )
        response = await raw(
            w.b, "GET", f"/threads/{thread_id}/runs/{run_id}/stream", params={"after_event_id": -1}
        )
        assert_status(response, *NOT_FOUND)
    parts = await drain(w.a.runs.join_stream(w.a_thread, w.a_run, last_event_id="-1"))
    assert leaks([p.data for p in parts])


@case("POST", "/threads/{thread_id}/runs/{run_id}/cancel")
async def _runs_cancel(w: World) -> None:
    for thread_id, run_id in ((w.busy_thread, w.busy_run), (w.b_thread, w.busy_run)):
        for action in ("interrupt", "rollback"):
            # wait=True: were the cancel allowed, the run would be over when this returns.
            await expect_status(
                w.b.runs.cancel(thread_id, run_id, wait=True, action=action), *NOT_FOUND
            )
    await expect_status(w.b.runs.cancel(w.a_thread, w.a_run, wait=True), *NOT_FOUND)
    await w.assert_a_intact()
    thread_id = (await w.a.threads.create())["thread_id"]
    run_id = await blocking_run(w.a, thread_id)
    await w.a.runs.cancel(thread_id, run_id, wait=True)
    assert (await w.a.runs.get(thread_id, run_id))["status"] == "interrupted"


async def _thread_stream(
    client: LangGraphClient,
    thread_id: str,
    start_run: Callable[[], Awaitable[str]],
    headers: dict[str, str] | None = None,
) -> tuple[int, list[StreamPart], bool]:
    """Follow a thread's stream until the run `start_run` starts (once it is open) is done:
    (status, the events, whether the run's end came); a refused stream's status."""
    async with client.http.client.stream(
        "GET", f"/threads/{thread_id}/stream", headers=headers or {}, timeout=TIMEOUT
    ) as response:
        if response.status_code != 200:
            body = orjson.loads(await response.aread())
            assert isinstance(body.get("detail"), str), body
            return response.status_code, [], False
        run_id = await start_run()
        parts: list[StreamPart] = []
        with contextlib.suppress(TimeoutError):  # the parts so far tell what went wrong
            async with asyncio.timeout(TIMEOUT / 4):
                async for part in sse_parts(response):
                    parts.append(part)
                    data = part.data if isinstance(part.data, dict) else {}
                    if data.get("status") == "run_done" and data.get("run_id") == run_id:
                        return 200, parts, True
        return 200, parts, False


@case("GET", "/threads/{thread_id}/stream")
async def _threads_stream(w: World) -> None:
    async def b_run_on_own_thread() -> str:
        return (await w.b.runs.create(w.b_thread, "counter", input={"count": 0}))["run_id"]

    for thread_id in (w.a_thread, w.busy_thread):
        for headers in (None, {"Last-Event-ID": f"{w.a_run}:0"}):
            status, _, _ = await _thread_stream(w.b, thread_id, b_run_on_own_thread, headers)
            assert status == 404, f"B's stream of A's thread {thread_id}: {status}"
        assert_status(
            await raw(w.b, "GET", f"/threads/{thread_id}/stream", params={"after_event_id": "x"}),
            *NOT_FOUND,
            422,
        )
    # B resumes its own thread's stream after an event of A's run.
    for resume in (f"{w.a_run}:0", f"{w.a_run}:end", f"{w.busy_run}:0"):
        status, parts, done = await _thread_stream(
            w.b, w.b_thread, b_run_on_own_thread, {"Last-Event-ID": resume}
        )
        assert status in (200, *SMUGGLE_REFUSED), status
        assert done or status != 200, f"B's own run never ended on its stream: {parts}"
        assert not any((p.id or "").startswith((w.a_run, w.busy_run)) for p in parts), parts
        assert_no_leak([p.data for p in parts], f"B's thread stream after {resume}")
    await w.assert_a_intact()
    # A follows its own thread.
    thread_id, _, _ = await w.a_thread_with_run()

    async def a_run() -> str:
        return (await w.a.runs.create(thread_id, "counter", input={"count": 1}))["run_id"]

    status, parts, done = await _thread_stream(w.a, thread_id, a_run)
    assert status == 200
    assert done, parts
    assert any(p.event == "values" for p in parts)


# -- stateless runs -------------------------------------------------------------------------------
async def _stateless_thread_is_b_own(w: World, start: Callable[..., Awaitable[Any]]) -> None:
    """A kept stateless run's thread belongs to its creator, whatever metadata it claims."""
    runs_before = await thread_ids(w.b)
    await start(w.b, None, input={"count": 0}, on_completion="keep", metadata={"owner": "user-a"})
    new = await thread_ids(w.b) - runs_before
    assert len(new) == 1, new
    (kept,) = new
    assert (await w.b.threads.get(kept))["metadata"]["owner"] == "user-b"
    await expect_status(w.a.threads.get(kept), *NOT_FOUND)
    a_before = await thread_ids(w.a)
    await start(w.a, None, input={"count": 0}, on_completion="keep")
    (a_kept,) = await thread_ids(w.a) - a_before
    assert (await w.a.threads.get(a_kept))["metadata"]["owner"] == "user-a"
    await expect_status(w.b.threads.get(a_kept), *NOT_FOUND)


@case("POST", "/runs")
async def _runs_stateless_create(w: World) -> None:
    await _smuggling_runs(w, _create_and_join, stateless=True)
    await _stateless_thread_is_b_own(w, _create_and_join)


@case("POST", "/runs/wait")
async def _runs_stateless_wait(w: World) -> None:
    await _smuggling_runs(w, _wait, stateless=True)
    await _stateless_thread_is_b_own(w, _wait)
    assert (await _wait(w.a, None, input={"count": 5}))["count"] == 7


@case("POST", "/runs/stream")
async def _runs_stateless_stream(w: World) -> None:
    await _smuggling_runs(w, _stream, stateless=True)
    await _stateless_thread_is_b_own(w, _stream)
    parts = await _stream(w.a, None, input={"count": 5})
    assert any(p.event == "values" and p.data.get("count") == 7 for p in parts)


@case("POST", "/runs/batch")
async def _runs_batch(w: World) -> None:
    bodies = [{"thread_id": w.a_thread, "input": {"count": 0}}]
    bodies += [{"thread_id": w.busy_thread, "input": {"count": 0}}]
    bodies += [body for body in smuggled(w) if "if_not_exists" not in body]
    batch = [{"assistant_id": "counter", "on_completion": "keep", **body} for body in bodies]
    ran = 0
    # Each body alone (one refused body refuses its whole batch), then all of them together.
    for payloads in [*([payload] for payload in batch), batch]:
        runs = await outcome(w.b.runs.create_batch(payloads), SMUGGLE_REFUSED)
        for run in runs or []:
            assert run["thread_id"] not in (w.a_thread, w.busy_thread), run
            result = await w.b.runs.join(run["thread_id"], run["run_id"])
            assert_no_leak(result, f"batch run {run}")
            await expect_status(w.a.threads.get(run["thread_id"]), *NOT_FOUND)
            ran += 1
    assert ran >= 2, "every smuggling batch was refused: nothing shows the runs stay B's"
    await w.assert_a_intact()
    mine = await w.a.runs.create_batch(
        [
            {"assistant_id": "counter", "input": {"count": n}, "on_completion": "keep"}
            for n in (1, 2)
        ]
    )
    results = [await w.a.runs.join(r["thread_id"], r["run_id"]) for r in mine]
    assert sorted(r["count"] for r in results) == [3, 4]


@case("POST", "/runs/cancel")
async def _runs_cancel_many(w: World) -> None:
    # B's own parked run shows when a cancel B sent has taken effect.
    b_thread = await b_fresh_thread(w)
    b_run = await blocking_run(w.b, b_thread)
    for body in (
        {"run_ids": [w.busy_run]},
        {"thread_id": w.busy_thread, "run_ids": [w.busy_run]},
        {"thread_id": w.busy_thread},
        {"thread_id": w.busy_thread, "status": "all"},
    ):
        response = await raw(w.b, "POST", "/runs/cancel", json=body)
        assert_status(response, *NOT_FOUND)
    # B's own run is the only one a cancel of B's reaches.
    assert_status(await raw(w.b, "POST", "/runs/cancel", json={"status": "running"}), 204)
    async with asyncio.timeout(TIMEOUT):  # B's own run was cancelled by then
        await w.b.runs.join(b_thread, b_run)
    assert (await w.b.runs.get(b_thread, b_run))["status"] == "interrupted"
    # A's run is still busy, but B has nothing of its own in flight: nothing to cancel.
    for body in (
        {"status": "running"},
        {"status": "pending"},
        {"status": "all"},
        {"run_ids": [b_run, w.busy_run]},
    ):
        assert_status(await raw(w.b, "POST", "/runs/cancel", json=body), *NOT_FOUND)
    await w.assert_a_intact()
    thread_id = (await w.a.threads.create())["thread_id"]
    run_id = await blocking_run(w.a, thread_id)
    await w.a.runs.cancel_many(thread_id=thread_id, run_ids=[run_id])
    async with asyncio.timeout(TIMEOUT):
        await w.a.runs.join(thread_id, run_id)
    assert (await w.a.runs.get(thread_id, run_id))["status"] == "interrupted"
    await w.assert_a_intact()


async def _protocol_command(
    client: LangGraphClient, thread_id: str, method: str, params: dict[str, Any]
) -> httpx.Response:
    body = {"id": 1, "method": method, "params": params}
    return await raw(client, "POST", f"/threads/{thread_id}/commands", json=body)


@case("POST", "/threads/{thread_id}/commands")
async def _thread_commands(w: World) -> None:
    respond = {"interrupt_id": "x", "namespace": [], "response": 1}
    for thread_id in (w.a_thread, w.busy_thread):
        for method, params in (
            ("run.start", {"assistant_id": "counter", "input": {"count": 0}}),
            ("input.respond", respond),
            ("state.get", {"namespace": []}),
            ("state.listCheckpoints", {"limit": 10}),
            ("state.fork", {"checkpoint_id": w.a_checkpoint}),
        ):
            response = await _protocol_command(w.b, thread_id, method, params)
            assert_status(response, *NOT_FOUND)
            assert_no_leak(response.json(), f"B's {method} on A's thread")
    await w.assert_a_intact()
    # A reads its own thread, and starts a run on a new one of its own.
    state = await _protocol_command(w.a, w.a_thread, "state.get", {"namespace": []})
    assert state.status_code == 200 and leaks(state.json()), state.text[:300]
    thread_id = str(uuid.uuid4())
    started = await _protocol_command(
        w.a, thread_id, "run.start", {"assistant_id": "counter", "input": {"count": 1}}
    )
    assert started.json()["type"] == "success", started.text[:300]
    async with asyncio.timeout(TIMEOUT):
        await w.a.runs.join(thread_id, started.json()["result"]["run_id"])
    assert (await w.a.threads.get_state(thread_id))["values"]["count"] == 3
    assert_status(await raw(w.b, "GET", f"/threads/{thread_id}"), *NOT_FOUND)


@case("POST", "/threads/{thread_id}/stream/events")
async def _thread_protocol_events(w: World) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    body = {"channels": ["values", "lifecycle", "updates"]}
    for thread_id in (w.a_thread, w.busy_thread):
        for extra in ({}, {"since": 0}):
            response = await raw(
                w.b, "POST", f"/threads/{thread_id}/stream/events", json={**body, **extra}
            )
            assert_status(response, *NOT_FOUND)
    # The WebSocket form: refused before it opens (close code 4000 + status).
    ws_base = str(w.b.http.client.base_url).replace("http://", "ws://").rstrip("/")
    for key, code in (("key-b", 4404), (None, 4401), ("key-nobody", 4401)):
        headers = {"x-api-key": key} if key else {}
        url = f"{ws_base}/threads/{w.a_thread}/stream/events"
        with pytest.raises(Exception) as refused:
            async with asyncio.timeout(TIMEOUT), connect(url, additional_headers=headers) as ws:
                await ws.recv()
        error = refused.value
        assert isinstance(error, InvalidStatus) or str(code) in str(error), repr(error)
    # A follows its own thread, over SSE and the WebSocket.
    async with (
        asyncio.timeout(TIMEOUT),
        w.a.http.client.stream(
            "POST", f"/threads/{w.a_thread}/stream/events", json=body
        ) as response,
    ):
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                assert orjson.loads(line[6:])["method"] == "lifecycle"
                break
    url = f"{ws_base}/threads/{w.a_thread}/stream/events"
    async with (
        asyncio.timeout(TIMEOUT),
        connect(url, additional_headers={"x-api-key": "key-a"}) as ws,
    ):
        await ws.send(orjson.dumps({"id": 1, "method": "subscription.subscribe", "params": body}))
        assert orjson.loads(await ws.recv())["type"] == "success"
        assert orjson.loads(await ws.recv())["method"] == "lifecycle"
    await w.assert_a_intact()


# -- MCP: tools are the assistants the caller may see, runs are the caller's ------------------
async def _mcp_post(client: LangGraphClient, message: dict[str, Any]) -> httpx.Response:
    headers = {"accept": "application/json, text/event-stream"}
    return await raw(client, "POST", "/mcp/", json=message, headers=headers)


@case("POST", "/mcp/")
async def _mcp_post_case(w: World) -> None:
    for client, user in ((w.b, "user-b"), (w.a, "user-a")):
        await _mcp_post(
            client,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "auth-test", "version": "0"},
                },
            },
        )
        listed = await _mcp_post(client, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert_status(listed, 200)
        assert "counter" in {t["name"] for t in listed.json()["result"]["tools"]}
        call = {"name": "whoami", "arguments": {}}
        called = await _mcp_post(
            client, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        )
        assert_status(called, 200)
        assert called.json()["result"]["structuredContent"]["user_id"] == user
        assert_no_leak(called.json(), "an MCP tool call")


@case("GET", "/mcp/")
async def _mcp_get(w: World) -> None:
    for client in (w.b, w.a):
        assert_status(await raw(client, "GET", "/mcp/"), 405)


@case("DELETE", "/mcp/")
async def _mcp_delete(w: World) -> None:
    for client in (w.b, w.a):
        assert_status(await raw(client, "DELETE", "/mcp/"), 404)


# -- A2A: a context is a thread of the caller, a task a run on it ------------------------------
async def _a2a(client: LangGraphClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": "1", "method": method, "params": params}
    response = await raw(
        client, "POST", "/a2a/{}".format(system_assistant_id("counter")), json=body
    )
    assert_status(response, 200)
    return response.json()


@case("POST", "/a2a/{assistant_id}")
async def _a2a_post(w: World) -> None:
    data = {"kind": "data", "data": {"count": 0}}
    a_task = f"{w.a_thread}:{w.a_run}"
    for context_id in (w.a_thread, w.busy_thread):
        msg = {"role": "user", "parts": [data], "messageId": "m", "contextId": context_id}
        answer = await _a2a(w.b, "message/send", {"message": msg})
        assert answer["error"]["code"] == -32602, answer
    for params in ({"id": a_task}, {"id": w.a_run, "contextId": w.a_thread}):
        answer = await _a2a(w.b, "tasks/get", params)
        assert answer["error"]["code"] == -32001, answer
        assert_no_leak(answer, "tasks/get")
    own = await _a2a(
        w.b, "message/send", {"message": {"role": "user", "parts": [data], "messageId": "m"}}
    )
    assert own["result"]["status"]["state"] == "completed"
    mine = await _a2a(w.a, "tasks/get", {"id": a_task})
    assert mine["result"]["status"]["state"] == "completed"
    assert leaks(mine)


# -- crons: the creator's own, like threads ---------------------------------------------------
YEARLY = "0 0 1 1 *"


async def a_cron(w: World) -> dict[str, Any]:
    """A fresh cron of A's on A's thread (due once a year: it never fires in a test)."""
    return await w.a.crons.create_for_thread(
        w.a_thread, "counter", schedule=YEARLY, metadata={"topic": "a-cron"}
    )


def get_cron(client: LangGraphClient, cron_id: str) -> Awaitable[Any]:
    return client.http.get(f"/runs/crons/{cron_id}")


async def cron_ids(client: LangGraphClient, **filters: Any) -> set[str]:
    return {c["cron_id"] for c in await client.crons.search(limit=1000, **filters)}


@case("POST", "/runs/crons")
async def _crons_create(w: World) -> None:
    forged = await w.b.crons.create("counter", schedule=YEARLY, metadata={"owner": "user-a"})
    assert forged["metadata"]["owner"] == "user-b"
    assert forged["user_id"] == "user-b"
    await expect_status(get_cron(w.a, forged["cron_id"]), *NOT_FOUND)
    assert forged["cron_id"] not in await cron_ids(w.a)
    mine = await w.a.crons.create("counter", schedule=YEARLY)
    assert mine["metadata"]["owner"] == "user-a"
    await expect_status(get_cron(w.b, mine["cron_id"]), *NOT_FOUND)
    await w.a.crons.delete(mine["cron_id"])
    await w.b.crons.delete(forged["cron_id"])


@case("POST", "/threads/{thread_id}/runs/crons")
async def _crons_create_for_thread(w: World) -> None:
    for thread_id in (w.a_thread, w.busy_thread):
        await expect_status(
            w.b.crons.create_for_thread(thread_id, "counter", schedule="* * * * *"), *NOT_FOUND
        )
    assert not await cron_ids(w.a, thread_id=w.a_thread)
    cron = await a_cron(w)
    assert cron["thread_id"] == w.a_thread
    await w.a.crons.delete(cron["cron_id"])


@case("POST", "/runs/crons/search")
async def _crons_search(w: World) -> None:
    cron = await a_cron(w)
    for filters in (
        {},
        {"thread_id": w.a_thread},
        {"metadata": {"topic": "a-cron"}},
        {"metadata": {"owner": "user-a"}},
        {"assistant_id": "counter"},
    ):
        assert cron["cron_id"] not in await cron_ids(w.b, **filters), filters
    assert cron["cron_id"] in await cron_ids(w.a, thread_id=w.a_thread)
    await w.a.crons.delete(cron["cron_id"])


@case("POST", "/runs/crons/count")
async def _crons_count(w: World) -> None:
    cron = await a_cron(w)
    assert await w.b.crons.count(thread_id=w.a_thread) == 0
    assert await w.b.crons.count(metadata={"topic": "a-cron"}) == 0
    assert await w.a.crons.count(thread_id=w.a_thread) == 1
    await w.a.crons.delete(cron["cron_id"])


@case("GET", "/runs/crons/{cron_id}")
async def _crons_get(w: World) -> None:
    cron = await a_cron(w)
    theirs = await raw(w.b, "GET", f"/runs/crons/{cron['cron_id']}")
    missing = await raw(w.b, "GET", f"/runs/crons/{uuid.uuid4()}")
    assert theirs.status_code == missing.status_code == 404
    assert await get_cron(w.a, cron["cron_id"]) == cron
    await w.a.crons.delete(cron["cron_id"])


@case("PATCH", "/runs/crons/{cron_id}")
async def _crons_patch(w: World) -> None:
    cron = await a_cron(w)
    await expect_status(
        w.b.crons.update(cron["cron_id"], enabled=False, metadata={"owner": "user-b"}), *NOT_FOUND
    )
    assert await get_cron(w.a, cron["cron_id"]) == cron
    updated = await w.a.crons.update(cron["cron_id"], enabled=False, metadata={"owner": "x"})
    assert updated["enabled"] is False
    assert updated["metadata"]["owner"] == "user-a"
    await w.a.crons.delete(cron["cron_id"])


@case("DELETE", "/runs/crons/{cron_id}")
async def _crons_delete(w: World) -> None:
    cron = await a_cron(w)
    await expect_status(w.b.crons.delete(cron["cron_id"]), *NOT_FOUND)
    assert await get_cron(w.a, cron["cron_id"]) == cron
    await w.a.crons.delete(cron["cron_id"])
    await expect_status(get_cron(w.a, cron["cron_id"]), 404)


# -- the store: each user's namespaces live under their id (auth_api_key.own_store_namespace) --
A_NOTE = {"secret": MARKER}


async def a_note(w: World) -> None:
    """A's item `a-note` in A's `notes` (stored as ("user-a", "notes"))."""
    await w.a.store.put_item(["notes"], key="a-note", value=A_NOTE)


async def assert_a_note_intact(w: World) -> None:
    item = await w.a.store.get_item(["notes"], key="a-note")
    assert item is not None and item["value"] == A_NOTE, item
    assert item["namespace"] == ["user-a", "notes"]


@case("PUT", "/store/items")
async def _store_put(w: World) -> None:
    await a_note(w)
    for namespace in (["notes"], ["user-a", "notes"]):
        await w.b.store.put_item(namespace, key="a-note", value={"by": "b"})
    await assert_a_note_intact(w)


@case("GET", "/store/items")
async def _store_get(w: World) -> None:
    await a_note(w)
    for namespace in (["notes"], ["user-a", "notes"]):
        assert_no_leak(await w.b.store.get_item(namespace, key="a-note"), "store get")
    response = await raw(
        w.b, "GET", "/store/items", params={"namespace": "user-a.notes", "key": "a-note"}
    )
    assert_status(response, 200)
    assert_no_leak(response.json(), "store get by a dotted namespace")
    await assert_a_note_intact(w)


@case("DELETE", "/store/items")
async def _store_delete(w: World) -> None:
    await a_note(w)
    for namespace in (["notes"], ["user-a", "notes"]):
        await w.b.store.delete_item(namespace, key="a-note")
    await assert_a_note_intact(w)


@case("POST", "/store/items/search")
async def _store_search(w: World) -> None:
    await a_note(w)
    for prefix in ([], ["notes"], ["user-a"]):
        found = await w.b.store.search_items(prefix, limit=1000)
        assert_no_leak(found, f"store search {prefix}")
    found = await w.a.store.search_items(["notes"], limit=1000)
    assert A_NOTE in [item["value"] for item in found["items"]]


@case("POST", "/store/namespaces")
async def _store_namespaces(w: World) -> None:
    await a_note(w)
    for prefix in (None, ["user-a"]):
        spaces = (await w.b.store.list_namespaces(prefix=prefix))["namespaces"]
        assert all(namespace[0] == "user-b" for namespace in spaces), spaces
    assert ["user-a", "notes"] in (await w.a.store.list_namespaces())["namespaces"]


# -- the tests -------------------------------------------------------------------------------------
def _schema_routes(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, methods in spec["paths"].items()
        for method in methods
        if method in HTTP_METHODS
    }


def _route_id(route: tuple[str, str]) -> str:
    return f"{route[0]} {route[1]}"


async def test_every_route_has_a_case(world: World):
    routes = _schema_routes(world.spec)
    assert routes >= OPEN_ROUTES
    missing = routes - OPEN_ROUTES - set(CASES)
    assert not missing, f"routes without an auth case: {sorted(missing)}"
    stale = set(CASES) - routes
    assert not stale, f"cases for routes the server does not have: {sorted(stale)}"


@pytest.mark.parametrize("route", sorted(CASES), ids=_route_id)
async def test_b_cannot_reach_a_resources_and_a_can(world: World, route: tuple[str, str]):
    await CASES[route](world)
    await world.assert_a_intact()


def _path_for(world: World, template: str) -> str:
    values = {
        "thread_id": world.a_thread,
        "run_id": world.a_run,
        "assistant_id": world.counter,
        "checkpoint_id": world.a_checkpoint,
        "namespace": "inner",
        "cron_id": str(uuid.uuid4()),
        "model": "smollm2-135m",
    }
    return template.format(**values)


#: Routes with a case that answer without a key too, as on the Platform.
KEYLESS_CASES = frozenset({("GET", "/info")})


@pytest.mark.parametrize("credentials", ["missing", "wrong"])
@pytest.mark.parametrize("route", sorted(set(CASES) - KEYLESS_CASES), ids=_route_id)
async def test_protected_routes_refuse_a_request_without_a_valid_key(
    world: World, route: tuple[str, str], credentials: str
):
    method, template = route
    headers = {"x-api-key": "key-nobody"} if credentials == "wrong" else {}
    body = {"json": {}} if method in ("POST", "PATCH", "PUT") else {}
    async with (
        asyncio.timeout(TIMEOUT),
        world.anon.stream(method, _path_for(world, template), headers=headers, **body) as response,
    ):
        payload = await response.aread()
    assert response.status_code == 401, (
        f"{method} {template}: {response.status_code} {payload!r:.300}"
    )
    assert isinstance(orjson.loads(payload).get("detail"), str)
    await world.assert_a_intact()


async def test_open_routes_need_no_key(world: World):
    for path in ("/ok", "/ok?check_db=1", "/info", "/openapi.json", "/docs"):
        assert (await world.anon.get(path)).status_code == 200, path


async def test_graphs_see_the_caller_not_what_the_client_claims(world: World):
    claims = {
        "langgraph_auth_user_id": "user-a",
        "langgraph_auth_user": {"identity": "user-a", "permissions": ["assistants:write"]},
        "langgraph_auth_permissions": ["assistants:write"],
    }
    # In `configurable` or in `context`; both at once is refused, as on the Platform.
    for sent in ({"config": {"configurable": claims}}, {"context": claims}):
        for thread_id in (await b_fresh_thread(world), None):
            result = await world.b.runs.wait(thread_id, "whoami", input={}, **sent)
            assert result["user_id"] == "user-b", result
            assert "assistants:write" not in result["permissions"], result
    result = await world.a.runs.wait(None, "whoami", input={})
    assert result["user_id"] == "user-a"
    assert result["permissions"] == ["threads:write"]
