"""The `Storage` contract: the same cases on every backend (SQLite and PostgreSQL).

Each test asserts what the server relies on from a backend, through the public interface
only, so a new backend passes by behaving the same, never by sharing tables or SQL.
"""

from __future__ import annotations

import operator
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from open_langgraph.errors import Conflict
from open_langgraph.storage.base import Storage, StoredEvent, ThreadUpdate, utc_now
from open_langgraph.storage.filters import matches_auth_filter
from tests.unit.test_auth_filters import CASES as AUTH_CASES

MINE = {"owner": "alice"}
THEIRS = {"owner": "bob"}


# -- helpers --------------------------------------------------------------------------------
class _State(TypedDict):
    steps: Annotated[list[str], operator.add]


def _graph(checkpointer: Any) -> Any:
    builder = StateGraph(_State)
    builder.add_node("step", lambda state: {"steps": [f"s{len(state['steps'])}"]})
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=checkpointer)


async def _run_graph(storage: Storage, thread_id: str, run_id: str) -> dict[str, Any]:
    """Checkpoints written by the backend's own checkpointer, as a run writes them."""
    config = {"configurable": {"thread_id": thread_id, "run_id": run_id}}
    return await _graph(storage.checkpointer).ainvoke({"steps": []}, config)


async def _checkpoints(storage: Storage, thread_id: str) -> list[Any]:
    config = {"configurable": {"thread_id": thread_id}}
    return [c async for c in storage.checkpointer.alist(config)]


async def _latest_steps(storage: Storage, thread_id: str) -> list[str] | None:
    found = await storage.checkpointer.aget_tuple({"configurable": {"thread_id": thread_id}})
    return None if found is None else found.checkpoint["channel_values"].get("steps")


async def _assistant(storage: Storage, assistant_id: str, **overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "graph_id": "agent",
        "config": {"configurable": {"k": 1}},
        "context": {"c": True},
        "metadata": {},
        "name": assistant_id,
        "description": None,
        "if_exists": "raise",
    }
    fields.update(overrides)
    return await storage.create_assistant(assistant_id=assistant_id, **fields)


def _search_assistants(**overrides: Any) -> dict[str, Any]:
    query: dict[str, Any] = {
        "graph_id": None,
        "name": None,
        "metadata": None,
        "limit": 100,
        "offset": 0,
        "sort_by": "created_at",
        "sort_order": "asc",
    }
    query.update(overrides)
    return query


def _search_threads(**overrides: Any) -> dict[str, Any]:
    query: dict[str, Any] = {
        "ids": None,
        "metadata": None,
        "values": None,
        "status": None,
        "limit": 100,
        "offset": 0,
        "sort_by": "created_at",
        "sort_order": "asc",
    }
    query.update(overrides)
    return query


def _run(run_id: str, thread_id: str, status: str = "pending", **overrides: Any) -> dict[str, Any]:
    now = overrides.pop("created_at", None) or utc_now()
    return {
        "run_id": run_id,
        "thread_id": thread_id,
        "assistant_id": "as-1",
        "created_at": now,
        "updated_at": now,
        "status": status,
        "metadata": {"m": 1},
        "kwargs": {"input": {"x": 1}, "config": {}},
        "multitask_strategy": "reject",
        **overrides,
    }


def _events(*names: str) -> list[StoredEvent]:
    return [StoredEvent(i, name, f'{{"n":{i}}}'.encode()) for i, name in enumerate(names)]


# -- lifecycle ------------------------------------------------------------------------------
async def test_setup_is_idempotent_and_keeps_data(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={"a": 1}, if_exists="raise")
    await storage.setup()
    await storage.setup()
    assert (await storage.get_thread("t"))["metadata"] == {"a": 1}


# -- assistants -----------------------------------------------------------------------------
async def test_create_and_get_assistant_round_trip(storage: Storage):
    created = await _assistant(storage, "as-1", metadata={"tier": "gold"}, description="d")
    assert created["version"] == 1
    fetched = await storage.get_assistant("as-1")
    assert fetched == created
    assert await storage.get_assistant("missing") is None


