"""The store (`/store/...`) through `langgraph_sdk` against a live server, as on the Platform.

The server is configured with a semantic index over `tests/fixtures/store_graphs.py:embed`
(bag of words: rankings are predictable) and a store TTL swept every ~1 s. On PostgreSQL the
index needs pgvector; without it (Debian 12 has no package) the server starts without an
index, and the ranking test runs on a SQLite server of its own instead
(tests/storage/test_store_contract.py checks PostgreSQL's clear refusal of an index there).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.backend import SQLITE, selected
from tests.fixtures.postgres import ADMIN_URL
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

AUTH_FILE = Path(__file__).parent.parent / "fixtures" / "auth_api_key.py"
STORE_GRAPHS = {
    "memory": "tests.fixtures.store_graphs:memory",
    "store_factory": "tests.fixtures.store_graphs:make_store_factory",
}
INDEX = {"embed": "tests.fixtures.store_graphs:embed", "dims": 8, "fields": ["text"]}
#: Swept every 1.2 s, so a 3-second TTL is gone within a few seconds.
TTL = {"sweep_interval_minutes": 0.02, "refresh_on_read": True}


def _pgvector_available() -> bool:
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return row.fetchone() is not None


SEMANTIC = selected() == "sqlite" or _pgvector_available()


@pytest.fixture(scope="module")
def store_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-store")
    store: dict[str, Any] = {"ttl": TTL}
    if SEMANTIC:
        store["index"] = INDEX
    config = write_config(directory, graphs=STORE_GRAPHS, store=store)
    with serving(directory, config) as process:
        yield process


@pytest.fixture(scope="module")
def semantic_server(
    tmp_path_factory: pytest.TempPathFactory, store_server: ServerProcess
) -> Iterator[ServerProcess]:
    """The store server itself where its database can index, else one on SQLite."""
    if SEMANTIC:
        yield store_server
        return
    directory = tmp_path_factory.mktemp("olg-store-semantic")
    config = write_config(directory, graphs=STORE_GRAPHS, store={"index": INDEX})
    with serving(directory, config, backend=SQLITE) as process:
        yield process


@pytest.fixture
async def client(store_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(store_server.url) as lg_client:
        yield lg_client


def _root() -> str:
    """A namespace root of this test's own: the module's tests share one server."""
    return f"t{uuid.uuid4().hex[:10]}"


# -- CRUD ------------------------------------------------------------------------------------
async def test_put_get_overwrite_delete(client: LangGraphClient):
    namespace = [_root(), "notes"]
    await client.store.put_item(namespace, key="k1", value={"text": "first", "n": 1})
    item = await client.store.get_item(namespace, key="k1")
    assert item["namespace"] == namespace
    assert item["key"] == "k1"
    assert item["value"] == {"text": "first", "n": 1}
    assert item["created_at"].endswith("+00:00") and item["updated_at"] >= item["created_at"]

    await client.store.put_item(namespace, key="k1", value={"text": "second"})
    assert (await client.store.get_item(namespace, key="k1"))["value"] == {"text": "second"}

    await client.store.delete_item(namespace, key="k1")
    assert await client.store.get_item(namespace, key="k1") is None
    # Deleting what is not there is not an error, as on the Platform.
    await client.store.delete_item(namespace, key="k1")


async def test_get_takes_a_repeated_namespace_parameter_too(store_server: ServerProcess):
    root = _root()
    async with httpx.AsyncClient(base_url=store_server.url) as http:
        put = await http.put(
            "/store/items", json={"namespace": [root, "x"], "key": "k", "value": {"a": 1}}
        )
        assert put.status_code == 204
        got = await http.get(
            "/store/items", params=[("namespace", root), ("namespace", "x"), ("key", "k")]
        )
    assert got.status_code == 200 and got.json()["value"] == {"a": 1}


@pytest.mark.parametrize(
    ("method", "path", "body", "problem"),
    [
        ("PUT", "/store/items", {"namespace": [], "key": "k", "value": {}}, "namespace"),
        ("PUT", "/store/items", {"namespace": ["a.b"], "key": "k", "value": {}}, "'.'"),
        ("PUT", "/store/items", {"namespace": ["a", ""], "key": "k", "value": {}}, "non-empty"),
        ("PUT", "/store/items", {"namespace": ["a"], "key": "", "value": {}}, "key"),
        ("PUT", "/store/items", {"namespace": ["a"], "key": "k", "value": [1]}, "value"),
        ("PUT", "/store/items", {"namespace": ["langgraph"], "key": "k", "value": {}}, "reserved"),
        ("PUT", "/store/items", {"namespace": ["a"], "key": "k", "value": {}, "ttl": -1}, "ttl"),
        (
            "PUT",
            "/store/items",
            {"namespace": ["a"], "key": "k", "value": {}, "index": True},
            "index",
        ),
        ("DELETE", "/store/items", {"namespace": ["a"], "key": ""}, "key"),
        ("DELETE", "/store/items", {"namespace": [], "key": "k"}, "namespace"),
        ("POST", "/store/items/search", {"limit": 0}, "limit"),
        ("POST", "/store/items/search", {"offset": -1}, "offset"),
        ("POST", "/store/items/search", {"filter": {"n": {"$regex": "x"}}}, "$regex"),
        # An object is read as operators by LangGraph's stores, never matched as a value.
        ("POST", "/store/items/search", {"filter": {"n": {"d": "e"}}}, "'d'"),
        ("POST", "/store/items/search", {"namespace_prefix": ["a.b"]}, "'.'"),
        ("POST", "/store/namespaces", {"max_depth": 0}, "max_depth"),
        ("POST", "/store/namespaces", {"prefix": [""]}, "non-empty"),
    ],
)
async def test_bad_input_is_a_422_with_detail(
    store_server: ServerProcess, method: str, path: str, body: dict[str, Any], problem: str
):
    async with httpx.AsyncClient(base_url=store_server.url) as http:
        response = await http.request(method, path, json=body)
    assert response.status_code == 422, response.text
    assert problem in response.json()["detail"]


async def test_get_without_a_key_is_a_422(store_server: ServerProcess):
    async with httpx.AsyncClient(base_url=store_server.url) as http:
        response = await http.get("/store/items", params={"namespace": "a"})
        empty_key = await http.get("/store/items", params={"namespace": "a", "key": ""})
    assert response.status_code == 422 and "key" in response.json()["detail"]
    assert empty_key.status_code == 422 and "key" in empty_key.json()["detail"]


async def test_get_without_a_namespace_is_a_422(store_server: ServerProcess):
    """No item can live at the root namespace, so asking for one is a mistake (as on the
    Platform), not an answer of `null` that looks like a missing item."""
    async with httpx.AsyncClient(base_url=store_server.url) as http:
        for params in ({"key": "k"}, {"key": "k", "namespace": ""}):
            response = await http.get("/store/items", params=params)
            assert response.status_code == 422, response.text
            assert "namespace" in response.json()["detail"]


# -- namespaces and search -------------------------------------------------------------------
async def test_list_namespaces_by_prefix_suffix_depth_and_page(client: LangGraphClient):
    root = _root()
    for path in (["users", "u1", "prefs"], ["users", "u2", "prefs"], ["users", "u2", "notes"]):
        await client.store.put_item([root, *path], key="k", value={"v": 1})

    everything = (await client.store.list_namespaces(prefix=[root]))["namespaces"]
    assert sorted(everything) == [
        [root, "users", "u1", "prefs"],
        [root, "users", "u2", "notes"],
        [root, "users", "u2", "prefs"],
    ]
    prefs = (await client.store.list_namespaces(prefix=[root], suffix=["prefs"]))["namespaces"]
    assert sorted(prefs) == [[root, "users", "u1", "prefs"], [root, "users", "u2", "prefs"]]
    shallow = (await client.store.list_namespaces(prefix=[root], max_depth=3))["namespaces"]
    assert sorted(shallow) == [[root, "users", "u1"], [root, "users", "u2"]]
    pages = [
        (await client.store.list_namespaces(prefix=[root], limit=1, offset=offset))["namespaces"]
        for offset in range(4)
    ]
    assert [len(page) for page in pages] == [1, 1, 1, 0]
    assert sorted(page[0] for page in pages[:3]) == sorted(everything)


async def test_search_by_prefix_filter_limit_and_offset(client: LangGraphClient):
    root = _root()
    for n in range(6):
        kind = "even" if n % 2 == 0 else "odd"
        await client.store.put_item([root, kind], key=f"k{n}", value={"n": n, "kind": kind})
    await client.store.put_item([_root()], key="elsewhere", value={"n": 0, "kind": "even"})

    everything = (await client.store.search_items([root], limit=100))["items"]
    assert sorted(item["key"] for item in everything) == [f"k{n}" for n in range(6)]
    assert {tuple(item["namespace"]) for item in everything} == {(root, "even"), (root, "odd")}

    evens = await client.store.search_items([root], filter={"kind": "even"}, limit=100)
    assert sorted(item["key"] for item in evens["items"]) == ["k0", "k2", "k4"]
    big = await client.store.search_items([root], filter={"n": {"$gte": 3}}, limit=100)
    assert sorted(item["value"]["n"] for item in big["items"]) == [3, 4, 5]
    odd_prefix = await client.store.search_items([root, "odd"], limit=100)
    assert sorted(item["key"] for item in odd_prefix["items"]) == ["k1", "k3", "k5"]

    pages = [
        (await client.store.search_items([root], limit=4, offset=offset))["items"]
        for offset in (0, 4)
    ]
    assert [len(page) for page in pages] == [4, 2]
    keys = [item["key"] for page in pages for item in page]
    assert sorted(keys) == [f"k{n}" for n in range(6)]


async def test_semantic_search_ranks_by_similarity(semantic_server: ServerProcess):
    async with sdk_client(semantic_server.url) as client:
        await _ranks_by_similarity(client)


async def _ranks_by_similarity(client: LangGraphClient) -> None:
    root = _root()
    corpus = {
        "pets": "dog dog cat",
        "fish": "fish fish",
        "cars": "car road engine",
        "food": "pizza pasta pizza",
    }
    for key, text in corpus.items():
        await client.store.put_item([root, "docs"], key=key, value={"text": text})
    # Only `text` is embedded (`fields`): the dogs in `note` count for nothing.
    decoy = {"text": "pizza", "note": "dog dog dog dog"}
    await client.store.put_item([root, "docs"], key="decoy", value=decoy)

    dogs = (await client.store.search_items([root], query="dog", limit=3))["items"]
    assert dogs[0]["key"] == "pets"
    assert "decoy" not in [item["key"] for item in dogs[:2]]
    scores = [item["score"] for item in dogs]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0.5

    motoring = (await client.store.search_items([root], query="an engine on the road"))["items"]
    assert motoring[0]["key"] == "cars"
    hungry = await client.store.search_items([root], query="pasta", filter={"text": corpus["food"]})
    assert [item["key"] for item in hungry["items"]] == ["food"]


async def test_semantic_search_with_the_local_model_finds_meaning_not_words(
    tmp_path: Path,
) -> None:
    """`local:all-minilm-l6-v2`, the offline model: queries share no word with their match."""
    index = {"embed": "local:all-minilm-l6-v2", "dims": 384, "fields": ["text"]}
    config = write_config(tmp_path, graphs=STORE_GRAPHS, store={"index": index})
    backend = None if SEMANTIC else SQLITE
    with serving(tmp_path, config, backend=backend) as process:
        async with sdk_client(process.url) as client:
            corpus = {
                "cat": "The cat is asleep on the sofa.",
                "revenue": "Quarterly revenue grew by eight percent.",
                "pool": "Restart the database after changing the connection pool size.",
            }
            for key, text in corpus.items():
                await client.store.put_item(["notes"], key=key, value={"text": text})
            for query, expected in [
                ("a kitten napping on the couch", "cat"),
                ("financial results of the company", "revenue"),
                ("how many connections can PostgreSQL hold", "pool"),
            ]:
                found = await client.store.search_items(["notes"], query=query, limit=3)
                assert found["items"][0]["key"] == expected, query


async def test_vectors_of_another_size_than_dims_are_refused_with_the_fix(tmp_path: Path) -> None:
    """An embedder whose vectors do not match `store.index.dims` (the 1536 of a template
    pointed at a 384-wide local model): SQLite stored them and searched nonsense, PostgreSQL
    failed in pgvector. The request, and a run writing the store, say what to set."""
    index = {**INDEX, "dims": 12}
    config = write_config(tmp_path, graphs=STORE_GRAPHS, store={"index": index})
    backend = None if SEMANTIC else SQLITE
    with serving(tmp_path, config, backend=backend) as process:
        async with sdk_client(process.url) as client:
            for request in (
                client.store.put_item(["notes"], key="k", value={"text": "dog"}),
                client.store.search_items(["notes"], query="dog"),
            ):
                with pytest.raises(httpx.HTTPStatusError) as refused:
                    await request
                assert refused.value.response.status_code == 500
                detail = refused.value.response.json()["detail"]
                assert "store.index.dims is 12" in detail and "set store.index.dims to 8" in detail
            thread = await client.threads.create()
            answer = await client.runs.wait(
                thread["thread_id"],
                "memory",
                input={"user": "u", "text": "dog"},
                raise_error=False,
            )
            assert "store.index.dims is 12" in answer["__error__"]["message"]
            assert await client.store.search_items(["notes"]) == {"items": []}
        assert "store.index.dims is 12" in process.log.read_text()


# -- TTL ----------------------------------------------------------------------------------------
async def test_items_expire_after_their_ttl(client: LangGraphClient):
    namespace = [_root()]
    await client.store.put_item(namespace, key="brief", value={"v": 1}, ttl=0.05)  # 3 s
    await client.store.put_item(namespace, key="lasting", value={"v": 2})
    assert (await client.store.get_item(namespace, key="brief")) is not None
    async with asyncio.timeout(30):
        while await client.store.get_item(namespace, key="brief", refresh_ttl=False) is not None:
            await asyncio.sleep(0.5)
    assert (await client.store.get_item(namespace, key="lasting"))["value"] == {"v": 2}
    remaining = await client.store.search_items(namespace)
    assert [item["key"] for item in remaining["items"]] == ["lasting"]


# -- graphs using the store -------------------------------------------------------------------
async def test_a_run_reads_and_writes_the_store(client: LangGraphClient):
    user = f"u-{uuid.uuid4().hex[:8]}"
    thread = await client.threads.create()
    for text in ("likes dogs", "lives by the road"):
        values = await client.runs.wait(
            thread["thread_id"], "memory", input={"user": user, "text": text}
        )
    assert values["remembered"] == ["likes dogs", "lives by the road"]
    assert values["seen_by_parameter"] == 2
    assert values["seen_by_get_store"] == 2
    found = await client.store.search_items(["memories", user])
    assert sorted(item["value"]["text"] for item in found["items"]) == values["remembered"]

    # What a client puts, the next run sees.
    await client.store.put_item(["memories", user], key="from-client", value={"text": "hi"})
    values = await client.runs.wait(None, "memory", input={"user": user, "text": "third"})
    assert values["seen_by_parameter"] == 4


async def test_server_runtime_factories_get_the_store_and_the_access_context(
    client: LangGraphClient,
):
    contexts = ("threads.create_run", "threads.read", "threads.update", "assistants.read")
    for access_context in contexts:
        await client.store.delete_item(["factory"], key=access_context)
    [assistant] = await client.assistants.search(graph_id="store_factory")
    thread = await client.threads.create()

    await client.runs.wait(thread["thread_id"], assistant["assistant_id"], input={"text": "x"})
    await client.threads.get_state(thread["thread_id"])
    await client.threads.update_state(thread["thread_id"], {"text": "y"}, as_node="echo")
    await client.assistants.get_graph(assistant["assistant_id"])

    # Each call wrote into the server's store (the one the client reads) what it was handed:
    # an execution runtime for the run only.
    for access_context in contexts:
        call = await client.store.get_item(["factory"], key=access_context)
        assert call is not None, f"the factory was not called for {access_context}"
        execution = access_context == "threads.create_run"
        assert call["value"] == {"execution": execution, "user": None}, access_context


# -- auth ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def auth_store_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-store-auth")
    config = write_config(
        directory, graphs=STORE_GRAPHS, auth={"path": f"{AUTH_FILE}:auth"}, store={"ttl": TTL}
    )
    with serving(directory, config) as process:
        yield process


@pytest.fixture
async def users(auth_store_server: ServerProcess) -> AsyncIterator[dict[str, LangGraphClient]]:
    clients = {
        name: get_client(url=auth_store_server.url, api_key=key)
        for name, key in (("a", "key-a"), ("b", "key-b"))
    }
    yield clients
    for lg_client in clients.values():
        await lg_client.http.client.aclose()


async def test_each_user_sees_only_their_own_items(users: dict[str, LangGraphClient]):
    a, b = users["a"], users["b"]
    root = _root()
    await a.store.put_item([root, "notes"], key="k", value={"owner": "a"})
    await b.store.put_item([root, "notes"], key="k", value={"owner": "b"})

    # The handler (tests/fixtures/auth_api_key.py) puts every namespace under the user's id.
    mine = await a.store.get_item([root, "notes"], key="k")
    assert mine["value"] == {"owner": "a"} and mine["namespace"] == ["user-a", root, "notes"]
    assert (await b.store.get_item([root, "notes"], key="k"))["value"] == {"owner": "b"}
    # Naming A's full namespace does not escape B's own.
    assert await b.store.get_item(["user-a", root, "notes"], key="k") is None

    b_found = await b.store.search_items([root], limit=100)
    assert [item["value"] for item in b_found["items"]] == [{"owner": "b"}]
    b_spaces = (await b.store.list_namespaces())["namespaces"]
    assert all(namespace[0] == "user-b" for namespace in b_spaces)
    assert ["user-b", root, "notes"] in b_spaces

    await b.store.delete_item(["user-a", root, "notes"], key="k")
    await b.store.delete_item([root, "notes"], key="k")
    assert (await a.store.get_item([root, "notes"], key="k"))["value"] == {"owner": "a"}
    assert await b.store.get_item([root, "notes"], key="k") is None


async def test_a_handler_refusal_is_a_403_and_no_key_a_401(
    users: dict[str, LangGraphClient], auth_store_server: ServerProcess
):
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await users["b"].store.put_item(["readonly"], key="k", value={})
    assert refused.value.response.status_code == 403
    async with httpx.AsyncClient(base_url=auth_store_server.url) as anon:
        response = await anon.post("/store/items/search", json={})
    assert response.status_code == 401
