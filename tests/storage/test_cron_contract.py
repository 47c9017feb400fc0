"""The `CronStorage` contract: the same cases on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from open_langgraph.storage.base import Storage, utc_now
from open_langgraph.storage.cron_base import CRON_FIELDS, CronStorage, timestamp

MINE = {"owner": "alice"}
THEIRS = {"owner": "bob"}
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def _at(minutes: float) -> str:
    return timestamp(T0 + timedelta(minutes=minutes))


def _cron(**fields: Any) -> dict[str, Any]:
    now = utc_now()
    cron = {
        "cron_id": str(uuid.uuid4()),
        "assistant_id": "a1",
        "thread_id": None,
        "on_run_completed": "delete",
        "end_time": None,
        "schedule": "* * * * *",
        "timezone": None,
        "created_at": now,
        "updated_at": now,
        "user_id": None,
        "payload": {"input": {"n": 1}},
        "next_run_date": _at(1),
        "metadata": {},
        "enabled": True,
        "user": None,
    }
    return {**cron, **fields}


def _same_time(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return a is b
    return datetime.fromisoformat(a) == datetime.fromisoformat(b)


@pytest.fixture
def crons(storage: Storage) -> CronStorage:
    assert isinstance(storage, CronStorage)
    return storage


async def test_a_cron_reads_back_as_stored(crons: CronStorage):
    user = {"identity": "alice", "permissions": ["x"]}
    cron = _cron(
        thread_id=str(uuid.uuid4()),
        on_run_completed=None,
        end_time=_at(60),
        timezone="Europe/Paris",
        user_id="alice",
        payload={"input": {"n": 1}, "metadata": {"k": [1, {"a": None}]}},
        metadata={"owner": "alice", "k": "v"},
        user=user,
    )
    created = await crons.create_cron(cron)
    got = await crons.get_cron(cron["cron_id"])
    assert created == got
    assert got is not None
    assert set(got) == {*CRON_FIELDS, "user"}
    for field in ("cron_id", "thread_id", "schedule", "timezone", "payload", "metadata"):
        assert got[field] == cron[field], field
    assert got["enabled"] is True
    assert got["user"] == user
    assert _same_time(got["end_time"], cron["end_time"])
    assert _same_time(got["next_run_date"], cron["next_run_date"])
    assert await crons.get_cron(str(uuid.uuid4())) is None


async def test_auth_filters_hide_other_owners_crons(crons: CronStorage):
    mine = await crons.create_cron(_cron(metadata=dict(MINE)))
    theirs = await crons.create_cron(_cron(metadata=dict(THEIRS)))
    assert await crons.get_cron(theirs["cron_id"], MINE) is None
    assert await crons.get_cron(mine["cron_id"], MINE) is not None
    assert await crons.update_cron(theirs["cron_id"], {"enabled": False}, MINE) is None
    assert (await crons.get_cron(theirs["cron_id"]) or {})["enabled"] is True
    assert not await crons.delete_cron(theirs["cron_id"], MINE)
    assert await crons.get_cron(theirs["cron_id"]) is not None
    found = await crons.search_crons(
        assistant_id=None,
        thread_id=None,
        enabled=None,
        metadata=None,
        limit=10,
        offset=0,
        sort_by="created_at",
        sort_order="desc",
        auth_filter=MINE,
    )
    assert [c["cron_id"] for c in found] == [mine["cron_id"]]
    assert await crons.count_crons(assistant_id=None, thread_id=None, metadata=None) == 2
    assert (
        await crons.count_crons(assistant_id=None, thread_id=None, metadata=None, auth_filter=MINE)
        == 1
    )
    assert await crons.delete_cron(mine["cron_id"], MINE)
    assert await crons.get_cron(mine["cron_id"]) is None


async def test_updates_set_fields_and_merge_metadata(crons: CronStorage):
    cron = await crons.create_cron(_cron(metadata={"a": 1, "b": 2}, end_time=_at(5)))
    updated = await crons.update_cron(
        cron["cron_id"],
        {
            "schedule": "0 * * * *",
            "timezone": "Asia/Tokyo",
            "enabled": False,
            "end_time": None,
            "on_run_completed": "keep",
            "payload": {"input": {"n": 2}},
            "metadata": {"b": 3, "c": 4},
            "next_run_date": _at(60),
        },
    )
    assert updated is not None
    assert updated["schedule"] == "0 * * * *"
    assert updated["timezone"] == "Asia/Tokyo"
    assert updated["enabled"] is False
    assert updated["end_time"] is None
    assert updated["on_run_completed"] == "keep"
    assert updated["payload"] == {"input": {"n": 2}}
    assert updated["metadata"] == {"a": 1, "b": 3, "c": 4}
    assert _same_time(updated["next_run_date"], _at(60))
    assert updated["created_at"] == cron["created_at"]
    with pytest.raises(ValueError):
        await crons.update_cron(cron["cron_id"], {"cron_id": "x"})


async def test_search_filters_sorts_and_pages(crons: CronStorage):
    thread = str(uuid.uuid4())
    made = [
        await crons.create_cron(_cron(next_run_date=_at(3))),
        await crons.create_cron(_cron(thread_id=thread, next_run_date=_at(1), enabled=False)),
        await crons.create_cron(
            _cron(assistant_id="a2", next_run_date=_at(2), metadata={"team": "x", "n": 1})
        ),
    ]

    async def ids(**filters: Any) -> list[str]:
        query: dict[str, Any] = {
            "assistant_id": None,
            "thread_id": None,
            "enabled": None,
            "metadata": None,
            "limit": 10,
            "offset": 0,
            "sort_by": "created_at",
            "sort_order": "asc",
            **filters,
        }
        return [c["cron_id"] for c in await crons.search_crons(**query)]

    cron_ids = [c["cron_id"] for c in made]
    assert await ids() == cron_ids
    assert await ids(sort_order="desc") == cron_ids[::-1]
    assert await ids(sort_by="next_run_date") == [cron_ids[1], cron_ids[2], cron_ids[0]]
    assert await ids(limit=1, offset=1) == [cron_ids[1]]
    assert await ids(thread_id=thread) == [cron_ids[1]]
    assert await ids(assistant_id="a2") == [cron_ids[2]]
    assert await ids(enabled=False) == [cron_ids[1]]
    assert await ids(enabled=True) == [cron_ids[0], cron_ids[2]]
    assert await ids(metadata={"team": "x"}) == [cron_ids[2]]
    assert await ids(metadata={"team": "y"}) == []
    assert await crons.count_crons(assistant_id="a1", thread_id=None, metadata=None) == 2
    assert await crons.count_crons(assistant_id=None, thread_id=thread, metadata=None) == 1
    assert await crons.count_crons(assistant_id=None, thread_id=None, metadata={"n": 1}) == 1


async def test_due_crons_are_enabled_come_and_not_past_their_end(crons: CronStorage):
    due = await crons.create_cron(_cron(next_run_date=_at(1)))
    await crons.create_cron(_cron(next_run_date=_at(3)))  # not yet
    await crons.create_cron(_cron(next_run_date=_at(1), enabled=False))
    await crons.create_cron(_cron(next_run_date=_at(1), end_time=_at(0.5)))  # ended
    ends_then = await crons.create_cron(_cron(next_run_date=_at(0.5), end_time=_at(0.5)))
    assert await crons.due_crons(_at(0), 10) == []
    found = await crons.due_crons(_at(2), 10)
    assert [c["cron_id"] for c in found] == [ends_then["cron_id"], due["cron_id"]]
    assert len(await crons.due_crons(_at(2), 1)) == 1


async def test_advancing_claims_a_due_time_once(crons: CronStorage):
    cron = await crons.create_cron(_cron(next_run_date=_at(1)))
    (seen,) = await crons.due_crons(_at(1), 10)
    assert await crons.advance_cron(cron["cron_id"], seen["next_run_date"], _at(2))
    # A second scheduler that read the same row claims nothing.
    assert not await crons.advance_cron(cron["cron_id"], seen["next_run_date"], _at(2))
    assert await crons.due_crons(_at(1.5), 10) == []
    stored = await crons.get_cron(cron["cron_id"])
    assert stored is not None and _same_time(stored["next_run_date"], _at(2))
    # A disabled cron is not claimed, even with the right date.
    await crons.update_cron(cron["cron_id"], {"enabled": False})
    assert not await crons.advance_cron(cron["cron_id"], stored["next_run_date"], _at(3))


async def test_deleting_a_thread_deletes_its_crons(storage: Storage, crons: CronStorage):
    thread_id = str(uuid.uuid4())
    other = str(uuid.uuid4())
    for tid in (thread_id, other):
        await storage.create_thread(thread_id=tid, metadata={}, if_exists="raise")
    on_it = await crons.create_cron(_cron(thread_id=thread_id))
    elsewhere = await crons.create_cron(_cron(thread_id=other))
    stateless = await crons.create_cron(_cron())
    assert await storage.delete_thread(thread_id)
    assert await crons.get_cron(on_it["cron_id"]) is None
    assert await crons.get_cron(elsewhere["cron_id"]) is not None
    assert await crons.get_cron(stateless["cron_id"]) is not None
    assert await storage.prune_threads([other], "delete") == 1
    assert await crons.get_cron(elsewhere["cron_id"]) is None
