"""Queue mode across hosts: PostgreSQL, Redis, an API process and two workers, each on a host
of its own (a Linux network namespace, tests/fixtures/netns.py), joined by a switch.

What loopback never shows: every connection crosses a network, the workers reach PostgreSQL
with a few milliseconds of latency (a delaying proxy beside each worker,
tests/fixtures/delay_proxy.py, as a database in another zone would be), and a worker can be
cut off from everything while it holds runs, its process still alive. The test measures
throughput and `runs.wait` latency through the official SDK, then cuts a worker's link
mid-run and checks that the other worker takes its runs over once their leases run out, with
no run lost and no finished leg run twice (the `relay` graph's journal). `-s` prints the
figures; docs/deploy.md ("Multi-host simulation") quotes them.

Every process runs as it would on its own machine: the API and the workers name the
database `postgres` (the same URL everywhere, so the same Redis channels), and reach it
through `hostaddr`, the address a name would resolve to on that host: PostgreSQL's own for
the API, the local delaying proxy for the workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.graphs import RELAY_LEGS
from tests.fixtures.local_services import PostgresInstance, RedisServer
from tests.fixtures.netns import Host, Network
from tests.fixtures.queue_cluster import Member, QueueCluster
from tests.fixtures.relay_journal import (
    legs_run_again,
    read_journal,
    resumed_at,
    runs_held_by,
    until,
)
from tests.fixtures.sdk import sdk_client

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("ip") is None,
        reason="network namespaces (ip netns, veth pairs) need root and iproute2",
    ),
]

LEASE_SECONDS = 3.0
DELAY_MS = float(os.environ.get("OLG_TEST_NETNS_DELAY_MS", "2"))
"""One way, each direction, on each worker's path to PostgreSQL: 4 ms more per round trip
(`OLG_TEST_NETNS_DELAY_MS` changes it, to compare)."""
IDLE_IN_TRANSACTION_TIMEOUT = "10s"
"""PostgreSQL ends a session left idle inside a transaction after this. A worker cut off
between two statements of a transaction (a run's end takes a few round trips under the
thread's row lock) would otherwise hold that lock until the kernel gives up on the
connection (minutes to hours), and the other worker's take-over would wait on it; see
docs/deploy.md, "Multi-host simulation"."""
LATENCY_RUNS = 40
THROUGHPUT_CLIENTS = 8
THROUGHPUT_RUNS = 96
RELAY_RUNS = 10
LEG_SECONDS = 0.5
DELAY_PROXY = Path(__file__).parent.parent / "fixtures" / "delay_proxy.py"


@dataclass
class Simulation:
    network: Network
    cluster: QueueCluster
    worker_hosts: dict[Member, Host] = field(default_factory=dict)
    cut: list[Member] = field(default_factory=list)
    """Workers whose host was cut off: they cannot stop cleanly, they are killed."""

    @property
    def api(self) -> Member:
        return self.cluster.apis[0]


def _database_url(postgres: PostgresInstance, address: str) -> str:
    """The deployment's one database URL, reached at `address` from where it is used."""
    return f"postgresql://postgres@postgres:{postgres.port}/postgres?hostaddr={address}"


def _start_delay_proxy(host: Host, postgres: PostgresInstance, log: Path) -> subprocess.Popen[str]:
    """The delaying proxy on `host`'s loopback, on PostgreSQL's port, forwarding to it."""
    with log.open("ab") as errors:
        return subprocess.Popen(
            [
                *host.prefix,
                *(sys.executable, str(DELAY_PROXY)),
                *("--listen", f"127.0.0.1:{postgres.port}"),
                *("--upstream", f"{postgres.host}:{postgres.port}"),
                *("--delay-ms", str(DELAY_MS)),
            ],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )


def _wait_listening(proxy: subprocess.Popen[str], log: Path) -> None:
    """Return once the proxy's port is bound (it says so); an empty read means it exited."""
    assert proxy.stdout is not None
    if proxy.stdout.readline().strip() != "listening":
        raise RuntimeError(f"the delaying proxy did not start:\n{log.read_text()}")


def _stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
def simulation(tmp_path: Path) -> Iterator[Simulation]:
    with contextlib.ExitStack() as stack:
        network = Network()
        stack.callback(network.close)
        network.create()
        db_host, redis_host, api_host = (network.add_host(r) for r in ("postgres", "redis", "api"))
        worker_hosts = [network.add_host(f"worker{i}") for i in (1, 2)]

        # Not under tmp_path: PostgreSQL runs as another account under root, and pytest keeps
        # its temporary directories private.
        directory = Path(tempfile.mkdtemp(prefix="olg-test-postgres-"))
        stack.callback(shutil.rmtree, directory, ignore_errors=True)
        postgres = PostgresInstance(
            directory,
            host=db_host.address,
            netns=db_host.netns,
            settings={"idle_in_transaction_session_timeout": IDLE_IN_TRANSACTION_TIMEOUT},
        )
        postgres.init()
        stack.callback(postgres.stop)
        postgres.start()
        redis = RedisServer(tmp_path, host=redis_host.address, netns=redis_host.netns)
        stack.callback(redis.kill)
        redis.start()
        for host in worker_hosts:
            log = tmp_path / f"proxy-{host.role}.log"
            proxy = _start_delay_proxy(host, postgres, log)
            stack.callback(_stop, proxy)
            _wait_listening(proxy, log)

        cluster = QueueCluster(
            tmp_path,
            _database_url(postgres, db_host.address),
            lease_seconds=LEASE_SECONDS,
            redis=redis,
        )
        sim = Simulation(network, cluster)
        stack.callback(cluster.stop)
        # Workers cut off cannot hand their runs back: killed before the others stop.
        stack.callback(lambda: [member.kill_hard() for member in sim.cut])
        cluster.add_api(host=api_host.address, prefix=api_host.prefix)
        for host in worker_hosts:
            worker = cluster.add_worker(
                prefix=host.prefix, database_url=_database_url(postgres, "127.0.0.1")
            )
            sim.worker_hosts[worker] = host
        for member in [*cluster.apis, *cluster.workers]:
            member.wait_ready()
        yield sim


async def _timed_wait(client: LangGraphClient, thread_id: str) -> float:
    """Seconds `runs.wait` takes for the two-node `counter` graph, as a client sees them."""
    began = time.monotonic()
    result = await client.runs.wait(thread_id, "counter", input={"count": 0})
    took = time.monotonic() - began
    assert isinstance(result, dict) and result["count"] == 2, result
    return took


async def _latency(client: LangGraphClient) -> list[float]:
    """`runs.wait` one at a time, each on a thread of its own made beforehand."""
    threads = [await client.threads.create() for _ in range(LATENCY_RUNS)]
    return [await _timed_wait(client, t["thread_id"]) for t in threads]


async def _throughput(client: LangGraphClient) -> float:
    """Runs per second with `THROUGHPUT_CLIENTS` clients each waiting on its runs in turn."""
    threads = [await client.threads.create() for _ in range(THROUGHPUT_RUNS)]
    pending = [t["thread_id"] for t in threads]

    async def one_client() -> None:
        while pending:
            await _timed_wait(client, pending.pop())

    began = time.monotonic()
    await asyncio.gather(*(one_client() for _ in range(THROUGHPUT_CLIENTS)))
    return THROUGHPUT_RUNS / (time.monotonic() - began)


def _percentile(samples: list[float], percent: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[percent - 1]


async def test_queue_mode_across_hosts(simulation: Simulation, tmp_path: Path) -> None:
    sim = simulation
    # The test process is the client host; its own checks go to PostgreSQL directly.
    database_url = sim.cluster.database_url
    async with sdk_client(sim.api.url, timeout=120) as client:
        warm_up = await client.threads.create()
        for _ in range(3):
            await _timed_wait(client, warm_up["thread_id"])

        waits = await _latency(client)
        runs_per_second = await _throughput(client)
        print(
            f"\nmulti-host ({DELAY_MS:g} ms each way between workers and PostgreSQL): "
            f"runs.wait of `counter` p50 {_percentile(waits, 50) * 1000:.0f} ms, "
            f"p95 {_percentile(waits, 95) * 1000:.0f} ms (n={len(waits)}); "
            f"{runs_per_second:.1f} runs/s with {THROUGHPUT_CLIENTS} clients "
            f"({THROUGHPUT_RUNS} runs)"
        )

        # -- a worker's host cut off mid-run ----------------------------------------------
        journal = tmp_path / "journal.txt"
        threads = [await client.threads.create() for _ in range(RELAY_RUNS)]
        runs = [
            # `sync`: a leg's checkpoint is stored before the next leg starts, so "the next
            # leg started" proves a leg finished for good.
            await client.runs.create(
                t["thread_id"],
                "relay",
                input={"seconds": LEG_SECONDS, "journal": str(journal)},
                durability="sync",
            )
            for t in threads
        ]
        run_ids = [run["run_id"] for run in runs]

        def held() -> dict[Member, list[str]]:
            return {
                worker: runs_held_by(database_url, worker.process.pid)  # type: ignore[union-attr]
                for worker in sim.cluster.workers
            }

        # Cut whichever worker holds the most runs, once it holds two and legs have ended.
        await until(lambda: max(len(r) for r in held().values()) >= 2)
        await until(lambda: sum(e[2] == "end" for e in read_journal(journal)) >= 2)
        victim = max(held().items(), key=lambda item: len(item[1]))[0]
        survivor = next(w for w in sim.cluster.workers if w is not victim)
        sim.cut.append(victim)
        sim.network.cut(sim.worker_hosts[victim])
        cut_at = time.time()
        # What it held at the cut: nothing it does afterwards reaches the database.
        taken = set(runs_held_by(database_url, victim.process.pid))  # type: ignore[union-attr]

        for run in runs:
            await asyncio.wait_for(client.runs.join(run["thread_id"], run["run_id"]), 120)
        stored = [await client.runs.get(r["thread_id"], r["run_id"]) for r in runs]
        lost = [r["run_id"] for r in stored if r["status"] != "success"]
        for thread in threads:
            state = await client.threads.get_state(thread["thread_id"])
            if state["values"].get("legs") != list(RELAY_LEGS):
                lost.append(thread["thread_id"])
        entries = read_journal(journal)
        duplicated = legs_run_again(entries, run_ids)
        ended = {(e[0], e[1]) for e in entries if e[2] == "end"}
        with psycopg.connect(database_url, autocommit=True) as db:
            attempts = dict(db.execute("SELECT run_id, attempt FROM runs").fetchall())
        retried = {run_id for run_id in run_ids if attempts[run_id] > 1}
        delays = sorted(
            at - cut_at for run_id, at in resumed_at(entries).items() if run_id in taken
        )
        print(
            f"worker cut off holding {len(taken)} of {RELAY_RUNS} relay runs "
            f"(lease {LEASE_SECONDS:g} s): resumed on the other worker after "
            + (
                f"{delays[0]:.2f}-{delays[-1]:.2f} s (median {statistics.median(delays):.2f} s, "
                f"n={len(delays)})"
                if delays
                else "(no leg left to run)"
            )
            + f"; lost {len(lost)}, legs run again after finishing {len(duplicated)}"
        )

        assert not lost, lost
        assert not duplicated, duplicated
        assert len(ended) == RELAY_RUNS * len(RELAY_LEGS)
        # The cut-off worker's runs went round again, and were taken over: the survivor is the
        # only worker that can reach the database. (Not "only those": on overloaded cores a
        # worker stalled past its lease loses a run too, which is no failure.)
        assert taken and taken <= retried, (taken, retried)
        # The lease (3 s), a reaper pass (1 s), and once in a while PostgreSQL's
        # idle-in-transaction timeout (10 s), with room for overloaded cores.
        assert delays and delays[-1] <= 30.0, delays
        assert survivor.process is not None and survivor.process.poll() is None
