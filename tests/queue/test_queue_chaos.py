"""Queue mode under failure: workers killed mid-run, an API process killed mid-stream, Redis
and PostgreSQL restarted mid-load (and one `olg serve` process on PostgreSQL through an
outage). Real processes throughout (tests/fixtures/queue_cluster.py), on a fresh
PostgreSQL database and a Redis of the test's own.

Every run executes the `relay` graph (four legs, each journaling its start and end), so the
journal tells which legs finished before a kill and which ran again.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.schema import StreamPart

from open_langgraph.storage.postgres import POOL_WAIT_SECONDS
from tests.fixtures.graphs import RELAY_LEGS
from tests.fixtures.local_services import PostgresInstance
from tests.fixtures.queue_cluster import Member, QueueCluster, queue_cluster
from tests.fixtures.relay_journal import (
    JournalEntry,
    legs_run_again,
    read_journal,
    resumed_at,
    runs_held_by,
)
from tests.fixtures.relay_journal import until as _until
from tests.fixtures.server import free_port, write_config
from tests.fixtures.streams import open_stream

pytestmark = pytest.mark.timeout(300)

LEG_SECONDS = 0.4


def _held_by(cluster: QueueCluster, worker_pid: int) -> int:
    return len(runs_held_by(cluster.database_url, worker_pid))


async def _replay(client: LangGraphClient, run: dict[str, Any]) -> list[StreamPart]:
    parts: list[StreamPart] = []
    path = f"/threads/{run['thread_id']}/runs/{run['run_id']}/stream"
    task = await open_stream(client, path, parts, headers={"Last-Event-ID": "-1"})
    await asyncio.wait_for(task, 60)
    return parts


def _assert_finished_legs_ran_once(entries: list[JournalEntry], runs: list[dict[str, Any]]) -> None:
    again = legs_run_again(entries, [run["run_id"] for run in runs])
    assert not again, f"legs ran again after finishing (run, leg): {again}"


def _attempts(cluster: QueueCluster) -> list[int]:
    with psycopg.connect(cluster.database_url, autocommit=True) as db:
        return [row[0] for row in db.execute("SELECT attempt FROM runs").fetchall()]


async def _timed_wait(client: LangGraphClient) -> float:
    """Seconds for one short run on a new thread, `runs.wait` as a client makes it."""
    thread = await client.threads.create()
    began = time.monotonic()
    result = await client.runs.wait(thread["thread_id"], "counter", input={"count": 0})
    assert result["count"] == 2, result
    return time.monotonic() - began


@contextlib.contextmanager
def _own_postgres() -> Iterator[PostgresInstance]:
    """A PostgreSQL of the test's own, which it may stop and start."""
    # Not under tmp_path: PostgreSQL runs as another account under root, and pytest keeps
    # its temporary directories private.
    postgres = PostgresInstance(Path(tempfile.mkdtemp(prefix="olg-test-postgres-")))
    postgres.init()
    postgres.start()
    try:
        yield postgres
    finally:
        postgres.stop()
        shutil.rmtree(postgres.directory, ignore_errors=True)


def _ids(parts: list[StreamPart]) -> list[int]:
    return [int(part.id) for part in parts if part.id is not None]


