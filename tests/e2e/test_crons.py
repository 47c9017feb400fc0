"""Crons through `langgraph_sdk` against a live server: create (stateless and on a thread),
search, count, get, patch, delete, bad input, two users' crons kept apart, and one real
firing (the only wait for a wall-clock minute in this file)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

AUTH_FILE = Path(__file__).parent.parent / "fixtures" / "auth_crons.py"
#: The scheduler looks for due crons every second, so a firing follows its minute closely.
POLL = {"OLG_CRON_POLL_SECONDS": "1"}
#: Up to a minute until the next `* * * * *` time, plus the run itself.
FIRING_TIMEOUT = 90.0


@pytest.fixture(scope="module")
def cron_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-crons")
    with serving(directory, env=POLL) as process:
        yield process


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-crons-auth")
    config = write_config(directory, auth={"path": f"{AUTH_FILE}:auth"})
    with serving(directory, config, env=POLL) as process:
        yield process


@pytest.fixture
async def client(cron_server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(cron_server.url) as lg_client:
        yield lg_client


@pytest.fixture
async def users(auth_server: ServerProcess) -> AsyncIterator[tuple[LangGraphClient, ...]]:
    a = get_client(url=auth_server.url, api_key="key-a")
    b = get_client(url=auth_server.url, api_key="key-b")
    yield a, b
    for lg_client in (a, b):
        await lg_client.http.client.aclose()


async def status_of(call: Awaitable[Any]) -> tuple[int, Any]:
    """The HTTP status a call was refused with, and the refusal's JSON body."""
    try:
        await call
    except httpx.HTTPStatusError as err:
        return err.response.status_code, err.response.json()
    raise AssertionError("the call succeeded")


def get_cron(client: LangGraphClient, cron_id: str) -> Awaitable[Any]:
    """`GET /runs/crons/{cron_id}`, which the SDK's cron client has no method for."""
    return client.http.get(f"/runs/crons/{cron_id}")


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


