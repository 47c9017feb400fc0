"""The PostgreSQL run queue's guarantees, with real concurrent transactions: one running run
per thread, in order; multitask decisions taken once; leases that expire and come back;
only the lease holder stores a run's end."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from open_langgraph.errors import Conflict
from open_langgraph.storage.base import StoredEvent, ThreadUpdate, utc_now
from open_langgraph.storage.postgres import PostgresStorage
from open_langgraph.storage.postgres.queue import PostgresRunQueue
from tests.storage.conftest import _TABLES


@pytest.fixture
async def opened(postgres_url: str) -> AsyncIterator[tuple[PostgresStorage, PostgresRunQueue]]:
    async with PostgresStorage.from_url(postgres_url) as storage:
        async with storage.pool.connection() as conn:
            await conn.execute(f"TRUNCATE {_TABLES}")
        yield storage, PostgresRunQueue(storage.pool, storage.relaxed_pool)


def _run(thread_id: str, strategy: str = "enqueue") -> dict[str, Any]:
    now = utc_now()
    return {
        "run_id": str(uuid.uuid4()),
        "thread_id": thread_id,
        "assistant_id": "a",
        "created_at": now,
        "updated_at": now,
        "status": "pending",
        "metadata": {},
        "kwargs": {"input": None},
        "multitask_strategy": strategy,
    }


async def _thread(storage: PostgresStorage) -> str:
    thread_id = str(uuid.uuid4())
    await storage.create_thread(thread_id=thread_id, metadata={}, if_exists="raise")
    return thread_id


async def _enqueue(queue: PostgresRunQueue, run: dict[str, Any], after: float = 0) -> None:
    strategy = run["multitask_strategy"]
    await queue.enqueue(run, ThreadUpdate(status="busy"), strategy, after)


async def test_a_thread_runs_one_run_at_a_time_in_creation_order(opened: Any) -> None:
    storage, queue = opened
    thread_id = await _thread(storage)
    runs = [_run(thread_id) for _ in range(3)]
    for run in runs:
        await _enqueue(queue, run)
    # Two workers racing for runs get the first one only; the others wait behind it.
    claimed = await asyncio.gather(*(queue.claim(f"w{i}", 5, 10) for i in range(4)))
    taken = [run["run_id"] for batch in claimed for run in batch]
    assert taken == [runs[0]["run_id"]]
    assert await queue.claim("w9", 5, 10) == []
    assert await queue.finish_claimed(
        runs[0]["run_id"],
        thread_id,
        next(f"w{i}" for i, c in enumerate(claimed) if c),
        status="success",
        output={},
        error=None,
        thread_update=ThreadUpdate(status="idle"),
        first_seq=0,
        kept_seqs=[],
    )
    # More runs wait on the thread, so it stays busy.
    assert (await storage.get_thread(thread_id))["status"] == "busy"  # type: ignore[index]
    assert [run["run_id"] for run in await queue.claim("w1", 5, 10)] == [runs[1]["run_id"]]


async def test_concurrent_reject_requests_on_a_busy_thread_admit_one(opened: Any) -> None:
    storage, queue = opened
    thread_id = await _thread(storage)
    await _enqueue(queue, _run(thread_id))
    outcomes = await asyncio.gather(
        *(_enqueue(queue, _run(thread_id, "reject")) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(o, Conflict) for o in outcomes)
    idle_thread = await _thread(storage)
    outcomes = await asyncio.gather(
        *(_enqueue(queue, _run(idle_thread, "reject")) for _ in range(5)), return_exceptions=True
    )
    assert sum(o is None for o in outcomes) == 1
    assert sum(isinstance(o, Conflict) for o in outcomes) == 4


async def test_interrupt_ends_queued_runs_and_flags_the_running_one(opened: Any) -> None:
    storage, queue = opened
    thread_id = await _thread(storage)
    first, queued = _run(thread_id), _run(thread_id)
    await _enqueue(queue, first)
    await _enqueue(queue, queued)
    assert [run["run_id"] for run in await queue.claim("w", 5)] == [first["run_id"]]
    ended, running = await queue.enqueue(
        _run(thread_id, "interrupt"), ThreadUpdate(status="busy"), "interrupt", 0
    )
    assert (ended, running) == ([queued["run_id"]], [first["run_id"]])
    assert (await storage.get_run(queued["run_id"]))["status"] == "interrupted"  # type: ignore[index]
    assert await queue.renew("w", [first["run_id"]], 5) == {first["run_id"]: "interrupt"}


async def test_a_delayed_run_is_not_taken_before_it_is_due(opened: Any) -> None:
    storage, queue = opened
    run = _run(await _thread(storage))
    await _enqueue(queue, run, after=0.6)
    assert await queue.claim("w", 5) == []
    await asyncio.sleep(0.7)
    assert [claimed["run_id"] for claimed in await queue.claim("w", 5)] == [run["run_id"]]


async def test_expired_leases_requeue_then_fail_after_max_attempts(opened: Any) -> None:
    storage, queue = opened
    thread_id = await _thread(storage)
    run = _run(thread_id)
    await _enqueue(queue, run)
    for attempt in (1, 2):
        (claimed,) = await queue.claim("dead", 0.2)
        assert claimed["attempt"] == attempt
        await asyncio.sleep(0.3)
        assert await queue.reap(max_attempts=3) == ([run["run_id"]], [])
    # The worker that lost the lease may not store the end any more.
    assert not await queue.finish_claimed(
        run["run_id"],
        thread_id,
        "dead",
        status="success",
        output={},
        error=None,
        thread_update=ThreadUpdate(status="idle"),
        first_seq=0,
        kept_seqs=[],
    )
    assert [claimed["attempt"] for claimed in await queue.claim("dead", 0.2)] == [3]
    await asyncio.sleep(0.3)
    assert await queue.reap(max_attempts=3) == ([], [(run["run_id"], thread_id)])
    stored = await storage.get_run(run["run_id"])
    assert stored is not None and stored["status"] == "error"
    assert stored["error"]["error"] == "WorkerLost"
    assert (await storage.get_thread(thread_id))["status"] == "error"  # type: ignore[index]


async def test_one_claim_takes_the_heads_of_several_threads_oldest_first(opened: Any) -> None:
    storage, queue = opened
    threads = [await _thread(storage) for _ in range(3)]
    heads = []
    for thread_id in threads:
        head = _run(thread_id)
        heads.append(head)
        await _enqueue(queue, head)
        await _enqueue(queue, _run(thread_id))
    claimed = await queue.claim("w", 5, 10)
    assert [run["run_id"] for run in claimed] == [head["run_id"] for head in heads]


async def _claimed(queue: PostgresRunQueue, storage: PostgresStorage, worker: str) -> str:
    """The id of a run of a new thread, claimed by `worker`."""
    thread_id = await _thread(storage)
    run = _run(thread_id)
    await _enqueue(queue, run)
    assert [claimed["run_id"] for claimed in await queue.claim(worker, 5)] == [run["run_id"]]
    return run["run_id"]


async def test_a_runs_end_stores_its_trace_and_thread_and_drops_superseded_events(
    opened: Any,
) -> None:
    storage, queue = opened
    run_id = await _claimed(queue, storage, "w")
    thread_id = (await storage.get_run(run_id))["thread_id"]  # type: ignore[index]
    # Stored while it ran: 0 to 3, 1 later superseded by 3 (a `messages/partial`).
    await queue.append_events([(run_id, StoredEvent(s, "values", b"%d" % s)) for s in (0, 1, 2, 3)])
    update = ThreadUpdate(status="idle", values={"n": 3})
    assert await queue.finish_claimed(
        run_id,
        thread_id,
        "w",
        status="success",
        output={"n": 3},
        error=None,
        thread_update=update,
        first_seq=0,
        kept_seqs=[0, 2, 3],
        trace=b"trace",
    )
    assert [(e.seq, e.data) for e in await storage.get_run_events(run_id)] == [
        (0, b"0"),
        (2, b"2"),
        (3, b"3"),
    ]
    assert await storage.get_run_trace(run_id) == b"trace"
    run = await storage.get_run(run_id)
    assert run is not None and (run["status"], run["output"]) == ("success", {"n": 3})
    thread = await storage.get_thread(thread_id)
    assert thread is not None and (thread["status"], thread["values"]) == ("idle", {"n": 3})
    assert update.status == "idle"


async def test_an_end_whose_lease_was_lost_stores_nothing(opened: Any) -> None:
    storage, queue = opened
    run_id = await _claimed(queue, storage, "w")
    thread_id = (await storage.get_run(run_id))["thread_id"]  # type: ignore[index]
    await queue.append_events([(run_id, StoredEvent(s, "values", b"%d" % s)) for s in (0, 1)])
    assert not await queue.finish_claimed(
        run_id,
        thread_id,
        "someone else",
        status="success",
        output={},
        error=None,
        thread_update=ThreadUpdate(status="idle", values={"n": 1}),
        first_seq=0,
        kept_seqs=[1],
        trace=b"trace",
    )
    assert [e.seq for e in await storage.get_run_events(run_id)] == [0, 1]
    assert await storage.get_run_trace(run_id) is None
    assert (await storage.get_run(run_id))["status"] == "running"  # type: ignore[index]
    thread = await storage.get_thread(thread_id)
    assert thread is not None and (thread["status"], thread["values"]) == ("busy", None)


async def test_a_run_enqueued_while_an_end_waits_for_the_thread_keeps_it_busy(
    opened: Any,
) -> None:
    """The end's check for runs still in flight sees a run committed while it waited for
    the thread's lock, so the thread is not left `idle` with a run queued on it."""
    storage, queue = opened
    run_id = await _claimed(queue, storage, "w")
    thread_id = (await storage.get_run(run_id))["thread_id"]  # type: ignore[index]
    late = _run(thread_id)
    update = ThreadUpdate(status="idle")
    async with storage.pool.connection() as conn, conn.transaction():
        await conn.execute("SELECT 1 FROM threads WHERE thread_id = %s FOR UPDATE", (thread_id,))
        ending = asyncio.ensure_future(
            queue.finish_claimed(
                run_id,
                thread_id,
                "w",
                status="success",
                output={},
                error=None,
                thread_update=update,
                first_seq=0,
                kept_seqs=[],
            )
        )
        await asyncio.sleep(0.3)
        assert not ending.done()  # waiting for the thread's lock
        await conn.execute(
            "INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, "
            "status, metadata, kwargs, multitask_strategy) "
            "VALUES (%s, %s, 'a', now(), now(), 'pending', '{}', '{}', 'enqueue')",
            (late["run_id"], thread_id),
        )
    assert await ending
    assert update.status == "busy"
    assert (await storage.get_thread(thread_id))["status"] == "busy"  # type: ignore[index]
    assert (await storage.get_run(run_id))["status"] == "success"  # type: ignore[index]


@pytest.mark.parametrize("strategy", [None, "enqueue", "interrupt"])
async def test_enqueue_stores_the_run_its_first_event_and_the_thread_at_once(
    opened: Any, strategy: str | None
) -> None:
    storage, queue = opened
    thread_id = await _thread(storage)
    run = _run(thread_id, strategy or "enqueue")
    start = StoredEvent(0, "metadata", b'{"run_id": "r"}')
    update = ThreadUpdate(status="busy", metadata={"graph_id": "g"})
    assert await queue.enqueue(run, update, strategy, 0, start) == ([], [])
    stored = await storage.get_run(run["run_id"])
    assert stored is not None and stored["status"] == "pending"
    assert await storage.get_run_events(run["run_id"]) == [start]
    thread = await storage.get_thread(thread_id)
    assert thread is not None and thread["status"] == "busy"
    assert thread["metadata"] == {"graph_id": "g"}