async def test_create_assistant_conflicts(storage: Storage):
    first = await _assistant(storage, "as-1", metadata=MINE)
    with pytest.raises(Conflict):
        await _assistant(storage, "as-1")
    same = await _assistant(storage, "as-1", name="other", if_exists="do_nothing")
    assert same == first
    inside = await _assistant(storage, "as-1", if_exists="do_nothing", auth_filter=MINE)
    assert inside == first
    with pytest.raises(Conflict):
        await _assistant(storage, "as-1", if_exists="do_nothing", auth_filter=THEIRS)


async def test_patch_assistant_writes_a_new_version_and_merges_metadata(storage: Storage):
    await _assistant(storage, "as-1", metadata={"a": 1, "b": 2})
    patched = await storage.patch_assistant(
        "as-1", {"metadata": {"b": 3, "c": 4}, "name": "renamed", "config": {"x": 1}}
    )
    assert patched is not None
    assert patched["version"] == 2
    assert patched["metadata"] == {"a": 1, "b": 3, "c": 4}
    assert patched["name"] == "renamed"
    assert patched["context"] == {"c": True}
    assert await storage.get_assistant("as-1") == patched
    assert await storage.patch_assistant("missing", {"name": "x"}) is None


async def test_assistant_versions_listing_and_setting_latest(storage: Storage):
    await _assistant(storage, "as-1", metadata={"v": 1})
    await storage.patch_assistant("as-1", {"metadata": {"v": 2}, "name": "two"})
    await storage.patch_assistant("as-1", {"metadata": {"v": 3}, "name": "three"})
    versions = await storage.list_assistant_versions("as-1", metadata=None, limit=10, offset=0)
    assert [v["version"] for v in versions] == [3, 2, 1]
    assert all("updated_at" not in v for v in versions)
    assert versions[1]["name"] == "two"
    only = await storage.list_assistant_versions("as-1", metadata={"v": 2}, limit=10, offset=0)
    assert [v["version"] for v in only] == [2]
    paged = await storage.list_assistant_versions("as-1", metadata=None, limit=1, offset=1)
    assert [v["version"] for v in paged] == [2]

    latest = await storage.set_latest_assistant_version("as-1", 1)
    assert latest is not None
    assert (latest["version"], latest["name"], latest["metadata"]) == (1, "as-1", {"v": 1})
    assert (await storage.get_assistant("as-1"))["version"] == 1
    assert await storage.set_latest_assistant_version("as-1", 9) is None
    assert await storage.set_latest_assistant_version("missing", 1) is None
    # A patch after a rollback still gets a version number never used before.
    after = await storage.patch_assistant("as-1", {"name": "four"})
    assert after is not None and after["version"] == 4


async def test_delete_assistant_removes_its_versions(storage: Storage):
    await _assistant(storage, "as-1")
    await storage.patch_assistant("as-1", {"name": "two"})
    assert await storage.delete_assistant("as-1") is True
    assert await storage.get_assistant("as-1") is None
    assert await storage.list_assistant_versions("as-1", metadata=None, limit=10, offset=0) == []
    assert await storage.delete_assistant("as-1") is False
    # The id can be used again, starting at version 1.
    assert (await _assistant(storage, "as-1"))["version"] == 1


async def test_search_and_count_assistants(storage: Storage):
    await _assistant(storage, "a1", graph_id="g1", name="Alpha_1", metadata={"tags": ["x", "y"]})
    await _assistant(storage, "a2", graph_id="g1", name="beta", metadata={"tags": ["y"]})
    await _assistant(storage, "a3", graph_id="g2", name="ALPHA-3", metadata={"n": {"d": 1}})

    async def ids(**query: Any) -> list[str]:
        found = await storage.search_assistants(**_search_assistants(**query))
        return [a["assistant_id"] for a in found]

    assert await ids() == ["a1", "a2", "a3"]
    assert await ids(sort_order="desc") == ["a3", "a2", "a1"]
    assert await ids(sort_by="name") in (["a3", "a1", "a2"], ["a1", "a3", "a2"])
    assert await ids(graph_id="g1") == ["a1", "a2"]
    assert await ids(name="alpha") == ["a1", "a3"]  # case-insensitive substring
    assert await ids(name="a_1") == ["a1"]  # `_` is a literal, not a wildcard
    assert await ids(name="%") == []
    assert await ids(metadata={"tags": ["y"]}) == ["a1", "a2"]
    assert await ids(metadata={"tags": "x"}) == []  # jsonb @>: a string is not in a list value
    assert await ids(metadata={"n": {}}) == ["a3"]
    assert await ids(limit=1, offset=1) == ["a2"]
    count = storage.count_assistants
    assert await count(graph_id=None, name=None, metadata=None) == 3
    assert await count(graph_id="g1", name="alp", metadata={"tags": ["x"]}) == 1


