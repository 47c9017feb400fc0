"""Runs through the SDK: wait, background + join, stream, list, cancel, double-texting."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.streams import until_node_done

pytestmark = pytest.mark.e2e


async def _new_thread(client: LangGraphClient) -> str:
    return (await client.threads.create())["thread_id"]


async def _wait_status(client: LangGraphClient, thread_id: str, run_id: str, status: str) -> None:
    for _ in range(200):
        if (await client.runs.get(thread_id, run_id))["status"] == status:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} never became {status}")


async def test_wait_returns_final_values_and_keeps_a_conversation(client: LangGraphClient):
    thread_id = await _new_thread(client)
    first = await client.runs.wait(
        thread_id, "chat", input={"messages": [{"role": "user", "content": "hi"}]}
    )
    assert [m["type"] for m in first["messages"]] == ["human", "ai"]
    second = await client.runs.wait(
        thread_id, "chat", input={"messages": [{"role": "user", "content": "again"}]}
    )
    assert next(m["content"] for m in second["messages"]) == "hi"
    assert len(second["messages"]) == 4
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "idle"
    assert thread["metadata"]["graph_id"] == "chat"
    assert len(thread["values"]["messages"]) == 4


async def test_background_run_join_get_list_delete(client: LangGraphClient):
    thread_id = await _new_thread(client)
    run = await client.runs.create(thread_id, "counter", input={"count": 1}, metadata={"a": 1})
    # As created, whether or not it has started since (the Platform answers the same).
    assert run["status"] == "pending"
    # The Platform's merge: the assistant's, the thread's and the request's, with the ids.
    assert run["metadata"] == {
        "a": 1,
        "created_by": "system",
        "graph_id": "counter",
        "assistant_id": run["assistant_id"],
    }
    result = await client.runs.join(thread_id, run["run_id"])
    assert result["count"] == 3
    # The graph saw the same, so its checkpoints carry it too.
    checkpoint_metadata = (await client.threads.get_state(thread_id))["metadata"]
    assert checkpoint_metadata["created_by"] == "system" and checkpoint_metadata["a"] == 1
    fetched = await client.runs.get(thread_id, run["run_id"])
    assert fetched["status"] == "success"
    assert fetched["assistant_id"] == str(
        uuid.uuid5(uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), "counter")
    )
    second = await client.runs.create(thread_id, "counter", input={"count": 10})
    await client.runs.join(thread_id, second["run_id"])
    listed = await client.runs.list(thread_id)
    assert [r["run_id"] for r in listed] == [second["run_id"], run["run_id"]]
    assert [r["run_id"] for r in await client.runs.list(thread_id, limit=1, offset=1)] == [
        run["run_id"]
    ]
    await client.runs.delete(thread_id, run["run_id"])
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.get(thread_id, run["run_id"])
    assert err.value.response.status_code == 404


async def test_stream_values_and_updates(client: LangGraphClient):
    thread_id = await _new_thread(client)
    parts = [
        part
        async for part in client.runs.stream(
            thread_id, "counter", input={"count": 0}, stream_mode=["values", "updates"]
        )
    ]
    assert parts[0].event == "metadata"
    assert set(parts[0].data) == {"run_id", "attempt"}
    values = [p.data["count"] for p in parts if p.event == "values"]
    assert values == [0, 1, 2]
    updates = [p.data for p in parts if p.event == "updates"]
    assert updates == [{"a": {"count": 1, "trail": ["a"]}}, {"b": {"count": 2, "trail": ["b"]}}]


async def test_stream_other_modes_and_subgraphs(client: LangGraphClient):
    parts = [
        p
        async for p in client.runs.stream(
            None, "counter", input={"count": 0}, stream_mode=["custom", "tasks", "checkpoints"]
        )
    ]
    events = {p.event for p in parts}
    assert {"metadata", "custom", "tasks", "checkpoints"} <= events
    assert [p.data for p in parts if p.event == "custom"] == [{"step": "a", "count": 0}]

    nested = [
        p
        async for p in client.runs.stream(
            None, "nested", input={"count": 0}, stream_mode="updates", stream_subgraphs=True
        )
    ]
    names = [p.event for p in nested]
    assert "updates" in names
    assert any(name.startswith("updates|inner:") for name in names)

    chat = [
        p
        async for p in client.runs.stream(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "hi"}]},
            stream_mode="messages-tuple",
        )
    ]
    message_events = [p for p in chat if p.event == "messages"]
    assert message_events
    message, metadata = message_events[0].data
    assert message["type"].startswith("AIMessage") or message["type"] == "ai"
    assert metadata["langgraph_node"] == "agent"


async def test_failing_run_reports_error_everywhere(client: LangGraphClient):
    thread_id = await _new_thread(client)
    parts = [p async for p in client.runs.stream(thread_id, "failing", input={"count": 0})]
    assert parts[-1].event == "error"
    assert parts[-1].data == {
        "error": "ValueError",
        "message": "the failing node failed on purpose",
    }
    runs = await client.runs.list(thread_id)
    assert runs[0]["status"] == "error"
    assert (await client.threads.get(thread_id))["status"] == "error"
    with pytest.raises(Exception, match="ValueError: the failing node failed on purpose"):
        await client.runs.wait(thread_id, "failing", input={"count": 0})


async def test_interrupt_and_resume(client: LangGraphClient):
    thread_id = await _new_thread(client)
    paused = await client.runs.wait(thread_id, "hitl", input={"request": "refund"})
    # As the streamed updates show it (and langgraph-api's wait output does).
    assert set(paused["__interrupt__"][0]) == {"value", "id", "response_schema"}
    assert paused["__interrupt__"][0]["value"] == {"question": "approve refund?"}
    interrupt_id = paused["__interrupt__"][0]["id"]
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    assert next(iter(thread["interrupts"].values()))[0]["id"] == interrupt_id
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["ask"]
    assert state["tasks"][0]["interrupts"][0]["value"] == {"question": "approve refund?"}
    # The run itself ended as it should (`success`, as on the Platform); the thread waits.
    assert (await client.runs.list(thread_id))[0]["status"] == "success"

    done = await client.runs.wait(thread_id, "hitl", command={"resume": {interrupt_id: "yes"}})
    assert done["decision"] == "refund: yes"
    assert (await client.threads.get(thread_id))["status"] == "idle"


async def test_a_goto_that_stops_at_an_interrupt_leaves_the_thread_interrupted(
    client: LangGraphClient,
):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "hitl", input={"request": "refund"})
    await client.runs.wait(thread_id, "hitl", command={"resume": "yes"})
    # Sent back to the node that asks (agent-inbox's example does this): LangGraph's state
    # lists no task for it, but the run stopped at its interrupt and a resume answers it.
    again = await client.runs.wait(thread_id, "hitl", command={"goto": "ask"})
    [asked] = again["__interrupt__"]
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    assert [i["id"] for shown in thread["interrupts"].values() for i in shown] == [asked["id"]]
    assert len(await client.threads.search(status="interrupted", limit=1000)) >= 1
    done = await client.runs.wait(thread_id, "hitl", command={"resume": "again"})
    assert done["decision"] == "refund: again"
    assert (await client.threads.get(thread_id))["status"] == "idle"


async def test_a_failed_resume_leaves_no_interrupt_to_answer(client: LangGraphClient):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "hitl", input={"request": "refund"})
    failed = await client.runs.wait(
        thread_id, "hitl", command={"resume": {"fail": "not an answer"}}, raise_error=False
    )
    assert failed["__error__"]["error"] == "ValueError"
    thread = await client.threads.get(thread_id)
    # As on the Platform: an errored thread offers no interrupt (Agent Inbox would list it).
    assert (thread["status"], thread["interrupts"]) == ("error", {})


async def test_interrupt_before_and_after(client: LangGraphClient):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "counter", input={"count": 0}, interrupt_before=["b"])
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["b"] and state["values"]["count"] == 1
    assert (await client.threads.get(thread_id))["status"] == "interrupted"
    finished = await client.runs.wait(thread_id, "counter", input=None)
    assert finished["count"] == 2

    other = await _new_thread(client)
    await client.runs.wait(other, "counter", input={"count": 0}, interrupt_after="*")
    assert (await client.threads.get_state(other))["next"] == ["b"]
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.wait(other, "counter", input=None, interrupt_before=["zzz"])
    assert err.value.response.status_code == 422


async def test_breakpoints_from_the_assistant_config(client: LangGraphClient):
    paused = await client.assistants.create(
        "counter", config={"interrupt_before": ["b"]}, name="pauses before b"
    )
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, paused["assistant_id"], input={"count": 0})
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["b"] and state["values"]["count"] == 1
    # The run's own field wins over the assistant's.
    other = await _new_thread(client)
    await client.runs.wait(other, paused["assistant_id"], input={"count": 0}, interrupt_before=[])
    assert (await client.threads.get_state(other))["values"]["count"] == 2
    broken = await client.assistants.create("counter", config={"interrupt_after": ["nope"]})
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.wait(None, broken["assistant_id"], input={"count": 0})
    assert err.value.response.status_code == 422
    assert "nope" in err.value.response.json()["detail"]


async def test_command_update_and_goto(client: LangGraphClient):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "counter", input={"count": 0})
    result = await client.runs.wait(
        thread_id, "counter", command={"update": {"count": 20}, "goto": "b"}
    )
    assert result["count"] == 21
    assert result["trail"][-1] == "b"


async def test_context_and_config(client: LangGraphClient):
    default = await client.runs.wait(None, "greeter", input={"name": "Ann"})
    assert default["text"] == "hello Ann."
    custom = await client.runs.wait(
        None, "greeter", input={"name": "Ann"}, context={"greeting": "hi", "punctuation": "!"}
    )
    assert custom["text"] == "hi Ann!"
    assistant = await client.assistants.create("greeter", context={"greeting": "howdy"})
    via_assistant = await client.runs.wait(None, assistant["assistant_id"], input={"name": "Bo"})
    assert via_assistant["text"] == "howdy Bo."


async def test_cancel_interrupt_keeps_progress(client: LangGraphClient):
    thread_id = await _new_thread(client)
    run = await client.runs.create(
        thread_id, "slow", input={"seconds": 0, "label": "x", "hold": True}, stream_mode="updates"
    )
    await until_node_done(client, thread_id, run["run_id"], "first")  # the second is parked
    # With `wait`, the answer is what joining the run gives once it stopped, as on the Platform.
    joined = await client.runs.cancel(thread_id, run["run_id"], wait=True, action="interrupt")
    assert joined == await client.runs.join(thread_id, run["run_id"])
    assert (await client.runs.get(thread_id, run["run_id"]))["status"] == "interrupted"
    state = await client.threads.get_state(thread_id)
    assert state["values"]["done"] == ["x:first"]
    # Its second step never ran: the thread is `interrupted`, showing the progress it kept.
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    assert thread["values"]["done"] == ["x:first"]


async def test_cancel_rollback_erases_the_run(client: LangGraphClient):
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "slow", input={"seconds": 0.0, "label": "kept"})
    run = await client.runs.create(
        thread_id,
        "slow",
        input={"seconds": 0, "label": "gone", "hold": True},
        stream_mode="updates",
    )
    await until_node_done(client, thread_id, run["run_id"], "first")
    await client.runs.cancel(thread_id, run["run_id"], wait=True, action="rollback")
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.get(thread_id, run["run_id"])
    assert err.value.response.status_code == 404
    state = await client.threads.get_state(thread_id)
    assert state["values"]["done"] == ["kept:first", "kept:second"]
    assert (await client.threads.get(thread_id))["status"] == "idle"


async def test_multitask_reject_enqueue_interrupt_rollback(client: LangGraphClient):
    thread_id = await _new_thread(client)
    first = await client.runs.create(
        thread_id, "slow", input={"seconds": 0, "label": "1", "hold": True}, stream_mode="updates"
    )
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.create(
            thread_id, "slow", input={"label": "r"}, multitask_strategy="reject"
        )
    assert err.value.response.status_code == 409
    queued = await client.runs.create(
        thread_id, "slow", input={"label": "2", "hold": False}, multitask_strategy="enqueue"
    )
    assert queued["status"] == "pending"
    await until_node_done(client, thread_id, first["run_id"], "first")
    await client.runs.cancel(thread_id, first["run_id"], wait=True)
    await client.runs.join(thread_id, queued["run_id"])
    state = await client.threads.get_state(thread_id)
    assert state["values"]["done"] == ["1:first", "2:first", "2:second"]
    assert (await client.runs.get(thread_id, first["run_id"]))["status"] == "interrupted"

    busy = await client.runs.create(
        thread_id, "slow", input={"seconds": 0, "label": "i", "hold": True}
    )
    await _wait_status(client, thread_id, busy["run_id"], "running")
    replacement = await client.runs.wait(
        thread_id, "slow", input={"label": "new", "hold": False}, multitask_strategy="interrupt"
    )
    assert replacement["done"][-2:] == ["new:first", "new:second"]
    assert (await client.runs.get(thread_id, busy["run_id"]))["status"] == "interrupted"

    doomed = await client.runs.create(
        thread_id, "slow", input={"seconds": 0, "label": "d", "hold": True}
    )
    await _wait_status(client, thread_id, doomed["run_id"], "running")
    await client.runs.wait(
        thread_id, "slow", input={"label": "rb", "hold": False}, multitask_strategy="rollback"
    )
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.get(thread_id, doomed["run_id"])
    assert err.value.response.status_code == 404


async def test_stream_disconnect_continues_unless_cancel(client: LangGraphClient):
    """As on the Platform (langgraph-api 0.16), a stream's run goes on when its client leaves
    (a reloaded page, a dropped connection) unless the client asked for `on_disconnect:
    "cancel"`."""
    thread_id = await _new_thread(client)
    async for part in client.runs.stream(thread_id, "slow", input={"seconds": 0.2, "label": "k"}):
        if part.event == "metadata":
            kept_id = part.data["run_id"]
            break
    assert (await client.runs.join(thread_id, kept_id))["done"] == ["k:first", "k:second"]
    assert (await client.runs.get(thread_id, kept_id))["status"] == "success"

    other = await _new_thread(client)
    async for part in client.runs.stream(
        other, "slow", input={"label": "c", "hold": True}, on_disconnect="cancel"
    ):
        if part.event == "metadata":
            run_id = part.data["run_id"]
            break
    await _wait_status(client, other, run_id, "interrupted")


async def test_join_stream_replays_from_last_event_id(client: LangGraphClient):
    thread_id = await _new_thread(client)
    run = await client.runs.create(
        thread_id, "counter", input={"count": 0}, stream_mode=["values", "updates"]
    )
    await client.runs.join(thread_id, run["run_id"])
    # Without Last-Event-ID only what happens from now on comes: nothing, the run is over.
    assert [p async for p in client.runs.join_stream(thread_id, run["run_id"])] == []
    everything = [
        p async for p in client.runs.join_stream(thread_id, run["run_id"], last_event_id="-1")
    ]
    assert [p.event for p in everything] == [
        "metadata",
        "values",
        "updates",
        "values",
        "updates",
        "values",
    ]
    ids = [int(p.id) for p in everything]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    rest = [
        p
        async for p in client.runs.join_stream(
            thread_id, run["run_id"], last_event_id=everything[2].id
        )
    ]
    assert [p.id for p in rest] == [p.id for p in everything[3:]]


async def test_after_seconds_and_if_not_exists(client: LangGraphClient):
    thread_id = str(uuid.uuid4())
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.runs.create(thread_id, "counter", input={"count": 0})
    assert err.value.response.status_code == 404
    delayed = await client.runs.create(
        thread_id, "counter", input={"count": 0}, if_not_exists="create", after_seconds=0.5
    )
    assert delayed["status"] == "pending"
    assert (await client.runs.get(thread_id, delayed["run_id"]))["status"] == "pending"
    assert (await client.runs.join(thread_id, delayed["run_id"]))["count"] == 2


async def test_stateless_runs(client: LangGraphClient):
    assert (await client.runs.wait(None, "counter", input={"count": 3}))["count"] == 5
    events = [p.event async for p in client.runs.stream(None, "counter", input={"count": 0})]
    assert events == ["metadata", "values", "values", "values"]
    batch = await client.runs.create_batch(
        [
            {"assistant_id": "counter", "input": {"count": 1}},
            {"assistant_id": "counter", "input": {"count": 2}},
        ]
    )
    assert len(batch) == 2 and len({r["thread_id"] for r in batch}) == 2
    background = await client.runs.create(None, "counter", input={"count": 0})
    assert background["status"] == "pending"
    assert {r["status"] for r in batch} == {"pending"}
    # Each temporary thread is deleted, with its run, once the run ends.
    for run in [*batch, background]:
        for _ in range(100):
            try:
                await client.runs.get(run["thread_id"], run["run_id"])
            except httpx.HTTPStatusError as err:
                assert err.response.status_code == 404
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"temporary thread {run['thread_id']} was kept")


async def test_stateless_threads_go_unless_kept_and_never_leak_on_errors(
    client: LangGraphClient,
):
    marker = {"stateless-test": str(uuid.uuid4())}
    before = await client.threads.count()
    with pytest.raises(httpx.HTTPStatusError):
        await client.runs.wait(None, "counter", input={"count": 0}, interrupt_before=["nope"])
    await client.runs.wait(None, "counter", input={"count": 0})
    assert await client.threads.count() == before
    kept = await client.runs.create(
        None, "counter", input={"count": 0}, on_completion="keep", metadata=marker
    )
    assert (await client.runs.join(kept["thread_id"], kept["run_id"]))["count"] == 2
    assert (await client.threads.get(kept["thread_id"]))["values"]["count"] == 2


async def test_default_config_recursion_limit_applies_and_a_run_can_raise_it(
    client: LangGraphClient,
):
    # The test server's config sets default_config.recursion_limit = 10.
    assert (await client.runs.wait(None, "looping", input={"target": 5}))["count"] == 5
    with pytest.raises(Exception, match="GraphRecursionError"):
        await client.runs.wait(None, "looping", input={"target": 20})
    raised = await client.runs.wait(
        None, "looping", input={"target": 20}, config={"recursion_limit": 50}
    )
    assert raised["count"] == 20


async def test_run_errors_are_clear(client: LangGraphClient):
    thread_id = await _new_thread(client)
    cases = [
        ({"assistant_id": "no-such-graph"}, 422),
        ({"assistant_id": str(uuid.uuid4())}, 404),
        ({"assistant_id": "counter", "stream_mode": "nope"}, 422),
        # Loopback webhooks are refused unless the config allows them, as on the Platform.
        ({"assistant_id": "counter", "webhook": "http://127.0.0.1:1/hook"}, 422),
        ({"assistant_id": "counter", "webhook": "ftp://example.com/hook"}, 422),
        ({"assistant_id": "counter", "webhook": "/relative/hook"}, 422),
        ({"assistant_id": "counter", "webhook": "http://169.254.169.254/latest"}, 422),
        ({"assistant_id": "counter", "multitask_strategy": "sometimes"}, 422),
        ({"assistant_id": "counter", "config": {"recursion_limit": 0}}, 422),
        ({"assistant_id": "counter", "input": {"count": 2**64}}, 422),
        ({"assistant_id": "counter", "after_seconds": -1}, 422),
    ]
    for body, status in cases:
        response = await client.http.client.post(f"/threads/{thread_id}/runs", json=body)
        assert response.status_code == status, (body, response.text)
        assert isinstance(response.json()["detail"], str)
    missing = str(uuid.uuid4())
    response = await client.http.client.post(f"/threads/{thread_id}/runs/{missing}/cancel")
    assert response.status_code == 404
    response = await client.http.client.get(f"/threads/{thread_id}/runs/{missing}/join")
    assert response.status_code == 404
    response = await client.http.client.post(
        f"/threads/{thread_id}/runs",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert "JSON" in response.json()["detail"]


async def test_bulk_cancel_by_thread_and_by_ids(client: LangGraphClient):
    thread_id = await _new_thread(client)
    running = await client.runs.create(thread_id, "slow", input={"label": "r", "hold": True})
    queued = await client.runs.create(thread_id, "slow", input={"label": "q", "hold": True})
    await _wait_status(client, thread_id, running["run_id"], "running")
    assert (await client.threads.get(thread_id))["status"] == "busy"
    await client.runs.cancel_many(thread_id=thread_id, status="pending")
    await _wait_status(client, thread_id, queued["run_id"], "interrupted")
    assert (await client.runs.get(thread_id, running["run_id"]))["status"] == "running"
    # Cancelling the queued run leaves the thread to the run still executing on it.
    assert (await client.threads.get(thread_id))["status"] == "busy"
    await client.runs.cancel_many(run_ids=[running["run_id"]])
    await _wait_status(client, thread_id, running["run_id"], "interrupted")
    # Cancelled mid-step, it left its next step pending: the thread is `interrupted` (as on
    # the Platform), resumable from there, with the values it had reached.
    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    assert thread["values"] is not None


async def test_cancelling_what_has_ended_is_a_404_as_on_the_platform(client: LangGraphClient):
    """The Platform's schema lists 404 (not 409) for both cancel routes: a client handling
    the documented codes must see one when the run it stops has just finished."""
    thread_id = await _new_thread(client)
    run = await client.runs.wait(thread_id, "slow", input={"label": "done"}, raise_error=False)
    ended = (await client.runs.list(thread_id))[0]
    assert ended["status"] == "success", run
    for cancel in (
        client.runs.cancel(thread_id, ended["run_id"]),
        client.runs.cancel(thread_id, ended["run_id"], wait=True),
        client.runs.cancel_many(thread_id=thread_id, run_ids=[ended["run_id"]]),
        client.runs.cancel_many(thread_id=thread_id, status="all"),
        client.runs.cancel_many(run_ids=[str(uuid.uuid4())]),
    ):
        with pytest.raises(httpx.HTTPStatusError) as err:
            await cancel
        assert err.value.response.status_code == 404
        assert "nothing to cancel" in err.value.response.json()["detail"]
    assert (await client.runs.get(thread_id, ended["run_id"]))["status"] == "success"


async def test_enqueued_runs_execute_one_at_a_time_in_creation_order(client: LangGraphClient):
    thread_id = await _new_thread(client)
    runs = [
        await client.runs.create(thread_id, "slow", input={"seconds": 0.02, "label": str(n)})
        for n in range(6)
    ]
    for run in runs:
        await client.runs.join(thread_id, run["run_id"])
    done = (await client.threads.get_state(thread_id))["values"]["done"]
    assert done == [f"{n}:{step}" for n in range(6) for step in ("first", "second")]
    assert {(await client.runs.get(thread_id, r["run_id"]))["status"] for r in runs} == {"success"}


async def test_a_subgraph_task_s_checkpoint_names_its_namespace_only(client: LangGraphClient):
    """Stopped before a subgraph starts, its task points at the subgraph's namespace; there
    is no checkpoint of it yet, so no `checkpoint_id` key (langgraph-api sends none)."""
    thread_id = await _new_thread(client)
    await client.runs.wait(thread_id, "nested", input={"count": 0}, interrupt_before=["inner"])
    state = await client.threads.get_state(thread_id)
    [task] = state["tasks"]
    assert task["name"] == "inner"
    assert set(task["checkpoint"]) == {"thread_id", "checkpoint_ns"}
    assert task["checkpoint"]["thread_id"] == thread_id
    assert task["checkpoint"]["checkpoint_ns"].startswith("inner:")
    assert state["checkpoint"]["checkpoint_id"] == state["checkpoint_id"]


async def test_a_run_queued_behind_a_busy_thread_leaves_its_graph_id(
    client: LangGraphClient, tmp_path: Path
):
    """A graph that schedules another graph's run on its own thread (memory-template does):
    while the first run goes on, the thread still names its graph, so its state is read
    through the graph that wrote it, as on the Platform."""
    thread_id = await _new_thread(client)
    gate = tmp_path / "go"
    first = await client.runs.create(
        thread_id, "slow", input={"seconds": 0, "label": "s", "gate": str(gate)}
    )
    await _wait_status(client, thread_id, first["run_id"], "running")
    queued = await client.runs.create(
        thread_id, "counter", input={"count": 0}, multitask_strategy="enqueue"
    )
    thread = await client.threads.get(thread_id)
    assert thread["metadata"]["graph_id"] == "slow"
    gate.touch()
    await client.runs.join(thread_id, first["run_id"])
    await client.runs.join(thread_id, queued["run_id"])
    assert (await client.runs.get(thread_id, queued["run_id"]))["status"] == "success"
