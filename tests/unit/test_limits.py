"""The `limits` config key and the bounds it sets, one part at a time.

The live-server side (413, 422, timeouts, delayed runs, slow thread streams, swept events)
is in tests/e2e/test_limits.py; here are the rules themselves, on real parts: the config
parser, the request models, the broker, the message stream and SQLite storage.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from pydantic import TypeAdapter, ValidationError

from open_langgraph.config import ConfigError, LimitsConfig, load_config
from open_langgraph.runtime.broker import Broker, RunEventStream, SlowConsumer, ThreadEvent
from open_langgraph.runtime.execution import _ChunkPublisher
from open_langgraph.server.schemas import RunBatch, ThreadPrune, ThreadSearch
from open_langgraph.services.event_retention import EventSweeper
from open_langgraph.services.request_limits import applied
from open_langgraph.services.run_request import RunCreate
from open_langgraph.storage.base import ThreadUpdate, utc_now
from open_langgraph.storage.sqlite import SqliteStorage


# -- config ---------------------------------------------------------------------------------
def _load(tmp_path: Path, limits: Any) -> LimitsConfig:
    path = tmp_path / "open_langgraph.json"
    path.write_text(json.dumps({"graphs": {"g": "./g.py:graph"}, "limits": limits}))
    return load_config(path).limits


def test_limits_have_defaults_and_take_each_key(tmp_path: Path) -> None:
    assert _load(tmp_path, None) == LimitsConfig()
    defaults = LimitsConfig()
    assert defaults.max_body_bytes == 10 * 1024 * 1024
    assert defaults.run_timeout_seconds == 3600
    assert defaults.event_retention_days == 7
    limits = _load(
        tmp_path,
        {
            "max_body_bytes": 1000,
            "max_batch_size": 2,
            "max_list_items": 3,
            "run_timeout_seconds": None,
            "max_after_seconds": 5.5,
            "max_queued_events": 7,
            "event_retention_days": 0,
            "event_sweep_interval_minutes": 0.5,
        },
    )
    assert limits == LimitsConfig(1000, 2, 3, None, 5.5, 7, None, 0.5)


@pytest.mark.parametrize(
    ("limits", "key", "problem"),
    [
        ([], "limits", "must be an object"),
        ({"max_body_size": 10}, "limits.max_body_size", "unknown key"),
        ({"max_body_bytes": 0}, "limits.max_body_bytes", "positive integer"),
        ({"max_batch_size": 2.5}, "limits.max_batch_size", "positive integer"),
        ({"max_list_items": None}, "limits.max_list_items", "positive integer"),
        ({"run_timeout_seconds": -1}, "limits.run_timeout_seconds", "positive number or null"),
        ({"run_timeout_seconds": True}, "limits.run_timeout_seconds", "positive number"),
        ({"max_after_seconds": "60"}, "limits.max_after_seconds", "positive number"),
        ({"event_retention_days": -2}, "limits.event_retention_days", "or null"),
        ({"event_sweep_interval_minutes": 0}, "limits.event_sweep_interval_minutes", "positive"),
    ],
)
def test_bad_limits_name_the_key(tmp_path: Path, limits: Any, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as error:
        _load(tmp_path, limits)
    assert error.value.key == key
    assert problem in error.value.problem


# -- request bodies -------------------------------------------------------------------------
def test_declared_lists_are_bounded_by_the_limits_in_force() -> None:
    ids = ["a", "b", "c"]
    assert ThreadSearch.model_validate({"ids": ids}).ids == ids  # defaults: 1000
    with applied(LimitsConfig(max_list_items=2)):
        with pytest.raises(ValidationError, match="ids has 3 items; at most 2"):
            ThreadSearch.model_validate({"ids": ids})
        with pytest.raises(ValidationError, match="thread_ids has 3 items"):
            ThreadPrune.model_validate({"thread_ids": ids})
        with pytest.raises(ValidationError, match="interrupt_before has 3 items"):
            RunCreate.model_validate({"assistant_id": "a", "interrupt_before": ids})
        # Free-form data is the client's own, bounded by the body size only.
        run = RunCreate.model_validate({"assistant_id": "a", "input": {"xs": ids}, "config": {}})
        assert run.input == {"xs": ids}
        assert RunCreate.model_validate({"assistant_id": "a", "input": ids}).input == ids


def test_batches_and_delays_are_bounded_by_the_limits_in_force() -> None:
    batch = TypeAdapter(RunBatch)
    runs = [{"assistant_id": "a"}] * 3
    with applied(LimitsConfig(max_batch_size=2, max_after_seconds=10)):
        with pytest.raises(ValidationError, match="the batch has 3 runs; at most 2"):
            batch.validate_python(runs)
        assert len(batch.validate_python(runs[:2])) == 2
        with pytest.raises(ValidationError, match="after_seconds is 11; at most 10"):
            RunCreate.model_validate({"assistant_id": "a", "after_seconds": 11})
        assert RunCreate.model_validate({"assistant_id": "a", "after_seconds": 10})
    assert len(batch.validate_python(runs)) == 3  # outside the block, the defaults again


# -- thread listeners -----------------------------------------------------------------------
def _event(n: int) -> ThreadEvent:
    return ThreadEvent("custom", b"%d" % n, "run", n)


async def test_a_listener_that_falls_behind_is_detached_after_what_it_holds() -> None:
    broker = Broker(max_queued_events=3)
    with broker.listen_to_thread("t") as slow, broker.listen_to_thread("t") as fast:
        for n in range(5):
            broker.publish_to_thread("t", _event(n))  # never waits, whoever listens
            assert (await fast.get()).seq == n
        assert slow.detached and not fast.detached
        assert [(await slow.get()).seq for _ in range(3)] == [0, 1, 2]
        with pytest.raises(SlowConsumer, match="more than 3 events behind"):
            await slow.get()
        broker.publish_to_thread("t", _event(5))  # the detached one gets nothing more
        assert (await fast.get()).seq == 5
    assert not broker._thread_listeners  # both gone when their streams end


async def test_a_waiting_listener_wakes_for_each_event_and_for_its_detachment() -> None:
    broker = Broker(max_queued_events=1)
    with broker.listen_to_thread("t") as listener:
        waiting = asyncio.ensure_future(listener.get())
        await asyncio.sleep(0)
        broker.publish_to_thread("t", _event(0))
        assert (await waiting).seq == 0
        broker.publish_to_thread("t", _event(1))
        broker.publish_to_thread("t", _event(2))  # one over the bound
        assert (await listener.get()).seq == 1
        with pytest.raises(SlowConsumer):
            await listener.get()


# -- messages/partial -----------------------------------------------------------------------
def _stream_reply(chunks: int) -> tuple[RunEventStream, list[bytes]]:
    """Publish a reply of `chunks` chunks as the `messages` mode does; return the stream and
    every event a live client received."""
    stream = RunEventStream("run")
    sent: list[bytes] = []
    publisher = _ChunkPublisher(["messages"], stream, subgraphs=False)
    for n in range(chunks):
        chunk = AIMessageChunk(content=f"w{n} ", id="reply")
        publisher.publish(("messages", (chunk, {"langgraph_node": "agent"})))
        sent.append(stream.events[-1].data)
    return stream, sent


def test_partials_reach_live_clients_whole_but_are_kept_once_per_message() -> None:
    stream, sent = _stream_reply(2000)
    text = "".join(f"w{n} " for n in range(2000))
    assert json.loads(sent[-1])[0]["content"] == text
    assert json.loads(sent[1])[0]["content"] == "w0 w1 "  # each one the message so far
    kept = stream.events
    assert [e.event for e in kept] == ["messages/metadata", "messages/partial"]
    assert kept[1].seq == 2000  # ids stay the ones clients saw
    stored = sum(len(e.data) for e in kept)
    on_the_wire = sum(len(d) for d in sent)
    assert stored < 3 * len(text) < on_the_wire / 100


async def test_replay_gives_the_newest_partial_and_skips_superseded_ones() -> None:
    stream, _ = _stream_reply(5)
    stream.close()
    replayed = [e async for e in stream.follow(-1)]
    assert [e.seq for e in replayed] == [0, 5]
    assert [e.seq for e in stream.events_after(2)] == [5]
    assert [e.seq async for e in stream.follow(2)] == [5]


# -- event retention ------------------------------------------------------------------------
async def _finished_run(storage: SqliteStorage, status: str = "success") -> str:
    thread = await storage.create_thread(thread_id=_uuid(), metadata={}, if_exists="raise")
    run_id = _uuid()
    now = utc_now()
    run = {
        "run_id": run_id,
        "thread_id": thread["thread_id"],
        "assistant_id": _uuid(),
        "created_at": now,
        "updated_at": now,
        "status": "running",
        "metadata": {},
        "kwargs": {},
        "multitask_strategy": "enqueue",
    }
    await storage.create_run(run, ThreadUpdate(status="busy"))
    stream = RunEventStream(run_id)
    stream.publish("metadata", b"{}")
    stream.publish("values", b'{"n": 1}')
    if status != "running":
        await storage.finish_run(
            run_id,
            status=status,  # type: ignore[arg-type]
            output={"n": 1},
            error=None,
            events=stream.events,
            thread_update=ThreadUpdate(status="idle"),
        )
    return run_id


def _uuid() -> str:
    return str(uuid.uuid4())


async def test_the_sweep_deletes_old_events_of_ended_runs_only(tmp_path: Path) -> None:
    async with SqliteStorage.from_path(tmp_path / "olg.db") as storage:
        ended = await _finished_run(storage)
        running = await _finished_run(storage, status="running")
        sweeper = EventSweeper(storage, LimitsConfig(event_retention_days=1))
        assert await sweeper.sweep() == 0  # nothing is a day old yet
        assert len(await storage.get_run_events(ended)) == 2

        tomorrow = datetime.now(UTC) + timedelta(days=1, minutes=1)
        assert await sweeper.sweep(now=tomorrow) == 1
        assert await storage.get_run_events(ended) == []
        assert (await storage.get_run(ended))["output"] == {"n": 1}  # the record stays
        assert await sweeper.sweep(now=tomorrow) == 0  # and is not counted again
        # A run still executing keeps what it has stored, however old.
        assert (await storage.get_run(running))["status"] == "running"


async def test_many_old_runs_are_swept_in_batches_and_none_means_keep(tmp_path: Path) -> None:
    async with SqliteStorage.from_path(tmp_path / "olg.db") as storage:
        runs = [await _finished_run(storage) for _ in range(450)]
        later = datetime.now(UTC) + timedelta(days=8)
        keep = EventSweeper(storage, LimitsConfig(event_retention_days=None))
        assert await keep.sweep(now=later) == 0
        assert await EventSweeper(storage, LimitsConfig()).sweep(now=later) == 450
        assert all([await storage.get_run_events(r) == [] for r in runs[::50]])
