"""Threads through the SDK: CRUD, search, state, history, state edits, copy and prune."""

from __future__ import annotations

import uuid

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

pytestmark = pytest.mark.e2e


async def _status(exc: pytest.ExceptionInfo[httpx.HTTPStatusError]) -> int:
    return exc.value.response.status_code


async def test_create_get_patch_delete(client: LangGraphClient):
    thread_id = str(uuid.uuid4())
    created = await client.threads.create(thread_id=thread_id, metadata={"user": "ann"})
    assert created["thread_id"] == thread_id
    assert created["status"] == "idle"
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.create(thread_id=thread_id)
    assert await _status(err) == 409
    same = await client.threads.create(thread_id=thread_id, if_exists="do_nothing")
    assert same["metadata"] == {"user": "ann"}

    patched = await client.threads.update(thread_id, metadata={"topic": "tea"})
    assert patched["metadata"] == {"user": "ann", "topic": "tea"}
    assert (await client.threads.get(thread_id))["metadata"]["topic"] == "tea"

    await client.threads.delete(thread_id)
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.get(thread_id)
    assert await _status(err) == 404


async def test_delete_removes_runs_and_checkpoints(client: LangGraphClient):
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    run = await client.runs.create(thread_id, "counter", input={"count": 0})
    await client.runs.join(thread_id, run["run_id"])
    await client.threads.delete(thread_id)
    # Re-creating the same id starts empty: no state, no history, no runs.
    await client.threads.create(thread_id=thread_id)
    assert (await client.threads.get_state(thread_id))["values"] == {}
    assert await client.threads.get_history(thread_id) == []
    assert await client.runs.list(thread_id) == []


async def test_search_by_metadata_values_status_with_sort_and_select(client: LangGraphClient):
    marker = str(uuid.uuid4())
    ids = []
    for n in range(3):
        thread = await client.threads.create(metadata={"marker": marker, "n": n})
        ids.append(thread["thread_id"])
    await client.runs.wait(ids[0], "counter", input={"count": 40})

    assert await client.threads.count(metadata={"marker": marker}) == 3
    by_values = await client.threads.search(metadata={"marker": marker}, values={"count": 42})
    assert [t["thread_id"] for t in by_values] == [ids[0]]
    oldest_first = await client.threads.search(
        metadata={"marker": marker}, sort_by="created_at", sort_order="asc"
    )
    assert [t["thread_id"] for t in oldest_first] == ids
    page = await client.threads.search(
        metadata={"marker": marker}, sort_by="created_at", sort_order="asc", limit=1, offset=2
    )
    assert [t["thread_id"] for t in page] == [ids[2]]
    picked = await client.threads.search(ids=[ids[1]], select=["thread_id", "status"])
    assert picked == [{"thread_id": ids[1], "status": "idle"}]
    assert await client.threads.count(metadata={"marker": marker}, status="busy") == 0