# -- create, read, change, delete -------------------------------------------------------------
async def test_crons_are_created_found_counted_changed_and_deleted(client: LangGraphClient):
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    on_thread = await client.crons.create_for_thread(
        thread_id,
        "counter",
        schedule="0 9 * * *",
        timezone="America/New_York",
        input={"count": 1},
        metadata={"suite": "crud", "kind": "thread"},
        multitask_strategy="enqueue",
    )
    end = datetime.now(UTC) + timedelta(days=30)
    stateless = await client.crons.create(
        "counter",
        schedule="*/10 * * * *",
        input={"count": 2},
        metadata={"suite": "crud", "kind": "stateless"},
        on_run_completed="keep",
        end_time=end,
        enabled=False,
        stream_mode=["values"],
        durability="sync",
    )
    # The Platform's `Cron` shape.
    for cron in (on_thread, stateless):
        assert set(cron) >= {
            "cron_id",
            "assistant_id",
            "thread_id",
            "on_run_completed",
            "end_time",
            "schedule",
            "timezone",
            "created_at",
            "updated_at",
            "user_id",
            "payload",
            "next_run_date",
            "metadata",
            "enabled",
        }
        uuid.UUID(cron["cron_id"])
    assert on_thread["thread_id"] == thread_id
    assert on_thread["on_run_completed"] is None
    assert on_thread["enabled"] is True
    assert on_thread["payload"]["input"] == {"count": 1}
    assert on_thread["payload"]["multitask_strategy"] == "enqueue"
    # As the Platform stores it: the assistant resolved to its id, and the schedule.
    assert on_thread["payload"]["assistant_id"] == on_thread["assistant_id"]
    assert on_thread["payload"]["schedule"] == on_thread["schedule"]
    assert on_thread["timezone"] == "America/New_York"
    ny_nine = when(on_thread["next_run_date"]).astimezone(ZoneInfo("America/New_York"))
    assert (ny_nine.hour, ny_nine.minute) == (9, 0)
    assert stateless["thread_id"] is None
    assert stateless["on_run_completed"] == "keep"
    assert stateless["enabled"] is False
    assert when(stateless["end_time"]) == end.replace(microsecond=end.microsecond)
    assert when(stateless["next_run_date"]).minute % 10 == 0
    assert stateless["payload"]["stream_mode"] == ["values"]

    assert await get_cron(client, on_thread["cron_id"]) == on_thread

    async def ids(**filters: Any) -> list[str]:
        return [c["cron_id"] for c in await client.crons.search(limit=100, **filters)]

    both = {on_thread["cron_id"], stateless["cron_id"]}
    assert set(await ids(metadata={"suite": "crud"})) == both
    assert await ids(metadata={"suite": "crud"}, sort_by="created_at", sort_order="asc") == [
        on_thread["cron_id"],
        stateless["cron_id"],
    ]
    assert await ids(thread_id=thread_id) == [on_thread["cron_id"]]
    assert await ids(metadata={"suite": "crud"}, enabled=False) == [stateless["cron_id"]]
    assert set(await ids(metadata={"suite": "crud"}, assistant_id="counter")) == both
    assert set(await ids(assistant_id=on_thread["assistant_id"])) >= both
    selected = await client.crons.search(
        metadata={"suite": "crud"}, select=["cron_id", "enabled"], limit=100
    )
    assert all(set(c) == {"cron_id", "enabled"} for c in selected)
    assert await client.crons.count(metadata={"suite": "crud"}) == 2
    assert await client.crons.count(thread_id=thread_id) == 1
    assert await client.crons.count(metadata={"suite": "nothing"}) == 0

    # Patch: enabling counts from now; a new schedule moves the next date; metadata merges;
    # run fields change the payload; end_time=None clears it.
    patched = await client.crons.update(
        stateless["cron_id"],
        enabled=True,
        schedule="30 6 * * *",
        timezone="Asia/Tokyo",
        end_time=None,
        input={"count": 5},
        metadata={"extra": "yes"},
        on_run_completed="delete",
    )
    assert patched["enabled"] is True
    assert patched["schedule"] == "30 6 * * *"
    assert patched["end_time"] is None
    tokyo = when(patched["next_run_date"]).astimezone(ZoneInfo("Asia/Tokyo"))
    assert (tokyo.hour, tokyo.minute) == (6, 30)
    assert when(patched["next_run_date"]) > datetime.now(UTC)
    assert patched["metadata"] == {"suite": "crud", "kind": "stateless", "extra": "yes"}
    assert patched["payload"]["input"] == {"count": 5}
    assert patched["payload"]["stream_mode"] == ["values"]
    assert patched["payload"]["schedule"] == "30 6 * * *"
    assert patched["on_run_completed"] == "delete"
    assert patched["created_at"] == stateless["created_at"]
    assert when(patched["updated_at"]) >= when(stateless["updated_at"])
    assert await get_cron(client, stateless["cron_id"]) == patched
    # Leaving end_time out keeps it.
    ends = datetime.now(UTC) + timedelta(days=2)
    await client.crons.update(stateless["cron_id"], end_time=ends)
    kept = await client.crons.update(stateless["cron_id"], enabled=False)
    assert when(kept["end_time"]) == ends

    await client.crons.delete(on_thread["cron_id"])
    status, body = await status_of(get_cron(client, on_thread["cron_id"]))
    assert status == 404 and "not found" in body["detail"]
    assert await ids(metadata={"suite": "crud"}) == [stateless["cron_id"]]
    assert (await status_of(client.crons.delete(on_thread["cron_id"])))[0] == 404
    await client.crons.delete(stateless["cron_id"])
    assert await client.crons.count(metadata={"suite": "crud"}) == 0