async def test_assistants_outside_the_auth_filter_are_missing(storage: Storage):
    await _assistant(storage, "mine", metadata=MINE)
    await _assistant(storage, "theirs", metadata=THEIRS)
    assert await storage.get_assistant("theirs", MINE) is None
    assert await storage.get_assistant("mine", MINE) is not None
    assert await storage.patch_assistant("theirs", {"name": "x"}, MINE) is None
    assert await storage.delete_assistant("theirs", MINE) is False
    assert await storage.get_assistant("theirs") is not None
    found = await storage.search_assistants(**_search_assistants(auth_filter=MINE))
    assert [a["assistant_id"] for a in found] == ["mine"]
    assert (
        await storage.count_assistants(graph_id=None, name=None, metadata=None, auth_filter=MINE)
        == 1
    )
    assert await storage.delete_assistant("mine", MINE) is True


# -- threads --------------------------------------------------------------------------------
async def test_create_and_get_thread(storage: Storage):
    created = await storage.create_thread(thread_id="t", metadata={"a": 1}, if_exists="raise")
    assert created["status"] == "idle"
    assert created["values"] is None
    assert (created["config"], created["interrupts"], created["error"]) == ({}, {}, None)
    assert await storage.get_thread("t") == created
    assert await storage.get_thread("missing") is None


async def test_create_thread_conflicts(storage: Storage):
    first = await storage.create_thread(thread_id="t", metadata=MINE, if_exists="raise")
    with pytest.raises(Conflict):
        await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    assert await storage.create_thread(thread_id="t", metadata={}, if_exists="do_nothing") == first
    again = await storage.create_thread(
        thread_id="t", metadata={}, if_exists="do_nothing", auth_filter=MINE
    )
    assert again == first
    with pytest.raises(Conflict):
        await storage.create_thread(
            thread_id="t", metadata={}, if_exists="do_nothing", auth_filter=THEIRS
        )


async def test_patch_thread_merges_metadata_as_a_json_merge_patch(storage: Storage):
    await storage.create_thread(
        thread_id="t", metadata={"a": 1, "gone": 1, "nested": {"x": 1, "y": 2}}, if_exists="raise"
    )
    patched = await storage.patch_thread("t", {"b": 2, "gone": None, "nested": {"y": 3}})
    assert patched is not None
    assert patched["metadata"] == {"a": 1, "b": 2, "nested": {"x": 1, "y": 3}}
    assert patched["updated_at"] >= patched["created_at"]
    assert await storage.get_thread("t") == patched
    assert await storage.patch_thread("missing", {"a": 1}) is None


async def test_update_thread_sets_only_what_it_names(storage: Storage):
    created = await storage.create_thread(thread_id="t", metadata={"a": 1}, if_exists="raise")
    await storage.update_thread(
        "t",
        ThreadUpdate(
            status="interrupted",
            values={"messages": [1, 2]},
            interrupts={"task": [{"value": "?"}]},
            error={"error": "E", "message": "m"},
            metadata={"graph_id": "g"},
            state_updated=True,
        ),
    )
    thread = await storage.get_thread("t")
    assert thread["status"] == "interrupted"
    assert thread["values"] == {"messages": [1, 2]}
    assert thread["interrupts"] == {"task": [{"value": "?"}]}
    assert thread["error"] == {"error": "E", "message": "m"}
    assert thread["metadata"] == {"a": 1, "graph_id": "g"}
    assert thread["state_updated_at"] > created["state_updated_at"]

    await storage.update_thread("t", ThreadUpdate(status="idle", error=None))
    kept = await storage.get_thread("t")
    assert (kept["status"], kept["error"]) == ("idle", None)
    assert kept["values"] == {"messages": [1, 2]}  # UNSET: unchanged
    assert kept["state_updated_at"] == thread["state_updated_at"]
    await storage.update_thread("t", ThreadUpdate(values=None))
    assert (await storage.get_thread("t"))["values"] is None