async def test_state_history_and_checkpoints(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    empty = await client.threads.get_state(thread_id)
    assert empty["values"] == {} and empty["checkpoint"] is None

    await client.runs.wait(thread_id, "counter", input={"count": 0})
    state = await client.threads.get_state(thread_id)
    assert state["values"] == {"count": 2, "trail": ["a", "b"]}
    assert state["next"] == []
    assert state["metadata"]["step"] == 2
    checkpoint_id = state["checkpoint"]["checkpoint_id"]

    history = await client.threads.get_history(thread_id)
    assert [h["values"].get("count") for h in history] == [2, 1, 0, None]
    assert history[0]["checkpoint"]["checkpoint_id"] == checkpoint_id
    limited = await client.threads.get_history(thread_id, limit=2)
    assert len(limited) == 2
    before = await client.threads.get_history(thread_id, before=history[1]["checkpoint"])
    assert [h["values"].get("count") for h in before] == [0, None]

    at_middle = await client.threads.get_state(
        thread_id, checkpoint_id=history[1]["checkpoint"]["checkpoint_id"]
    )
    assert at_middle["values"]["count"] == 1
    assert at_middle["next"] == ["b"]
    by_post = await client.threads.get_state(thread_id, checkpoint=history[1]["checkpoint"])
    assert by_post["values"] == at_middle["values"]
    only_count = await client.threads.get_state(thread_id, select=["values.count"])
    assert only_count == {"values": {"count": 2}}


async def test_update_state_as_node_and_from_a_checkpoint(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "counter", input={"count": 0})
    update = await client.threads.update_state(thread_id, {"count": 100}, as_node="b")
    assert update["checkpoint"]["checkpoint_id"]
    state = await client.threads.get_state(thread_id)
    assert state["values"]["count"] == 100
    assert state["metadata"]["source"] == "update"
    # An edit's checkpoint names its graph as a run's do (history filters on it).
    by_graph = await client.threads.get_history(thread_id, metadata={"graph_id": "counter"})
    assert [h["metadata"]["source"] for h in by_graph][:2] == ["update", "loop"]
    assert (await client.threads.get(thread_id))["values"]["count"] == 100

    # Editing as node "a" leaves "b" to run next: the thread waits to be resumed.
    await client.threads.update_state(thread_id, {"count": 7}, as_node="a")
    assert (await client.threads.get_state(thread_id))["next"] == ["b"]
    resumed = await client.runs.wait(thread_id, "counter", input=None)
    assert resumed["count"] == 8

    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.update_state(thread_id, {"count": 1}, as_node="nope")
    assert await _status(err) == 400
    fresh = (await client.threads.create())["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.update_state(fresh, {"count": 1})
    assert await _status(err) == 400


async def test_time_travel_forks_from_a_past_checkpoint(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "counter", input={"count": 10})
    history = await client.threads.get_history(thread_id)
    after_a = next(h for h in history if h["next"] == ["b"])
    forked = await client.runs.wait(
        thread_id, "counter", input=None, checkpoint_id=after_a["checkpoint"]["checkpoint_id"]
    )
    assert forked["count"] == 12
    assert forked["trail"] == ["a", "b"]
    # The fork is a new branch: history now has more checkpoints than before.
    assert len(await client.threads.get_history(thread_id, limit=100)) > len(history)
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.wait(thread_id, "counter", input=None, checkpoint_id=str(uuid.uuid4()))
    assert await _status(err) == 404


async def test_copy_and_prune(client: LangGraphClient):
    thread_id = (await client.threads.create(metadata={"k": "v"}))["thread_id"]
    await client.runs.wait(thread_id, "counter", input={"count": 0})
    copy = await client.threads.copy(thread_id)
    assert copy["thread_id"] != thread_id
    assert copy["metadata"]["k"] == "v"
    copied_state = await client.threads.get_state(copy["thread_id"])
    assert copied_state["values"] == {"count": 2, "trail": ["a", "b"]}
    # The copy continues on its own.
    await client.runs.wait(copy["thread_id"], "counter", input={"count": 50})
    assert (await client.threads.get_state(thread_id))["values"]["count"] == 2

    pruned = await client.threads.prune([copy["thread_id"]], strategy="keep_latest")
    assert pruned == {"pruned_count": 1}
    assert len(await client.threads.get_history(copy["thread_id"], limit=100)) == 1
    assert (await client.threads.get_state(copy["thread_id"]))["values"]["count"] == 52

    assert await client.threads.prune([thread_id]) == {"pruned_count": 1}
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.get(thread_id)
    assert await _status(err) == 404


async def test_thread_errors(client: LangGraphClient):
    missing = str(uuid.uuid4())
    for call in (
        client.threads.get(missing),
        client.threads.update(missing, metadata={}),
        client.threads.delete(missing),
        client.threads.get_state(missing),
        client.threads.get_history(missing),
    ):
        with pytest.raises(httpx.HTTPStatusError) as err:
            await call
        assert await _status(err) == 404
        assert "detail" in err.value.response.json()
    # The Platform's schema gives copy no 404: a missing source thread is a 409.
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.copy(missing)
    assert await _status(err) == 409
    assert missing in err.value.response.json()["detail"]
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.get("not-a-uuid")
    assert await _status(err) == 422
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.search(status="sleeping")  # type: ignore[arg-type]
    assert await _status(err) == 422
    assert "status" in err.value.response.json()["detail"]


async def test_state_of_a_thread_whose_run_failed_on_conflicting_writes(client: LangGraphClient):
    # `goto` b runs a and b in one step; both write `count`, so the run fails, leaving
    # conflicting pending writes that reading the state must not trip over.
    thread_id = (await client.threads.create())["thread_id"]
    failed = await client.runs.wait(
        thread_id, "counter", command={"goto": "b", "update": {"count": 0}}, raise_error=False
    )
    assert failed["__error__"]["error"] == "InvalidUpdateError"
    state = await client.threads.get_state(thread_id)
    assert state["values"]["count"] == 0
    assert sorted(state["next"]) == ["a", "b"]
    history = await client.threads.get_history(thread_id, limit=1)
    assert history[0]["checkpoint"] == state["checkpoint"]