async def test_bad_cron_requests_are_refused_with_a_detail(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    nowhere = str(uuid.uuid4())
    refused = [
        (client.crons.create("counter", schedule="every minute"), 422, "schedule"),
        (client.crons.create("counter", schedule="61 * * * *"), 422, "schedule"),
        (
            client.crons.create("counter", schedule="* * * * *", timezone="Mars/Olympus"),
            422,
            "timezone",
        ),
        (client.crons.create("no-such-graph", schedule="* * * * *"), 422, "assistant"),
        (client.crons.create(nowhere, schedule="* * * * *"), 404, "not found"),
        (
            client.crons.create_for_thread(nowhere, "counter", schedule="* * * * *"),
            404,
            "not found",
        ),
        (
            client.crons.create_for_thread("not-a-uuid", "counter", schedule="* * * * *"),
            422,
            "UUID",
        ),
        (client.crons.create_for_thread(thread_id, "counter", schedule=""), 422, "schedule"),
        (get_cron(client, nowhere), 404, "not found"),
        (get_cron(client, "not-a-uuid"), 422, "UUID"),
        (client.crons.update(nowhere, enabled=False), 404, "not found"),
        (client.crons.delete(nowhere), 404, "not found"),
        (client.crons.search(thread_id="not-a-uuid"), 422, "UUID"),
    ]
    for call, status, words in refused:
        got, body = await status_of(call)
        assert got == status, body
        assert isinstance(body["detail"], str)
        assert words.lower() in body["detail"].lower(), body
    cron = await client.crons.create_for_thread(thread_id, "counter", schedule="0 0 1 1 *")
    for patch, status in (
        ({"schedule": "nope"}, 422),
        ({"timezone": "Nowhere/Land"}, 422),
        ({"enabled": "maybe"}, 422),
        ({}, 400),
    ):
        response = await client.http.client.patch(f"/runs/crons/{cron['cron_id']}", json=patch)
        assert response.status_code == status, (patch, response.text)
        assert isinstance(response.json()["detail"], str)
    for body in (
        {"assistant_id": "counter"},
        {"schedule": "* * * * *"},
        {"assistant_id": "counter", "schedule": "* * * * *", "on_run_completed": "archive"},
        {"assistant_id": "counter", "schedule": "* * * * *", "end_time": "tomorrow"},
    ):
        response = await client.http.client.post("/runs/crons", json=body)
        assert response.status_code == 422, (body, response.text)
    for body in ({"sort_by": "schedule"}, {"select": ["secret"]}, {"limit": 0}):
        response = await client.http.client.post("/runs/crons/search", json=body)
        assert response.status_code == 422, (body, response.text)
    # Nothing half-made: the refused creations left only the one valid cron.
    assert await client.crons.count(thread_id=thread_id) == 1
    await client.crons.delete(cron["cron_id"])


async def test_deleting_a_thread_deletes_its_crons(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    cron = await client.crons.create_for_thread(thread_id, "counter", schedule="0 0 1 1 *")
    await client.threads.delete(thread_id)
    assert (await status_of(get_cron(client, cron["cron_id"])))[0] == 404
    assert await client.crons.count(thread_id=thread_id) == 0


# -- two users --------------------------------------------------------------------------------
async def test_users_cannot_see_or_change_each_others_crons(users: tuple[LangGraphClient, ...]):
    a, b = users
    a_thread = (await a.threads.create())["thread_id"]
    a_cron = await a.crons.create_for_thread(
        a_thread, "counter", schedule="0 0 1 1 *", metadata={"tag": "a-cron"}
    )
    assert a_cron["metadata"]["owner"] == "user-a"
    assert a_cron["user_id"] == "user-a"
    # B forges A's ownership on a cron of its own: the handler's owner wins.
    b_cron = await b.crons.create("counter", schedule="0 0 1 1 *", metadata={"owner": "user-a"})
    assert b_cron["metadata"]["owner"] == "user-b"
    assert b_cron["payload"]["metadata"]["owner"] == "user-b"  # and so its runs' metadata

    assert (await status_of(get_cron(b, a_cron["cron_id"])))[0] == 404
    assert (await status_of(b.crons.update(a_cron["cron_id"], enabled=False)))[0] == 404
    assert (await status_of(b.crons.delete(a_cron["cron_id"])))[0] == 404
    # B cannot put a cron on A's thread.
    assert (await status_of(b.crons.create_for_thread(a_thread, "counter", schedule="* * * * *")))[
        0
    ] == 404
    assert [c["cron_id"] for c in await b.crons.search(limit=100)] == [b_cron["cron_id"]]
    assert await b.crons.search(thread_id=a_thread) == []
    assert await b.crons.search(metadata={"tag": "a-cron"}) == []
    assert await b.crons.count() == 1
    assert await b.crons.count(metadata={"owner": "user-a"}) == 0

    # A's cron is as it was, and A can do all of it.
    assert await get_cron(a, a_cron["cron_id"]) == a_cron
    assert [c["cron_id"] for c in await a.crons.search(limit=100)] == [a_cron["cron_id"]]
    assert await a.crons.count() == 1
    updated = await a.crons.update(a_cron["cron_id"], enabled=False, metadata={"owner": "user-b"})
    assert updated["metadata"]["owner"] == "user-a"
    assert updated["payload"]["metadata"]["owner"] == "user-a"
    assert (await status_of(get_cron(b, a_cron["cron_id"])))[0] == 404
    await a.crons.delete(a_cron["cron_id"])
    await b.crons.delete(b_cron["cron_id"])


# -- the one real firing ------------------------------------------------------------------------
async def runs_unless_deleted(client: LangGraphClient, thread_id: str) -> list[dict[str, Any]]:
    """The thread's runs, or none when it is gone: a stateless cron's thread is deleted after
    its run (`on_run_completed: delete`), maybe between the search that found it and this."""
    try:
        return await client.runs.list(thread_id)
    except httpx.HTTPStatusError as err:
        if err.response.status_code != 404:
            raise
        return []


async def test_due_crons_fire_as_their_user_and_stateless_threads_follow_on_run_completed(
    users: tuple[LangGraphClient, ...],
):
    """On one `* * * * *` minute: A's cron on A's thread, A's stateless crons keeping and
    deleting their threads; each fires once, as A, and B sees none of it."""
    a, b = users
    thread_id = (await a.threads.create(metadata={"for": "cron"}))["thread_id"]
    before = {t["thread_id"] for t in await a.threads.search(limit=1000)}
    every_minute = {"schedule": "* * * * *", "input": {}}
    # The three crons must share their first minute: created across a minute's turn, the
    # first would fire twice before the last fired once (seen on a loaded machine).
    if (second := datetime.now(UTC).second) >= 45:
        await asyncio.sleep(61 - second)
    on_thread = await a.crons.create_for_thread(thread_id, "whoami", **every_minute)
    keep = await a.crons.create("whoami", on_run_completed="keep", **every_minute)
    delete = await a.crons.create("whoami", **every_minute)
    assert delete["on_run_completed"] == "delete"
    first_due = when(on_thread["next_run_date"])
    assert {when(c["next_run_date"]) for c in (keep, delete)} == {first_due}
    assert first_due - datetime.now(UTC) <= timedelta(seconds=61)
    crons = (on_thread, keep, delete)
    try:
        deadline = time.monotonic() + FIRING_TIMEOUT
        kept: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            runs = await a.runs.list(thread_id)
            new = {t["thread_id"] for t in await a.threads.search(limit=1000)} - before
            kept = [run for t in new for run in await runs_unless_deleted(a, t)]
            advanced = [
                when((await get_cron(a, c["cron_id"]))["next_run_date"]) > first_due for c in crons
            ]
            failed = [
                r for r in [*runs, *kept] if r["status"] not in ("pending", "running", "success")
            ]
            assert not failed, failed
            if (
                all(advanced)
                and [r["status"] for r in runs] == ["success"]
                and [r["status"] for r in kept] == ["success"]
                and len(new) == 1
            ):
                break
            await asyncio.sleep(0.5)
        else:
            raise AssertionError(f"crons did not fire in {FIRING_TIMEOUT}s: {runs} {kept}")
        # The delete cron's thread was made and removed after its run: only keep's is left.
        await asyncio.sleep(2)
        new = {t["thread_id"] for t in await a.threads.search(limit=1000)} - before
        assert len(new) == 1
        (kept_run,) = kept
        assert kept_run["kwargs"]["config"]["configurable"]["cron_id"] == keep["cron_id"]
        (run,) = await a.runs.list(thread_id)
        assert run["kwargs"]["config"]["configurable"]["cron_id"] == on_thread["cron_id"]
        assert (await a.threads.get_state(thread_id))["values"]["user_id"] == "user-a"
        (kept_thread,) = new
        assert (await a.threads.get_state(kept_thread))["values"]["user_id"] == "user-a"
        assert (await a.threads.get(kept_thread))["metadata"]["owner"] == "user-a"
        # B sees none of A's threads or runs.
        b_threads = {t["thread_id"] for t in await b.threads.search(limit=1000)}
        assert not b_threads & {thread_id, kept_thread}
    finally:
        for cron in crons:
            await a.crons.delete(cron["cron_id"])
