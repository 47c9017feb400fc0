"""Authorization filters: exact equality and list membership, applied inside SQLite queries.

Unlike metadata search filters (jsonb containment), an auth filter's equality is exact, as on
LangGraph Platform: `{"owner": "a"}` must not match `{"owner": ["a", "b"]}`, or a user could
join another's resources by writing a list into their own metadata.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from open_langgraph.auth.filters import InvalidFilter, check_filter, equality_parts, stamped
from open_langgraph.errors import Conflict
from open_langgraph.storage.filters import json_matches_auth_filter, matches_auth_filter
from open_langgraph.storage.sqlite import SqliteStorage

CASES: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    ({"owner": "a"}, {"owner": "a"}, True),
    ({"owner": "a"}, {"owner": "b"}, False),
    ({}, {"owner": "a"}, False),
    ({"owner": ["a", "b"]}, {"owner": "a"}, False),  # not containment
    ({"owner": {"id": "a", "x": 1}}, {"owner": {"id": "a"}}, False),
    ({"owner": {"id": "a"}}, {"owner": {"id": "a"}}, True),
    ({"n": 1}, {"n": True}, False),  # true is not 1
    ({"n": 1}, {"n": 1.0}, True),
    ({"owner": "a"}, {"owner": {"$eq": "a"}}, True),
    ({"owner": "b"}, {"owner": {"$eq": "a"}}, False),
    ({"team": ["x", "y"]}, {"team": {"$contains": "x"}}, True),
    ({"team": ["x", "y"]}, {"team": {"$contains": "z"}}, False),
    ({"team": ["x", "y"]}, {"team": {"$contains": ["y", "x"]}}, True),
    ({"team": ["x"]}, {"team": {"$contains": ["x", "y"]}}, False),
    ({"team": "x"}, {"team": {"$contains": "x"}}, False),  # not a list
    ({"owner": "a", "team": ["x"]}, {"owner": "a", "team": {"$contains": "x"}}, True),
    ({"owner": "a", "team": ["y"]}, {"owner": "a", "team": {"$contains": "x"}}, False),
    ({"owner": "b"}, {"$or": [{"owner": "a"}, {"owner": "b"}]}, True),
    ({"owner": "c"}, {"$or": [{"owner": "a"}, {"owner": "b"}]}, False),
    ({"owner": "a", "t": 1}, {"$and": [{"owner": "a"}, {"t": 1}]}, True),
    ({"owner": "a", "t": 2}, {"$and": [{"owner": "a"}, {"t": 1}]}, False),
]


@pytest.mark.parametrize(("metadata", "auth_filter", "expected"), CASES)
def test_matching(metadata, auth_filter, expected):
    assert matches_auth_filter(metadata, check_filter(auth_filter)) is expected


def test_the_sql_function_form_agrees_and_a_missing_document_never_matches():
    assert json_matches_auth_filter(b'{"owner": "a"}', b'{"owner": "a"}')
    assert not json_matches_auth_filter(None, b'{"owner": "a"}')
    assert not json_matches_auth_filter(b"[1]", b'{"owner": "a"}')


@pytest.mark.parametrize(
    "bad",
    [
        {"owner": {"$ne": "a"}},
        {"owner": {"$eq": "a", "$contains": "b"}},
        {"$not": {"owner": "a"}},
        {"$or": [{"owner": "a"}]},
        {"$or": {"owner": "a"}},
        {"$or": [{"$or": [{"$or": [{"a": 1}, {"a": 2}]}, {"a": 3}]}, {"a": 4}]},
        ["owner"],
    ],
)
def test_filters_this_server_cannot_apply_are_refused(bad):
    with pytest.raises(InvalidFilter):
        check_filter(bad)


def test_the_equality_parts_are_what_a_new_resource_gets():
    auth_filter = {"owner": "a", "org": {"$eq": "o"}, "team": {"$contains": "x"}, "$or": []}
    assert equality_parts(auth_filter) == {"owner": "a", "org": "o"}
    # The filter wins over what the client wrote, so a resource cannot be given away.
    assert stamped({"owner": "b", "topic": 1}, auth_filter, None) == {
        "owner": "a",
        "org": "o",
        "topic": 1,
    }


@pytest.fixture
async def storage() -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage.from_path(":memory:") as opened:
        yield opened


async def test_storage_treats_threads_outside_the_filter_as_missing(storage: SqliteStorage):
    mine, theirs = {"owner": "a"}, {"owner": "b"}
    await storage.create_thread(thread_id="t-a", metadata=mine, if_exists="raise")
    await storage.create_thread(thread_id="t-b", metadata=theirs, if_exists="raise")
    search = {
        "ids": None,
        "metadata": None,
        "values": None,
        "status": None,
        "limit": 10,
        "offset": 0,
        "sort_by": "created_at",
        "sort_order": "asc",
    }
    found = await storage.search_threads(**search, auth_filter=mine)
    assert [t["thread_id"] for t in found] == ["t-a"]
    assert (
        await storage.count_threads(metadata=None, values=None, status=None, auth_filter=mine) == 1
    )
    assert await storage.get_thread("t-b", mine) is None
    assert await storage.patch_thread("t-b", {"x": 1}, mine) is None
    assert not await storage.delete_thread("t-b", mine)
    assert await storage.copy_thread("t-b", "t-copy", mine) is None
    assert await storage.prune_threads(["t-b"], "delete", mine) == 0
    with pytest.raises(Conflict):  # do_nothing never hands out another user's thread
        await storage.create_thread(
            thread_id="t-b", metadata=mine, if_exists="do_nothing", auth_filter=mine
        )
    assert (await storage.get_thread("t-b"))["metadata"] == theirs
    copied = await storage.copy_thread("t-a", "t-a2", mine, {"owner": "a", "copy": True})
    assert copied is not None and copied["metadata"] == {"owner": "a", "copy": True}


async def test_storage_treats_assistants_outside_the_filter_as_missing(storage: SqliteStorage):
    common = {"graph_id": "g", "config": {}, "context": {}, "name": "n", "description": None}
    mine = {"owner": "a"}
    await storage.create_assistant(assistant_id="as-a", metadata=mine, if_exists="raise", **common)
    await storage.create_assistant(
        assistant_id="as-b", metadata={"owner": "b"}, if_exists="raise", **common
    )
    assert await storage.get_assistant("as-b", mine) is None
    assert await storage.patch_assistant("as-b", {"name": "x"}, mine) is None
    assert not await storage.delete_assistant("as-b", mine)
    found = await storage.search_assistants(
        graph_id=None,
        name=None,
        metadata=None,
        limit=10,
        offset=0,
        sort_by="created_at",
        sort_order="asc",
        auth_filter=mine,
    )
    assert [a["assistant_id"] for a in found] == ["as-a"]
    count = await storage.count_assistants(
        graph_id=None, name=None, metadata=None, auth_filter=mine
    )
    assert count == 1
    with pytest.raises(Conflict):
        await storage.create_assistant(
            assistant_id="as-b", metadata=mine, if_exists="do_nothing", auth_filter=mine, **common
        )


@pytest.mark.parametrize(
    ("auth_filter", "expected"),
    [
        ({"owner": "a"}, {"str"}),
        ({"owner": {"$eq": "a"}}, {"str"}),
        ({"owner": '["a"]'}, {"text-of-list"}),
        ({"owner": "1"}, {"text-one"}),
        ({"owner": "a", "team": {"$contains": "x"}}, {"str"}),
        ({"owner": {"$contains": "a"}}, {"list"}),
        ({"a.b": "dotted"}, {"dotted"}),
        ({'we"ird': "q"}, {"quoted"}),
        ({"owner": "zzz"}, set()),
    ],
)
async def test_storage_matches_exactly_like_the_python_definition(
    storage: SqliteStorage, auth_filter: dict[str, Any], expected: set[str]
):
    """String equality runs as SQLite JSON functions; it must agree with
    `matches_auth_filter` on lists, JSON text that looks like a list, numbers and odd keys."""
    rows = {
        "str": {"owner": "a", "team": ["x"]},
        "list": {"owner": ["a"]},
        "text-of-list": {"owner": '["a"]'},
        "text-one": {"owner": "1"},
        "number-one": {"owner": 1},
        "dotted": {"a.b": "dotted", "a": {"b": "nested"}},
        "quoted": {'we"ird': "q"},
    }
    for thread_id, metadata in rows.items():
        await storage.create_thread(thread_id=thread_id, metadata=metadata, if_exists="raise")
    found = await storage.search_threads(
        ids=None,
        metadata=None,
        values=None,
        status=None,
        limit=100,
        offset=0,
        sort_by="created_at",
        sort_order="asc",
        auth_filter=auth_filter,
    )
    assert {t["thread_id"] for t in found} == expected
    assert expected == {k for k, m in rows.items() if matches_auth_filter(m, auth_filter)}