async def test_search_and_count_threads(storage: Storage):
    await storage.create_thread(thread_id="t1", metadata={"k": "a", "l": [1, 2]}, if_exists="raise")
    await storage.create_thread(thread_id="t2", metadata={"k": "b"}, if_exists="raise")
    await storage.create_thread(thread_id="t3", metadata={"k": "a"}, if_exists="raise")
    await storage.update_thread("t2", ThreadUpdate(status="busy", values={"v": {"deep": 1}}))
    await storage.update_thread("t3", ThreadUpdate(values={"v": {"deep": 2}}))

    async def ids(**query: Any) -> list[str]:
        return [t["thread_id"] for t in await storage.search_threads(**_search_threads(**query))]

    assert await ids() == ["t1", "t2", "t3"]
    assert await ids(sort_order="desc") == ["t3", "t2", "t1"]
    assert await ids(sort_by="updated_at") == ["t1", "t2", "t3"]
    assert await ids(sort_by="thread_id", sort_order="desc") == ["t3", "t2", "t1"]
    assert await ids(ids=["t3", "t1", "nope"]) == ["t1", "t3"]
    assert await ids(ids=[]) == []
    assert await ids(metadata={"k": "a"}) == ["t1", "t3"]
    assert await ids(metadata={"l": [2]}) == ["t1"]
    assert await ids(values={"v": {"deep": 1}}) == ["t2"]
    assert await ids(values={"v": {}}) == ["t2", "t3"]
    assert await ids(status="busy") == ["t2"]
    assert await ids(limit=2, offset=1) == ["t2", "t3"]
    count = storage.count_threads
    assert await count(metadata=None, values=None, status=None) == 3
    assert await count(metadata={"k": "a"}, values=None, status="idle") == 2
    assert await count(metadata=None, values={"v": {"deep": 2}}, status=None) == 1


async def test_threads_outside_the_auth_filter_are_missing(storage: Storage):
    await storage.create_thread(thread_id="mine", metadata=MINE, if_exists="raise")
    await storage.create_thread(thread_id="theirs", metadata=THEIRS, if_exists="raise")
    assert await storage.get_thread("theirs", MINE) is None
    assert await storage.patch_thread("theirs", {"x": 1}, MINE) is None
    assert await storage.delete_thread("theirs", MINE) is False
    assert await storage.copy_thread("theirs", "stolen", MINE) is None
    assert await storage.get_thread("stolen") is None
    assert await storage.prune_threads(["theirs"], "delete", MINE) == 0
    assert await storage.get_thread("theirs") is not None
    found = await storage.search_threads(**_search_threads(auth_filter=MINE))
    assert [t["thread_id"] for t in found] == ["mine"]
    assert (
        await storage.count_threads(metadata=None, values=None, status=None, auth_filter=MINE) == 1
    )


@pytest.mark.parametrize(("metadata", "auth_filter", "expected"), AUTH_CASES)
async def test_auth_filters_match_exactly_like_the_python_definition(
    storage: Storage, metadata: dict[str, Any], auth_filter: dict[str, Any], expected: bool
):
    assert matches_auth_filter(metadata, auth_filter) is expected
    await storage.create_thread(thread_id="t", metadata=metadata, if_exists="raise")
    assert (await storage.get_thread("t", auth_filter) is not None) is expected
    count = await storage.count_threads(
        metadata=None, values=None, status=None, auth_filter=auth_filter
    )
    assert count == int(expected)