async def test_runs_survive_a_worker_killed_mid_run(tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    run_input = {"seconds": LEG_SECONDS, "journal": str(journal)}
    with queue_cluster(tmp_path, apis=2, workers=2, lease_seconds=3.0) as cluster:
        clients = [get_client(url=api.url) for api in cluster.apis]
        threads = [await clients[i % 2].threads.create() for i in range(10)]
        runs = []
        for round_ in range(2):
            for i, thread in enumerate(threads):
                client = clients[(i + round_) % 2]
                # `sync`: a leg's checkpoint is stored before the next leg starts, so "the next
                # leg started" proves a leg finished for good. (With the default `async` the
                # last checkpoint may still be in flight when a worker dies.)
                runs.append(
                    await client.runs.create(
                        thread["thread_id"], "relay", input=run_input, durability="sync"
                    )
                )
        live: dict[str, list[StreamPart]] = {run["run_id"]: [] for run in runs[:6]}
        streams = [
            await open_stream(
                clients[0],
                f"/threads/{run['thread_id']}/runs/{run['run_id']}/stream",
                live[run["run_id"]],
                headers={"Last-Event-ID": "-1"},
            )
            for run in runs[:6]
        ]

        # Kill a worker once it holds runs that have finished a leg, mid-way through others:
        # whichever worker that is (which one claims more is a matter of timing).
        def holding(at_least: int) -> Member | None:
            for worker in cluster.workers:
                if worker.process and _held_by(cluster, worker.process.pid) >= at_least:
                    return worker
            return None

        await _until(lambda: holding(2))
        await _until(lambda: sum(e[2] == "end" for e in read_journal(journal)) >= 4)
        victim = holding(2) or holding(1)
        assert victim is not None and victim.process is not None
        held = _held_by(cluster, victim.process.pid)
        victim.kill_hard()
        killed_at = time.time()

        for run in runs:
            await asyncio.wait_for(clients[1].runs.join(run["thread_id"], run["run_id"]), 120)
        for stream in streams:
            await asyncio.wait_for(stream, 60)

        # Every run ended `success`, each thread with the state two single runs give.
        for run in runs:
            stored = await clients[0].runs.get(run["thread_id"], run["run_id"])
            assert stored["status"] == "success", stored
        for thread in threads:
            state = await clients[1].threads.get_state(thread["thread_id"])
            assert state["values"]["legs"] == list(RELAY_LEGS) * 2

        # No leg that finished (its successor started) ran again; every leg ran to its end.
        entries = read_journal(journal)
        resumed = resumed_at(entries)
        _assert_finished_legs_ran_once(entries, runs)
        ended = {(e[0], e[1]) for e in entries if e[2] == "end"}
        assert len(ended) == len(runs) * len(RELAY_LEGS)

        # The killed worker's runs were taken over (a second attempt each), within 10 s of
        # the kill; one whose legs had all finished has nothing left to run, so the journal
        # shows a leg starting again for the others only.
        assert _attempts(cluster).count(2) == held >= 1
        assert len(resumed) >= 1
        delays = sorted(at - killed_at for at in resumed.values())
        print(
            f"\ntake-over after kill -9 of a worker holding {held} runs (lease 3 s): "
            f"n={len(delays)} min {delays[0]:.2f} s, median {statistics.median(delays):.2f} s, "
            f"max {delays[-1]:.2f} s"
        )
        assert delays[-1] <= 10.0, delays

        # Streams attached before the kill got each event once, in order, as stored.
        for run in runs[:6]:
            got = live[run["run_id"]]
            ids = _ids(got)
            assert ids == sorted(set(ids)), ids
            stored_parts = await _replay(clients[1], run)
            assert [(p.id, p.event, p.data) for p in got] == [
                (p.id, p.event, p.data) for p in stored_parts
            ]
            # The first run of each thread: its last event is the state after one relay.
            assert got[0].event == "metadata" and got[-1].data["legs"] == list(RELAY_LEGS)


async def test_a_worker_killed_after_a_model_load_is_replaced_within_ten_seconds(
    tmp_path: Path,
) -> None:
    """A load extends the leases of the runs held (three minutes) only while it lasts: a
    worker killed after it is replaced within the usual lease (5 s, the default)."""
    journal = tmp_path / "journal.txt"
    graphs = {"loaded_relay": "tests.fixtures.graphs:loaded_relay"}
    with queue_cluster(tmp_path, apis=1, workers=2, lease_seconds=5.0, graphs=graphs) as cluster:
        client = get_client(url=cluster.apis[0].url)
        thread = await client.threads.create()
        run = await client.runs.create(
            thread["thread_id"],
            "loaded_relay",
            input={"seconds": 2.0, "journal": str(journal)},
            durability="sync",
        )
        # Kill whichever worker holds the run once its load is over and a leg has started.
        await _until(lambda: any(e[2] == "start" for e in read_journal(journal)))
        holder = next(w for w in cluster.workers if _held_by(cluster, w.process.pid))  # type: ignore[union-attr]
        holder.kill_hard()
        killed_at = time.time()
        await asyncio.wait_for(client.runs.join(thread["thread_id"], run["run_id"]), 120)
        stored = await client.runs.get(thread["thread_id"], run["run_id"])
        assert stored["status"] == "success", stored
        resumed = [e[4] for e in read_journal(journal) if e[2] == "start" and e[3] == 2]
        assert resumed, read_journal(journal)
        delay = resumed[0] - killed_at
        print(f"\ntake-over after kill -9 of a worker past a model load (lease 5 s): {delay:.2f} s")
        assert delay <= 10.0


async def test_stream_resumes_on_another_api_process_after_a_kill(tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    with queue_cluster(tmp_path, apis=2, workers=1) as cluster:
        first, second = (get_client(url=api.url) for api in cluster.apis)
        thread = await first.threads.create()
        run = await first.runs.create(
            thread["thread_id"],
            "relay",
            input={"seconds": 0.5, "journal": str(journal)},
            stream_mode=["values", "updates", "debug"],
        )
        path = f"/threads/{thread['thread_id']}/runs/{run['run_id']}/stream"
        received: list[StreamPart] = []
        task = await open_stream(first, path, received, headers={"Last-Event-ID": "-1"})
        await _until(lambda: len(received) >= 4)
        cluster.apis[0].kill_hard()
        with contextlib.suppress(httpx.HTTPError):
            await asyncio.wait_for(task, 30)
        rest: list[StreamPart] = []
        resumed = await open_stream(
            second, path, rest, headers={"Last-Event-ID": received[-1].id or ""}
        )
        await asyncio.wait_for(resumed, 60)
        everything = await _replay(second, run)
        assert len(rest) > 0
        assert [(p.id, p.event, p.data) for p in received + rest] == [
            (p.id, p.event, p.data) for p in everything
        ]


async def test_runs_continue_when_redis_restarts_mid_load(tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    with queue_cluster(tmp_path, apis=1, workers=1) as cluster:
        client = get_client(url=cluster.apis[0].url)
        threads = [await client.threads.create() for _ in range(4)]
        runs = [
            await client.runs.create(
                t["thread_id"], "relay", input={"seconds": 0.3, "journal": str(journal)}
            )
            for t in threads
        ]
        await _until(lambda: len(read_journal(journal)) >= 2)
        with_redis = await _timed_wait(client)
        cluster.redis.kill()
        # At once: a worker may be in a 1 s wait it began while the bus was up.
        redis_gone = await _timed_wait(client)
        await asyncio.sleep(1.0)
        without_redis = await _timed_wait(client)
        # Runs created while Redis is down are queued and executed all the same.
        runs += [
            await client.runs.create(
                t["thread_id"], "relay", input={"seconds": 0.1, "journal": str(journal)}
            )
            for t in threads
        ]
        await asyncio.sleep(1.0)
        cluster.redis.start()
        just_back = await _timed_wait(client)
        await asyncio.sleep(2.0)
        settled = await _timed_wait(client)
        print(
            f"\nruns.wait of `counter`: {with_redis * 1000:.0f} ms with Redis, "
            f"{redis_gone * 1000:.0f} ms the moment it went, {without_redis * 1000:.0f} ms 1 s "
            f"into the outage, {just_back * 1000:.0f} ms just after it came back, "
            f"{settled * 1000:.0f} ms 2 s later"
        )
        outcomes = [
            await asyncio.wait_for(client.runs.join(r["thread_id"], r["run_id"]), 60) for r in runs
        ]
        assert all(o["legs"] == list(RELAY_LEGS) * 2 for o in outcomes[len(threads) :])
        for run in runs:
            stored = await client.runs.get(run["thread_id"], run["run_id"])
            assert stored["status"] == "success"
        # A run whose events were published while Redis was down still replays them all.
        parts = await _replay(client, runs[0])
        assert _ids(parts) == list(range(len(parts)))


async def test_sigterm_hands_unfinished_runs_to_another_worker(tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    with queue_cluster(tmp_path, apis=1, workers=1) as cluster:
        client = get_client(url=cluster.apis[0].url)
        leaving = cluster.workers[0]
        assert leaving.process is not None
        threads = [await client.threads.create() for _ in range(3)]
        # Four legs of 2 s: longer than the cluster's 5 s grace period.
        runs = [
            await client.runs.create(
                t["thread_id"],
                "relay",
                input={"seconds": 2.0, "journal": str(journal)},
                durability="sync",
            )
            for t in threads
        ]
        await _until(lambda: _held_by(cluster, leaving.process.pid) == 3)  # type: ignore[union-attr]
        stopped_at = time.monotonic()
        leaving.process.terminate()
        leaving.process.wait(timeout=30)
        # It stopped within its grace period (plus the hand-back), not after its runs.
        took = time.monotonic() - stopped_at
        print(f"\nworker with 3 runs stopped {took:.2f} s after SIGTERM (grace 5 s)")
        assert took < 5 + 3
        assert "3 runs handed back" in leaving.log.read_text()
        cluster.add_worker().wait_ready()
        for run in runs:
            outcome = await asyncio.wait_for(client.runs.join(run["thread_id"], run["run_id"]), 60)
            assert outcome["legs"] == list(RELAY_LEGS)
        _assert_finished_legs_ran_once(read_journal(journal), runs)
        attempts = {(e[0], e[3]) for e in read_journal(journal)}
        assert {run["run_id"] for run in runs} <= {run_id for run_id, a in attempts if a == 2}


async def test_runs_finish_when_postgresql_restarts_mid_load(tmp_path: Path) -> None:
    """An operator restarts PostgreSQL while runs execute: requests during the outage get a
    503 with Retry-After, and afterwards every run sent finishes once, without restarting any
    process of ours."""
    journal = tmp_path / "journal.txt"
    with (
        _own_postgres() as postgres,
        queue_cluster(tmp_path, apis=1, workers=2, database_url=postgres.url) as cluster,
    ):
        client = get_client(url=cluster.apis[0].url)
        threads = [await client.threads.create() for _ in range(8)]
        runs = [
            await client.runs.create(
                t["thread_id"],
                "relay",
                input={"seconds": 0.3, "journal": str(journal)},
                durability="sync",
            )
            for t in threads
        ]
        await _until(lambda: len(read_journal(journal)) >= 4)
        postgres.stop()
        async with httpx.AsyncClient(base_url=cluster.apis[0].url, timeout=60) as http:
            started = time.monotonic()
            during = await http.get(f"/threads/{threads[0]['thread_id']}")
            waited = time.monotonic() - started
        await asyncio.sleep(2.0)
        postgres.start()
        assert during.status_code == 503, during.text
        assert during.headers["retry-after"] and "storage unavailable" in during.json()["detail"]
        assert waited < 15, f"the outage answer took {waited:.1f} s"
        outcomes = [
            await asyncio.wait_for(client.runs.join(r["thread_id"], r["run_id"]), 120) for r in runs
        ]
        assert all(o.get("legs") == list(RELAY_LEGS) for o in outcomes), outcomes
        for run in runs:
            stored = await client.runs.get(run["thread_id"], run["run_id"])
            logs = "".join(
                line
                for member in cluster.workers
                for line in member.log.read_text().splitlines(keepends=True)
                if run["run_id"] in line
            )
            assert stored["status"] == "success", (stored, read_journal(journal), logs)
        listed = [await client.runs.list(t["thread_id"]) for t in threads]
        assert sorted(r["run_id"] for page in listed for r in page) == sorted(
            r["run_id"] for r in runs
        )
        # New work is accepted without a restart of the API or the workers.
        after = await client.runs.wait(
            threads[0]["thread_id"], "relay", input={"seconds": 0.0, "journal": str(journal)}
        )
        assert isinstance(after, dict) and after["legs"][-4:] == list(RELAY_LEGS)
        # Not `_assert_finished_legs_ran_once`: a leg whose checkpoint write the outage cut
        # may have let its successor start, and runs again on the next attempt, as it must.
        # Runs the outage caught mid-way were handed back and resumed, not failed.
        assert any(attempt >= 2 for *_, attempt, _ in read_journal(journal))


async def test_one_process_on_postgresql_resumes_the_runs_an_outage_cut_off(
    tmp_path: Path,
) -> None:
    """`olg serve` alone on PostgreSQL (no queue): a run whose checkpoint write failed when the
    database went away waits for it and resumes from its last checkpoint, instead of ending
    `error`; nothing of ours restarts."""
    journal = tmp_path / "journal.txt"
    with _own_postgres() as postgres:
        port = free_port()
        argv = ["serve", "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--config", str(write_config(tmp_path)), "--database-url", postgres.url]
        server = Member(argv, tmp_path / "server.log", port)
        server.start()
        try:
            server.wait_ready()
            client = get_client(url=server.url)
            threads = [await client.threads.create() for _ in range(4)]
            run_input = {"seconds": 0.3, "journal": str(journal)}
            runs = [
                await client.runs.create(
                    t["thread_id"], "relay", input=run_input, durability="sync"
                )
                for t in threads
            ]
            await _until(lambda: len(read_journal(journal)) >= 2)
            # Longer than a checkpoint write waits for a connection (the pool's wait): the
            # writes the outage catches fail, rather than landing once it is over.
            postgres.stop()
            await asyncio.sleep(POOL_WAIT_SECONDS + 2)
            postgres.start()
            outcomes = [
                await asyncio.wait_for(client.runs.join(r["thread_id"], r["run_id"]), 120)
                for r in runs
            ]
            statuses = [
                (await client.runs.get(r["thread_id"], r["run_id"]))["status"] for r in runs
            ]
            # A resumed run streams a second start event (`metadata`, attempt 2); the legs it
            # runs again, if any, journal attempt 2 (none when the outage cut its last write).
            resumed = set()
            for run in runs:
                for part in await _replay(client, run):
                    if part.event == "metadata" and (part.data or {}).get("attempt", 1) >= 2:
                        resumed.add(run["run_id"])
            print(
                f"\none process, PostgreSQL down {POOL_WAIT_SECONDS + 2:g} s: {len(runs)} runs "
                f"sent, {statuses.count('success')} finished `success`, {len(resumed)} resumed"
            )
            log = server.log.read_text()
            assert statuses == ["success"] * len(runs), log
            assert all(o.get("legs") == list(RELAY_LEGS) for o in outcomes), outcomes
            assert resumed, "no run was caught by the outage: the test proved nothing"
            assert "waiting for it to resume the run" in log
            # Each run listed once on its thread: none was created again.
            listed = [await client.runs.list(t["thread_id"]) for t in threads]
            assert sorted(r["run_id"] for page in listed for r in page) == sorted(
                r["run_id"] for r in runs
            )
        finally:
            server.stop()


async def test_a_graph_whose_own_database_fails_ends_error_after_max_attempts(
    tmp_path: Path,
) -> None:
    """A PostgreSQL error raised by the graph itself looks like the server's database going
    away: the run goes back to the queue, but only up to the attempts a lost worker's run
    gets, then ends `error` with the graph's exception."""
    graphs = {"own_database_down": "tests.fixtures.graphs:own_database_down"}
    with queue_cluster(tmp_path, apis=1, workers=1, graphs=graphs) as cluster:
        client = get_client(url=cluster.apis[0].url)
        thread = await client.threads.create()
        outcome = await asyncio.wait_for(
            client.runs.wait(
                thread["thread_id"], "own_database_down", input={"count": 0}, raise_error=False
            ),
            60,
        )
        assert isinstance(outcome, dict)
        assert outcome["__error__"]["error"] == "OperationalError", outcome
        runs = await client.runs.list(thread["thread_id"])
        assert [r["status"] for r in runs] == ["error"]
        assert _attempts(cluster) == [3]
