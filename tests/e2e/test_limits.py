"""`limits` of the config file, against a live server with tight limits.

Each test shows a bound a client meets (413 and 422 with a reason, a run that ends with
`timeout`, a delayed run that holds no slot, a slow thread stream told to reconnect, old
events swept) and that the server keeps serving afterwards.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import APIStatusError
from langgraph_sdk.schema import StreamPart

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

LIMITS = {
    "max_body_bytes": 64 * 1024,
    "max_batch_size": 3,
    "max_list_items": 5,
    "max_after_seconds": 120,
    "max_queued_events": 20,
}


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("olg-limits")
    with serving(directory, write_config(directory, limits=LIMITS)) as process:
        yield process


@pytest.fixture
async def client(limited: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(limited.url) as lg_client:
        yield lg_client


async def _status(exc: pytest.ExceptionInfo[APIStatusError]) -> tuple[int, str]:
    response = exc.value.response
    return response.status_code, response.json()["detail"]


# -- body size ------------------------------------------------------------------------------
def test_a_body_over_the_limit_is_a_413_whether_or_not_it_declares_its_length(
    limited: ServerProcess,
):
    big = b'{"metadata": {"pad": "' + b"x" * (70 * 1024) + b'"}}'
    with httpx.Client(base_url=limited.url, timeout=10) as http:
        declared = http.post("/threads", content=big, headers={"content-type": "application/json"})
        assert declared.status_code == 413
        assert "64" in declared.json()["detail"] or "65536" in declared.json()["detail"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
            for start in range(0, len(big), 4096):
                yield big[start : start + 4096]

        chunked = http.post(
            "/threads", content=chunks(), headers={"content-type": "application/json"}
        )
        assert chunked.status_code == 413
        assert "limits.max_body_bytes" in chunked.json()["detail"]

        small = http.post("/threads", json={"metadata": {"pad": "x" * 1000}})
        assert small.status_code == 200


# -- list and batch sizes -------------------------------------------------------------------
async def test_lists_and_batches_over_the_limit_are_a_422_naming_the_field(
    client: LangGraphClient,
):
    ids = [str(uuid.uuid4()) for _ in range(6)]
    with pytest.raises(APIStatusError) as search:
        await client.threads.search(ids=ids)
    code, detail = await _status(search)
    assert code == 422 and "ids has 6 items; at most 5" in detail
    assert await client.threads.search(ids=ids[:5]) == []

    with pytest.raises(APIStatusError) as cancel:
        await client.runs.cancel_many(run_ids=ids)
    assert (await _status(cancel))[0] == 422

    run = {"assistant_id": "counter", "input": {"count": 0}}
    with pytest.raises(APIStatusError) as batch:
        await client.runs.create_batch([run] * 4)
    code, detail = await _status(batch)
    assert code == 422 and "at most 3" in detail
    assert len(await client.runs.create_batch([run] * 3)) == 3
    with pytest.raises(APIStatusError) as empty:  # the Platform's schema: at least one run
        await client.runs.create_batch([])
    code, detail = await _status(empty)
    assert code == 422 and "empty" in detail

    # A client's own data (the run's input) is bounded by the body size only.
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "counter", input={"count": 0, "trail": ["t"] * 50})


# -- run timeout ----------------------------------------------------------------------------
@pytest.fixture
async def impatient(tmp_path: Path) -> AsyncIterator[LangGraphClient]:
    """A server whose runs time out after 1.5 s (its own, so that the other tests' runs are
    never cut short on a loaded machine)."""
    config = write_config(tmp_path, limits={"run_timeout_seconds": 1.5})
    with serving(tmp_path, config) as process:
        async with sdk_client(process.url) as lg_client:
            yield lg_client


async def test_a_run_over_the_timeout_ends_timeout_and_frees_its_thread(
    impatient: LangGraphClient,
):
    client = impatient
    thread_id = (await client.threads.create())["thread_id"]

    async def stream() -> list[StreamPart]:
        return [
            part
            async for part in client.runs.stream(
                thread_id, "blocking", input={}, stream_mode="values"
            )
        ]

    # The graph blocks forever: only the 1.5 s run timeout ends it.
    parts = await asyncio.wait_for(stream(), timeout=30)
    assert parts[-1].event == "error"
    assert parts[-1].data["error"] == "TimeoutError"
    assert "run_timeout_seconds" in parts[-1].data["message"]

    runs = await client.runs.list(thread_id)
    assert runs[0]["status"] == "timeout"
    assert (await client.threads.get(thread_id))["status"] == "error"

    waited = await client.runs.wait(thread_id, "blocking", input={}, raise_error=False)
    assert waited["__error__"]["error"] == "TimeoutError"
    # The thread is free again: the next run on it executes and succeeds.
    done = await client.runs.wait(thread_id, "counter", input={"count": 0})
    assert done["count"] == 2
    assert (await client.threads.get(thread_id))["status"] == "idle"


# -- after_seconds ----------------------------------------------------------------------------
async def test_delayed_runs_hold_no_slot_and_can_be_cancelled(client: LangGraphClient):
    # More delayed runs than the 32 runs executing at once: before, they held every slot
    # while they slept and the run below waited for them.
    delayed = []
    for _ in range(34):
        thread_id = (await client.threads.create())["thread_id"]
        run = await client.runs.create(thread_id, "counter", input={}, after_seconds=110)
        delayed.append(run)
    other = (await client.threads.create())["thread_id"]
    result = await asyncio.wait_for(
        client.runs.wait(other, "counter", input={"count": 0}), timeout=15
    )
    assert result["count"] == 2

    first = delayed[0]
    assert (await client.runs.get(first["thread_id"], first["run_id"]))["status"] == "pending"
    await client.runs.cancel(first["thread_id"], first["run_id"], wait=True)
    cancelled = await client.runs.get(first["thread_id"], first["run_id"])
    assert cancelled["status"] == "interrupted"
    for run in delayed[1:]:
        await client.runs.cancel(run["thread_id"], run["run_id"])

    with pytest.raises(APIStatusError) as too_late:
        await client.runs.create(other, "counter", input={}, after_seconds=121)
    code, detail = await _status(too_late)
    assert code == 422 and "after_seconds" in detail and "120" in detail


# -- slow thread stream consumers ---------------------------------------------------------------
async def test_a_thread_stream_that_falls_behind_is_told_to_reconnect_and_loses_nothing(
    client: LangGraphClient,
):
    thread_id = (await client.threads.create())["thread_id"]
    total = 2000
    stream = await client.threads.join_stream(thread_id)
    first = asyncio.ensure_future(anext(stream))
    # The listener is registered once the stream is open; a run it reports proves it is.
    for _ in range(50):
        await client.runs.wait(thread_id, "counter", input={"count": 0})
        done, _ = await asyncio.wait({first}, timeout=0.2)
        if done:
            break
    assert first.done(), "the thread stream never reported a run"

    # About 16 MB of events while the client reads nothing: far more than socket buffers,
    # the sender's read-ahead and the listener's 20 events hold.
    run = await client.runs.create(
        thread_id, "bulky", input={"events": total, "size": 8000}, stream_mode="custom"
    )
    await client.runs.join(thread_id, run["run_id"])

    seen: list[str] = []
    last = None
    async for part in stream:
        last = part
        if part.id is not None and part.event != "error":  # the error repeats the last id
            seen.append(part.id)
    assert last is not None and last.event == "error"
    assert last.data["error"] == "SlowConsumer"
    assert "Last-Event-ID" in last.data["message"]
    assert len(seen) < total

    # Reconnecting from the last id received replays the rest, from storage, to the end.
    rest = await client.threads.join_stream(thread_id, last_event_id=seen[-1])
    async for part in rest:
        if part.id is not None:
            seen.append(part.id)
        if part.id == f"{run['run_id']}:end":
            break
    ours = [i.rsplit(":", 1)[1] for i in seen if i.startswith(f"{run['run_id']}:")]
    # Event 0 is the run's metadata, then 2000 custom events, each exactly once, in order.
    assert ours == [str(n) for n in range(total + 1)] + ["end"]
    # The server keeps serving the thread.
    assert (await client.threads.get(thread_id))["status"] == "idle"


# -- messages/partial -------------------------------------------------------------------------
async def test_a_long_streamed_reply_is_stored_in_linear_space(
    client: LangGraphClient, limited: ServerProcess
):
    thread_id = (await client.threads.create())["thread_id"]
    words = 1000  # 1999 chunks
    partials = [
        part
        async for part in client.runs.stream(
            thread_id,
            "long_reply",
            input={"messages": [{"role": "user", "content": str(words)}]},
            stream_mode="messages",
        )
        if part.event == "messages/partial"
    ]
    text = " ".join(f"word{i}" for i in range(words))
    assert partials and partials[-1].data[0]["content"] == text
    lengths = [len(p.data[0]["content"]) for p in partials]
    assert lengths == sorted(lengths)  # every partial is the message so far

    run_id = (await client.runs.list(thread_id))[0]["run_id"]
    stored = limited.database.scalar(
        "SELECT sum(length(data)) FROM run_events WHERE run_id = ?", (run_id,)
    )
    # Every partial kept would be about 8 MB; the last one per message is ~3x the text.
    assert stored < 10 * len(text)

    replay = [
        part
        async for part in client.runs.join_stream(thread_id, run_id, last_event_id="-1")
        if part.event == "messages/partial"
    ]
    assert [p.data[0]["content"] for p in replay] == [text]


# -- event retention --------------------------------------------------------------------------
def test_old_events_are_swept_and_a_pruned_run_still_answers(tmp_path: Path):
    # Events older than about 0.1 s are swept every 0.05 s.
    limits = {"event_retention_days": 0.1 / 86400, "event_sweep_interval_minutes": 0.05 / 60}
    config = write_config(tmp_path, limits=limits)
    with serving(tmp_path, config) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        run = http.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "counter", "input": {"count": 0}},
            headers={"content-type": "application/json"},
        )
        assert run.json()["count"] == 2
        run_id = http.get(f"/threads/{thread_id}/runs").json()[0]["run_id"]

        def stored_events() -> int:
            return server.database.scalar(
                "SELECT count(*) FROM run_events WHERE run_id = ?", (run_id,)
            )

        deadline = time.monotonic() + 10
        while stored_events() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stored_events() == 0, "the sweeper never deleted the run's events"

        # The run record stays: its status, and its output for /join.
        record = http.get(f"/threads/{thread_id}/runs/{run_id}").json()
        assert record["status"] == "success"
        assert http.get(f"/threads/{thread_id}/runs/{run_id}/join").json()["count"] == 2
        # Its stream has nothing left to replay, and says so with an empty stream.
        replay = http.get(
            f"/threads/{thread_id}/runs/{run_id}/stream", headers={"Last-Event-ID": "-1"}
        )
        assert replay.status_code == 200 and "event:" not in replay.text
        # A thread stream resuming inside it gets the run's end, then follows live.
        with http.stream(
            "GET", f"/threads/{thread_id}/stream", headers={"Last-Event-ID": f"{run_id}:0"}
        ) as thread_stream:
            assert thread_stream.status_code == 200
            for line in thread_stream.iter_lines():
                if line.startswith("data:"):
                    assert "run_done" in line
                    break