async def test_delete_thread_removes_runs_events_checkpoints_and_ttl(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await storage.create_thread(thread_id="other", metadata={}, if_exists="raise")
    await storage.create_run(_run("r1", "t"), ThreadUpdate(status="busy"))
    await storage.finish_run(
        "r1",
        status="success",
        output=None,
        error=None,
        events=_events("values"),
        thread_update=None,
    )
    await _run_graph(storage, "t", "r1")
    await _run_graph(storage, "other", "r0")
    await storage.set_thread_ttl("t", "delete", 5, "2999-01-01T00:00:00.000000+00:00")

    assert await storage.delete_thread("t") is True
    assert await storage.get_thread("t") is None
    assert await storage.get_run("r1") is None
    assert await storage.get_run_events("r1") == []
    assert await _checkpoints(storage, "t") == []
    assert await storage.get_thread_ttl("t") is None
    assert await storage.delete_thread("t") is False
    assert await _latest_steps(storage, "other") == ["s0"]  # other threads untouched


async def test_copy_thread_copies_row_and_checkpoints(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={"a": 1}, if_exists="raise")
    await _run_graph(storage, "t", "r1")
    await _run_graph(storage, "t", "r2")
    await storage.update_thread("t", ThreadUpdate(status="busy", values={"steps": ["s0", "s1"]}))

    copy = await storage.copy_thread("t", "t2")
    assert copy is not None
    assert copy["thread_id"] == "t2"
    assert copy["status"] == "idle"  # a copy has no run in progress
    assert (copy["metadata"], copy["values"]) == ({"a": 1}, {"steps": ["s0", "s1"]})
    assert await _latest_steps(storage, "t2") == ["s0", "s1"]
    original = [c.checkpoint["id"] for c in await _checkpoints(storage, "t")]
    assert [c.checkpoint["id"] for c in await _checkpoints(storage, "t2")] == original
    # The copy continues on its own; the original is unchanged.
    await _run_graph(storage, "t2", "r3")
    assert await _latest_steps(storage, "t2") == ["s0", "s1", "s2"]
    assert await _latest_steps(storage, "t") == ["s0", "s1"]

    renamed = await storage.copy_thread("t", "t3", metadata={"b": 2})
    assert renamed is not None and renamed["metadata"] == {"b": 2}
    assert await storage.copy_thread("missing", "t4") is None
    assert await storage.get_thread("t4") is None


async def test_prune_threads(storage: Storage):
    for thread_id in ("keep", "drop", "mine"):
        await storage.create_thread(
            thread_id=thread_id, metadata=MINE if thread_id == "mine" else {}, if_exists="raise"
        )
        await _run_graph(storage, thread_id, "r1")
        await _run_graph(storage, thread_id, "r2")
    assert len(await _checkpoints(storage, "keep")) > 1

    assert await storage.prune_threads(["keep", "missing"], "keep_latest") == 1
    assert len(await _checkpoints(storage, "keep")) == 1
    assert await _latest_steps(storage, "keep") == ["s0", "s1"]
    assert await storage.get_thread("keep") is not None

    assert await storage.prune_threads(["drop", "missing"], "delete") == 1
    assert await storage.get_thread("drop") is None
    assert await _checkpoints(storage, "drop") == []

    assert await storage.prune_threads(["mine", "keep"], "delete", MINE) == 1
    assert await storage.get_thread("keep") is not None
    assert await storage.prune_threads([], "delete") == 0


async def test_thread_ttls(storage: Storage):
    await storage.create_thread(thread_id="t1", metadata={}, if_exists="raise")
    await storage.create_thread(thread_id="t2", metadata={}, if_exists="raise")
    now = datetime.now(UTC)

    def at(minutes: float) -> str:
        return (now + timedelta(minutes=minutes)).isoformat(timespec="microseconds")

    assert await storage.get_thread_ttl("t1") is None
    await storage.set_thread_ttl("t1", "delete", 1.5, at(-1))
    await storage.set_thread_ttl("t2", "keep_latest", 10, at(-2))
    assert await storage.get_thread_ttl("t1") == {
        "strategy": "delete",
        "ttl_minutes": 1.5,
        "expires_at": at(-1),
    }
    assert await storage.due_thread_ttls(at(0), 10) == [("t2", "keep_latest"), ("t1", "delete")]
    assert await storage.due_thread_ttls(at(-1.5), 10) == [("t2", "keep_latest")]
    assert await storage.due_thread_ttls(at(0), 1) == [("t2", "keep_latest")]
    # Setting again replaces the TTL; a missing thread gets none.
    await storage.set_thread_ttl("t1", "keep_latest", 60, at(60))
    assert (await storage.get_thread_ttl("t1"))["strategy"] == "keep_latest"
    assert await storage.due_thread_ttls(at(0), 10) == [("t2", "keep_latest")]
    await storage.set_thread_ttl("missing", "delete", 1, at(-5))
    assert await storage.get_thread_ttl("missing") is None


# -- runs -----------------------------------------------------------------------------------
async def test_create_get_and_list_runs(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    run = _run("r1", "t")
    await storage.create_run(run, ThreadUpdate(status="busy", metadata={"graph_id": "g"}))
    thread = await storage.get_thread("t")
    assert (thread["status"], thread["metadata"]) == ("busy", {"graph_id": "g"})
    assert await storage.get_run("r1") == {**run, "output": None, "error": None}
    assert await storage.get_run("missing") is None

    await storage.create_run(_run("r2", "t", "running"), ThreadUpdate())
    await storage.create_run(_run("r3", "t", "success"), ThreadUpdate())

    async def ids(**query: Any) -> list[str]:
        found = await storage.list_runs("t", **{"limit": 10, "offset": 0, "status": None, **query})
        return [r["run_id"] for r in found]

    assert await ids() == ["r3", "r2", "r1"]  # newest first
    assert await ids(status="running") == ["r2"]
    assert await ids(limit=1, offset=1) == ["r2"]
    assert await storage.list_runs("other", limit=10, offset=0, status=None) == []


async def test_finish_run_records_outcome_events_and_thread_state(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await storage.create_run(_run("r1", "t"), ThreadUpdate(status="busy"))
    await storage.set_run_status("r1", "running")
    assert (await storage.get_run("r1"))["status"] == "running"
    events = _events("metadata", "values", "end")
    await storage.finish_run(
        "r1",
        status="error",
        output={"steps": ["x"]},
        error={"error": "ValueError", "message": "bad"},
        events=events,
        thread_update=ThreadUpdate(status="error", error={"error": "ValueError"}),
    )
    run = await storage.get_run("r1")
    assert run["status"] == "error"
    assert run["output"] == {"steps": ["x"]}
    assert run["error"] == {"error": "ValueError", "message": "bad"}
    assert run["updated_at"] >= run["created_at"]
    thread = await storage.get_thread("t")
    assert (thread["status"], thread["error"]) == ("error", {"error": "ValueError"})
    assert await storage.get_run_events("r1") == events
    assert await storage.get_run_events("r1", after_seq=0) == events[1:]
    assert await storage.get_run_events("r1", after_seq=2) == []
    # Finishing again (a retry after a fault) neither duplicates nor fails on stored events.
    await storage.finish_run(
        "r1", status="error", output=None, error=None, events=events, thread_update=None
    )
    assert await storage.get_run_events("r1") == events
    assert (await storage.get_run("r1"))["output"] is None


async def test_a_failed_run_creation_leaves_its_thread_as_it_was(storage: Storage):
    """A run's row and its thread's status are written in one transaction: when the row
    cannot be written, the thread is not left `busy`, and the next creation works."""
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await storage.create_run(_run("r1", "t"), ThreadUpdate())
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        await storage.create_run(_run("r1", "t"), ThreadUpdate(status="busy"))
    assert (await storage.get_thread("t"))["status"] == "idle"
    await storage.create_run(_run("r2", "t"), ThreadUpdate(status="busy"))
    assert (await storage.get_thread("t"))["status"] == "busy"
    runs = await storage.list_runs("t", limit=9, offset=0, status=None)
    assert [r["run_id"] for r in runs] == ["r2", "r1"]


async def test_delete_runs_removes_their_events_only(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    for run_id in ("r1", "r2"):
        await storage.create_run(_run(run_id, "t"), ThreadUpdate())
        await storage.finish_run(
            run_id,
            status="success",
            output=None,
            error=None,
            events=_events("values"),
            thread_update=None,
        )
    await _run_graph(storage, "t", "r1")
    await storage.delete_runs(["r1", "missing"])
    assert await storage.get_run("r1") is None
    assert await storage.get_run_events("r1") == []
    assert await storage.get_run("r2") is not None
    assert len(await storage.get_run_events("r2")) == 1
    assert await _latest_steps(storage, "t") == ["s0"]  # checkpoints stay


async def test_delete_run_events_before_keeps_runs_and_recent_events(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    for run_id in ("old1", "old2", "new", "live"):
        await storage.create_run(_run(run_id, "t"), ThreadUpdate())
        await storage.finish_run(
            run_id,
            status="success",
            output=None,
            error=None,
            events=_events("v", "w"),
            thread_update=None,
        )
    await storage.set_run_status("live", "running")
    cutoff_moment = datetime.now(UTC)
    cutoff = cutoff_moment.isoformat(timespec="microseconds")
    await storage.set_run_status("new", "success")  # ends after the cutoff

    assert await storage.delete_run_events_before(cutoff, 1) == 1
    assert await storage.delete_run_events_before(cutoff, 10) == 1
    assert await storage.delete_run_events_before(cutoff, 10) == 0
    assert await storage.get_run_events("old1") == []
    assert await storage.get_run_events("old2") == []
    assert len(await storage.get_run_events("new")) == 2
    assert len(await storage.get_run_events("live")) == 2  # still running
    assert (await storage.get_run("old1"))["status"] == "success"


async def _finish_traced(storage: Storage, run_id: str, trace: bytes | None) -> None:
    await storage.finish_run(
        run_id,
        status="success",
        output=None,
        error=None,
        events=[],
        thread_update=None,
        trace=trace,
    )


async def test_a_run_trace_is_stored_with_its_end_and_goes_with_the_run(storage: Storage):
    """The trace view reads what the run's end stored; deleting the run, its thread, or its
    events past their retention takes the trace too."""
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    for run_id in ("r1", "r2", "r3", "r4"):
        await storage.create_run(_run(run_id, "t"), ThreadUpdate())
    trace = b'{"spans": [{"kind": "model", "name": "m"}]}'
    await _finish_traced(storage, "r1", trace)
    await _finish_traced(storage, "r2", None)
    assert await storage.get_run_trace("r1") == trace
    assert await storage.get_run_trace("r2") is None
    # Finishing again (a retry after a fault) keeps one trace: the newest.
    await _finish_traced(storage, "r1", b'{"spans": []}')
    assert await storage.get_run_trace("r1") == b'{"spans": []}'

    await storage.delete_runs(["r1"])
    assert await storage.get_run_trace("r1") is None

    await _finish_traced(storage, "r3", trace)
    cutoff = (datetime.now(UTC) + timedelta(seconds=1)).isoformat(timespec="microseconds")
    await storage.set_run_status("r4", "running")  # still executing: kept
    assert await storage.delete_run_events_before(cutoff, 10) == 1  # r3: a trace, no events
    assert await storage.get_run_trace("r3") is None
    assert (await storage.get_run("r3"))["status"] == "success"

    await _finish_traced(storage, "r4", trace)
    assert await storage.delete_thread("t") is True
    assert await storage.get_run_trace("r4") is None


async def test_runs_in_flight_and_release_idle_threads(storage: Storage):
    for thread_id in ("t1", "t2", "t3"):
        await storage.create_thread(thread_id=thread_id, metadata={}, if_exists="raise")
    base = datetime.now(UTC)
    stamps = [(base + timedelta(seconds=i)).isoformat() for i in range(3)]
    await storage.create_run(
        _run("r2", "t2", "running", created_at=stamps[1]), ThreadUpdate(status="busy")
    )
    await storage.create_run(
        _run("r1", "t1", "pending", created_at=stamps[0]), ThreadUpdate(status="busy")
    )
    await storage.create_run(
        _run("r3", "t3", "success", created_at=stamps[2]), ThreadUpdate(status="busy")
    )
    assert [r["run_id"] for r in await storage.runs_in_flight()] == ["r1", "r2"]

    assert await storage.release_idle_threads() == 1
    assert (await storage.get_thread("t3"))["status"] == "idle"
    assert (await storage.get_thread("t1"))["status"] == "busy"
    assert await storage.release_idle_threads() == 0


async def test_delete_checkpoints_of_runs_rolls_back_what_they_wrote(storage: Storage):
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await _run_graph(storage, "t", "r1")
    before = [c.checkpoint["id"] for c in await _checkpoints(storage, "t")]
    await _run_graph(storage, "t", "r2")
    assert await _latest_steps(storage, "t") == ["s0", "s1"]
    assert {c.metadata.get("run_id") for c in await _checkpoints(storage, "t")} == {"r1", "r2"}

    await storage.delete_checkpoints_of_runs("t", ["r2"])
    assert [c.checkpoint["id"] for c in await _checkpoints(storage, "t")] == before
    assert await _latest_steps(storage, "t") == ["s0"]
    # The thread continues from there as if r2 had never run.
    await _run_graph(storage, "t", "r3")
    assert await _latest_steps(storage, "t") == ["s0", "s1"]
    await storage.delete_checkpoints_of_runs("t", ["nothing"])
    assert await _latest_steps(storage, "t") == ["s0", "s1"]


@pytest.mark.parametrize(
    ("auth_filter", "expected"),
    [
        ({"owner": "a"}, {"str"}),
        ({"owner": {"$eq": "a"}}, {"str"}),
        ({"owner": '["a"]'}, {"text-of-list"}),
        ({"owner": "1"}, {"text-one"}),
        ({"owner": 1}, {"number-one"}),
        ({"owner": "a", "team": {"$contains": "x"}}, {"str"}),
        ({"owner": {"$contains": "a"}}, {"list"}),
        ({"a.b": "dotted"}, {"dotted"}),
        ({'we"ird': "q"}, {"quoted"}),
        ({"$or": [{"owner": "a"}, {"owner": 1}]}, {"str", "number-one"}),
        ({"owner": "zzz"}, set()),
    ],
)
async def test_auth_filters_agree_on_odd_keys_and_look_alike_values(
    storage: Storage, auth_filter: dict[str, Any], expected: set[str]
):
    """Lists, JSON text that looks like a list, numbers against strings, dotted and quoted
    keys: each backend's SQL must keep exactly the rows `matches_auth_filter` keeps."""
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
    found = await storage.search_threads(**_search_threads(auth_filter=auth_filter))
    assert {t["thread_id"] for t in found} == expected
    assert expected == {k for k, m in rows.items() if matches_auth_filter(m, auth_filter)}


async def test_null_in_an_auth_filter_is_json_null_not_a_missing_key(storage: Storage):
    await storage.create_thread(thread_id="null", metadata={"owner": None}, if_exists="raise")
    await storage.create_thread(thread_id="none", metadata={}, if_exists="raise")
    found = await storage.search_threads(**_search_threads(auth_filter={"owner": None}))
    assert [t["thread_id"] for t in found] == ["null"]


async def test_values_beyond_plain_json_are_stored_alike(storage: Storage):
    """Datetimes and UUIDs in state (what graphs put there) are written as ISO text and
    hex UUIDs, by every backend, instead of failing the run's final write."""
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    marker = uuid.UUID(int=7)
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await storage.update_thread("t", ThreadUpdate(values={"at": moment, "id": marker}))
    values = (await storage.get_thread("t"))["values"]
    assert values == {"at": "2026-01-02T03:04:05+00:00", "id": str(marker)}


async def test_checkpoint_bytes_measure_what_a_thread_stores(storage: Storage):
    empty = await storage.checkpoint_bytes("none")
    assert (empty.checkpoints.count, empty.pending_writes.count, empty.by_channel) == (0, 0, {})
    await storage.create_thread(thread_id="t", metadata={}, if_exists="raise")
    await _run_graph(storage, "t", "r1")
    one = await storage.checkpoint_bytes("t")
    assert one.checkpoints.count == len(await _checkpoints(storage, "t"))
    assert one.checkpoints.bytes > 0
    assert one.channel_values.count == sum(c.count for c in one.by_channel.values())
    assert one.channel_values.bytes == sum(c.bytes for c in one.by_channel.values())
    if one.by_channel:  # a saver storing channel values apart (PostgreSQL) names them
        assert "steps" in one.by_channel
    await _run_graph(storage, "t", "r2")
    two = await storage.checkpoint_bytes("t")
    assert two.checkpoints.count > one.checkpoints.count
    assert two.checkpoints.bytes + two.channel_values.bytes > (
        one.checkpoints.bytes + one.channel_values.bytes
    )
    assert (await storage.checkpoint_bytes("other")).checkpoints.count == 0
