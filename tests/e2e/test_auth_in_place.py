"""Auth handlers that edit the request's value in place instead of returning a filter
(`tests/fixtures/auth_in_place.py`): what they leave is what the server does, as on the
Platform."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

AUTH_FILE = Path(__file__).parent.parent / "fixtures" / "auth_in_place.py"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("auth-in-place")
    config = write_config(directory, auth={"path": f"{AUTH_FILE}:auth"})
    with serving(directory, config) as process:
        yield process


async def test_a_search_handler_adding_the_owner_limits_the_search(served: ServerProcess):
    async with (
        sdk_client(served.url, api_key="key-a") as alice,
        sdk_client(served.url, api_key="key-b") as bob,
    ):
        mine = await alice.threads.create()
        assert mine["metadata"]["user_id"] == "user-a"
        theirs = await bob.threads.create()
        # No metadata in the request: the handler gets {} to add to (it got None: a 500).
        found = {t["thread_id"] for t in await alice.threads.search(limit=100)}
        assert mine["thread_id"] in found and theirs["thread_id"] not in found
        assert await bob.threads.count() == 1


async def test_a_create_run_handler_capping_the_recursion_limit_is_obeyed(
    served: ServerProcess,
):
    async with sdk_client(served.url, api_key="key-a") as alice:
        thread = await alice.threads.create()
        run = await alice.runs.create(
            thread["thread_id"], "counter", input={"count": 0}, config={"recursion_limit": 1000}
        )
        assert run["kwargs"]["config"]["recursion_limit"] == 5
        await alice.runs.join(thread["thread_id"], run["run_id"])
        # With no config at all the handler still has one to write into.
        bare = await alice.runs.create(thread["thread_id"], "counter", input={"count": 0})
        assert bare["kwargs"]["config"]["recursion_limit"] == 5


async def test_a_run_of_a_missing_assistant_is_404_before_any_handler_refuses_it(
    served: ServerProcess,
):
    async with sdk_client(served.url, api_key="key-a") as alice:
        thread = await alice.threads.create()
        forbidden = {"forbidden": True}
        with pytest.raises(httpx.HTTPStatusError) as missing:
            await alice.runs.create(thread["thread_id"], str(uuid.uuid4()), metadata=forbidden)
        assert missing.value.response.status_code == 404
        # An assistant that exists meets the handler, which refuses it.
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await alice.runs.create(thread["thread_id"], "counter", metadata=forbidden)
        assert refused.value.response.status_code == 403


OWNER_FILTER_FILE = Path(__file__).parent.parent / "fixtures" / "auth_owner_filter.py"


@pytest.fixture(scope="module")
def served_tutorial(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("auth-owner-filter")
    config = write_config(directory, auth={"path": f"{OWNER_FILTER_FILE}:auth"})
    with serving(directory, config) as process:
        yield process


async def test_the_tutorial_s_catch_all_owner_filter_leaves_the_store_working(
    served_tutorial: ServerProcess,
):
    async with (
        sdk_client(served_tutorial.url, api_key="key-a") as alice,
        sdk_client(served_tutorial.url, api_key="key-b") as bob,
    ):
        # Put and get ignore the filter, as langgraph-api does (they answered 500 here).
        await alice.store.put_item(["notes"], "a1", {"owner": "user-a", "text": "mine"})
        await alice.store.put_item(["notes"], "b1", {"owner": "user-b", "text": "theirs"})
        assert (await alice.store.get_item(["notes"], "a1"))["value"]["text"] == "mine"
        assert await alice.store.list_namespaces() == {"namespaces": [["notes"]]}
        # A search applies it to the items' values, beside the request's own filter.
        mine = await alice.store.search_items(["notes"])
        assert [item["key"] for item in mine["items"]] == ["a1"]
        theirs = await bob.store.search_items(["notes"], filter={"text": "theirs"})
        assert [item["key"] for item in theirs["items"]] == ["b1"]
        # The request cannot widen it: the handler's condition on `owner` wins.
        widened = await bob.store.search_items(["notes"], filter={"owner": "user-a"})
        assert [item["key"] for item in widened["items"]] == ["b1"]
        # Threads are still the caller's own.
        thread = await alice.threads.create()
        assert thread["metadata"]["owner"] == "user-a"
        assert await bob.threads.search() == []
