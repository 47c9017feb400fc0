"""How far one PostgreSQL and one Redis carry queue mode: the figures behind docs/deploy.md's
sizing ("How far one PostgreSQL and one Redis carry").

It starts a PostgreSQL (with `pg_stat_statements`, `fsync` on) and a Redis of its own, from the
machine's binaries through tests/fixtures/local_services.py, so that their counters and CPU
hold nothing but this benchmark, and measures two things:

1. **Claims.** The queue's claim (`PostgresRunQueue.claim`, one `UPDATE ... FOR UPDATE SKIP
   LOCKED` statement; storage/postgres/queue.py) hammered by concurrent claimers on a fresh
   database full of queued runs, each on a thread of its own, optionally behind a backlog of
   runs queued on busy threads (which every claim has to step over). Claims per second, and
   PostgreSQL's CPU per claim: the rate one PostgreSQL core sustains.
2. **Runs.** `olg serve --workers 2` in queue mode serving a two-node and a ten-node graph
   (benchmarks/bench_graph/), driven with the official `langgraph_sdk` client (a thread, then
   `runs.wait`, `--concurrency` at a time). Per run: PostgreSQL transactions, statements and
   rows written (`pg_stat_database`, `pg_stat_statements`), WAL bytes, Redis commands and
   `PUBLISH`es (`INFO`), and the CPU of PostgreSQL, Redis and our processes. What the
   processes do while idle (polls once a second) is measured before and subtracted.

Run from the checkout (about three minutes):

    .venv/bin/python benchmarks/queue_sizing.py --json /tmp/sizing.json

Under root, PostgreSQL runs as `nobody` (see local_services.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
sys.path[:0] = [str(BENCH_DIR), str(ROOT)]  # `api_overhead`, and the tests' service launchers

import psycopg  # noqa: E402
import redis  # noqa: E402
from api_overhead import ServerProcess, base_env, free_port, make_client, progress  # noqa: E402
from proc_cpu import own_usage, tree_usage  # noqa: E402

from open_langgraph.runtime.queue_mode import run_queue  # noqa: E402
from open_langgraph.storage.postgres import PostgresStorage  # noqa: E402
from tests.fixtures.local_services import PostgresInstance, RedisServer  # noqa: E402

GRAPH_DIR = BENCH_DIR / "bench_graph"
#: Graph id -> (file, nodes a run executes); a run of either ends at count == nodes.
GRAPHS = {"bench": ("graph.py", 2), "chain": ("chain.py", 10)}
#: pg_stat_database's counters are flushed by each backend at most every second, an idle one's
#: within 10 s: a snapshot waits this long to see everything before it.
STATS_SETTLE_SECONDS = 11.0
DB_COUNTERS = (
    "xact_commit",
    "xact_rollback",
    "tup_inserted",
    "tup_updated",
    "tup_deleted",
    "tup_fetched",
)


# -- the services ---------------------------------------------------------------------------


@dataclass
class Services:
    postgres: PostgresInstance
    redis: RedisServer

    @property
    def postgres_pid(self) -> int:
        return int((self.postgres.data / "postmaster.pid").read_text().split()[0])

    @property
    def redis_pid(self) -> int:
        assert self.redis.process is not None
        return self.redis.process.pid

    def database_url(self, name: str) -> str:
        return f"postgresql://postgres@{self.postgres.host}:{self.postgres.port}/{name}"

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.postgres.url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)


def start_services(directory: Path) -> Services:
    postgres = PostgresInstance(
        directory,
        settings={
            # Commits wait for the disk, as in production (the fixture's default is off).
            "fsync": "on",
            "shared_preload_libraries": "pg_stat_statements",
        },
    )
    postgres.init()
    postgres.start()
    with psycopg.connect(postgres.url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION pg_stat_statements")
    redis_server = RedisServer(directory)
    redis_server.start()
    return Services(postgres, redis_server)


# -- 1. claims --------------------------------------------------------------------------------


@dataclass
class ClaimResult:
    claimers: int
    batch: int
    backlog: int
    claims: int
    seconds: float
    claims_per_second: float
    postgres_cpu_ms_per_claim: float
    client_cpu_ms_per_claim: float


QUEUE_RUNS = """
INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata,
                  kwargs, multitask_strategy, lease_expires_at)
SELECT %(prefix)s || g, %(thread)s || ((g - 1) / %(per_thread)s + 1), 'bench', now(), now(),
       %(status)s,
       '{}', '{}', 'enqueue', now() + interval '1 hour'
FROM generate_series(1, %(count)s) g
"""


async def _fill_queue(conn: Any, runs: int, backlog: int) -> None:
    """`backlog` runs queued ten per thread behind a running one (nothing of them claimable,
    but older, so a claim steps over them), then `runs` claimable runs, one per thread."""
    await conn.execute("TRUNCATE runs, run_events")
    busy_threads = (backlog + 9) // 10
    if backlog:
        params = {"thread": "busy-", "per_thread": 1, "status": "running"}
        await conn.execute(QUEUE_RUNS, {**params, "prefix": "head-", "count": busy_threads})
        params = {"thread": "busy-", "per_thread": 10, "status": "pending"}
        await conn.execute(QUEUE_RUNS, {**params, "prefix": "blocked-", "count": backlog})
    params = {"thread": "free-", "per_thread": 1, "status": "pending"}
    await conn.execute(QUEUE_RUNS, {**params, "prefix": "run-", "count": runs})
    await conn.execute("VACUUM ANALYZE runs")


async def measure_claims(
    services: Services, url: str, runs: int, claimers: int, batch: int, backlog: int
) -> ClaimResult:
    async with PostgresStorage.from_url(url) as storage:
        queue = run_queue(storage)
        async with storage.pool.connection() as conn:
            await _fill_queue(conn, runs, backlog)
        claimed = 0

        async def claimer(number: int) -> None:
            nonlocal claimed
            misses = 0
            # SKIP LOCKED may find nothing while others hold the last rows: stop only after
            # three empty claims in a row.
            while misses < 3:
                got = await queue.claim(f"bench:{number}", 3600.0, batch)
                claimed += len(got)
                misses = 0 if got else misses + 1

        postgres_before = tree_usage(services.postgres_pid).cpu_seconds
        client_before = own_usage(os.getpid()).cpu_seconds
        began = time.monotonic()
        await asyncio.gather(*(claimer(i) for i in range(claimers)))
        seconds = time.monotonic() - began
        postgres_cpu = tree_usage(services.postgres_pid).cpu_seconds - postgres_before
        client_cpu = own_usage(os.getpid()).cpu_seconds - client_before
    if claimed != runs:
        raise RuntimeError(f"claimed {claimed} of {runs} runs")
    return ClaimResult(
        claimers,
        batch,
        backlog,
        claimed,
        round(seconds, 3),
        round(claimed / seconds, 1),
        round(postgres_cpu * 1000 / claimed, 3),
        round(client_cpu * 1000 / claimed, 3),
    )


# -- 2. runs ----------------------------------------------------------------------------------


@dataclass
class RunCosts:
    graph: str
    nodes: int
    runs: int
    seconds: float
    runs_per_second: float
    per_run: dict[str, float] = field(default_factory=dict)
    idle_per_second: dict[str, float] = field(default_factory=dict)
    top_statements: list[dict[str, Any]] = field(default_factory=list)
    connections: int = 0


def _db_counters(services: Services, name: str) -> dict[str, float]:
    with psycopg.connect(services.postgres.url, autocommit=True) as db:
        row = db.execute(
            f"SELECT {', '.join(DB_COUNTERS)} FROM pg_stat_database WHERE datname = %s", (name,)
        ).fetchone()
    assert row is not None
    return dict(zip(DB_COUNTERS, map(float, row), strict=True))


def _instant(services: Services, name: str) -> dict[str, float]:
    """Counters that are exact at once: statements, WAL, Redis, CPU."""
    with psycopg.connect(services.postgres.url, autocommit=True) as db:
        statements = db.execute(
            "SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d "
            "ON d.oid = s.dbid WHERE d.datname = %s",
            (name,),
        ).fetchone()
        wal = db.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')").fetchone()
    client = redis.Redis.from_url(services.redis.url)
    stats = client.info("stats")
    commands = client.info("commandstats")
    client.close()
    return {
        "statements": float(statements[0]) if statements else 0.0,
        "wal_bytes": float(wal[0]) if wal else 0.0,
        "redis_commands": float(stats["total_commands_processed"]),
        "redis_publish": float(commands.get("cmdstat_publish", {}).get("calls", 0)),
        "redis_bytes_out": float(stats["total_net_output_bytes"]),
        "postgres_cpu_ms": tree_usage(services.postgres_pid).cpu_seconds * 1000,
        "redis_cpu_ms": tree_usage(services.redis_pid).cpu_seconds * 1000,
    }


def _ours(pid: int) -> dict[str, float]:
    """CPU of `olg serve --workers N`: its own process (the API) and its children."""
    api = own_usage(pid).cpu_seconds * 1000
    return {"api_cpu_ms": api, "workers_cpu_ms": tree_usage(pid).cpu_seconds * 1000 - api}


def _delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {key: after[key] - before[key] for key in after}


def _top_statements(services: Services, name: str, runs: int) -> list[dict[str, Any]]:
    with psycopg.connect(services.postgres.url, autocommit=True) as db:
        rows = db.execute(
            "SELECT regexp_replace(query, '\\s+', ' ', 'g'), calls, rows FROM pg_stat_statements s "
            "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = %s "
            "ORDER BY calls DESC LIMIT 40",
            (name,),
        ).fetchall()
    return [
        {
            "query": query[:120],
            "per_run": round(calls / runs, 2),
            "rows_per_run": round(n / runs, 2),
        }
        for query, calls, n in rows
    ]


async def _drive(url: str, graph: str, nodes: int, runs: int, concurrency: int) -> None:
    """`runs` runs, each a new thread then `runs.wait`, `concurrency` at a time."""
    client = make_client(url, 120.0)
    pending = iter(range(runs))

    async def one_client() -> None:
        for _ in pending:
            thread = await client.threads.create()
            result = await client.runs.wait(thread["thread_id"], graph, input={"count": 0})
            if not isinstance(result, dict) or result.get("count") != nodes:
                raise RuntimeError(f"wrong result: {result!r}")

    try:
        await asyncio.gather(*(one_client() for _ in range(concurrency)))
    finally:
        await client.http.client.aclose()


def measure_runs(
    services: Services, graph: str, args: argparse.Namespace, directory: Path
) -> RunCosts:
    nodes = GRAPHS[graph][1]
    name = f"runs_{graph}"
    url = services.create_database(name)
    config = directory / "sizing.json"
    config.write_text(
        json.dumps(
            {
                "dependencies": [str(GRAPH_DIR)],
                "graphs": {g: f"{GRAPH_DIR / file}:graph" for g, (file, _) in GRAPHS.items()},
            }
        )
    )
    port = free_port()
    argv = [sys.executable, "-m", "open_langgraph.cli", "serve", "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--config", str(config), "--database-url", url]
    argv += ["--redis-url", services.redis.url, "--workers", str(args.workers)]
    server = ServerProcess("ours", argv, ROOT, base_env(), port, directory)
    server.start()
    try:
        server.wait_healthy(180.0)
        assert server.proc is not None
        progress(f"{graph}: warm-up, then {STATS_SETTLE_SECONDS * 2:.0f} s idle")
        asyncio.run(_drive(server.url, graph, nodes, args.warmup, args.concurrency))
        time.sleep(STATS_SETTLE_SECONDS)
        idle_db = _db_counters(services, name)
        idle_instant = {**_instant(services, name), **_ours(server.proc.pid)}
        time.sleep(STATS_SETTLE_SECONDS)
        db_before = _db_counters(services, name)
        idle = {
            **_delta(db_before, idle_db),
            **_delta({**_instant(services, name), **_ours(server.proc.pid)}, idle_instant),
        }
        idle_per_second = {key: value / STATS_SETTLE_SECONDS for key, value in idle.items()}

        with psycopg.connect(services.postgres.url, autocommit=True) as db:
            db.execute("SELECT pg_stat_statements_reset()")
        instant_before = {**_instant(services, name), **_ours(server.proc.pid)}
        progress(f"{graph}: {args.runs} runs, {args.concurrency} at a time")
        began = time.monotonic()
        asyncio.run(_drive(server.url, graph, nodes, args.runs, args.concurrency))
        seconds = time.monotonic() - began
        window = _delta({**_instant(services, name), **_ours(server.proc.pid)}, instant_before)
        top = _top_statements(services, name, args.runs)
        with psycopg.connect(services.postgres.url, autocommit=True) as db:
            row = db.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
            ).fetchone()
        connections = int(row[0]) if row else 0
        time.sleep(STATS_SETTLE_SECONDS)
        window.update(_delta(_db_counters(services, name), db_before))
    finally:
        server.stop()
    per_run = {}
    for key, value in window.items():
        # The database counters cover the runs and the settling wait after them.
        span = seconds + STATS_SETTLE_SECONDS if key in DB_COUNTERS else seconds
        per_run[key] = round((value - idle_per_second.get(key, 0.0) * span) / args.runs, 3)
    return RunCosts(
        graph,
        nodes,
        args.runs,
        round(seconds, 2),
        round(args.runs / seconds, 1),
        per_run,
        {key: round(value, 2) for key, value in idle_per_second.items()},
        top,
        connections,
    )


# -- the report -------------------------------------------------------------------------------


def report(claims: list[ClaimResult], runs: list[RunCosts]) -> str:
    lines = ["claims (PostgresRunQueue.claim on a fresh database)"]
    lines.append("claimers  batch  backlog  claims/s  PostgreSQL CPU/claim  client CPU/claim")
    for c in claims:
        lines.append(
            f"{c.claimers:8d}  {c.batch:5d}  {c.backlog:7d}  {c.claims_per_second:8.0f}  "
            f"{c.postgres_cpu_ms_per_claim:17.3f} ms  {c.client_cpu_ms_per_claim:13.3f} ms"
        )
    for r in runs:
        lines.append("")
        lines.append(
            f"runs of `{r.graph}` ({r.nodes} nodes): {r.runs} in {r.seconds} s, "
            f"{r.runs_per_second} runs/s; {r.connections} PostgreSQL connections open"
        )
        for key, value in r.per_run.items():
            lines.append(f"  {key:18s} {value:12.3f} per run   (idle {r.idle_per_second[key]}/s)")
        lines.append("  statements per run, most called:")
        for statement in r.top_statements:
            lines.append(
                f"    {statement['per_run']:6.2f} x ({statement['rows_per_run']:6.2f} rows)  "
                f"{statement['query']}"
            )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--claims", type=int, default=3000, help="queued runs per claim test (without backlog)"
    )
    parser.add_argument("--claimers", default="1,4,8", help="concurrent claimers to try")
    parser.add_argument("--batch", default="1,8", help="runs per claim (a worker's free slots)")
    parser.add_argument("--backlog", default="0,1000,10000", help="runs queued on busy threads")
    parser.add_argument("--runs", type=int, default=400, help="measured runs per graph")
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8, help="clients at once")
    parser.add_argument("--workers", type=int, default=2, help="olg serve --workers")
    parser.add_argument("--graphs", default="bench,chain", help=f"of {', '.join(GRAPHS)}")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    return parser.parse_args(argv)


def _numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Not under a private temporary directory: PostgreSQL runs as `nobody` under root.
    directory = Path(tempfile.mkdtemp(prefix="olg-sizing-"))
    directory.chmod(0o755)
    services = start_services(directory)
    try:
        # Runs first: the claims leave tables for autovacuum, whose work would count as the
        # runs' idle background.
        runs = [measure_runs(services, graph, args, directory) for graph in args.graphs.split(",")]
        claims = []
        url = services.create_database("claims")
        for backlog in _numbers(args.backlog):
            for batch in _numbers(args.batch):
                # Behind a backlog every claim costs more: fewer of them keep each test short.
                count = max(200, args.claims * 1000 // (backlog + 1000))
                for claimers in _numbers(args.claimers):
                    progress(f"claims: {claimers} claimers, batch {batch}, backlog {backlog}")
                    claims.append(
                        asyncio.run(measure_claims(services, url, count, claimers, batch, backlog))
                    )
    finally:
        services.redis.kill()
        services.postgres.stop()
        shutil.rmtree(directory, ignore_errors=True)
    print(report(claims, runs))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "measured_at": time.strftime("%Y-%m-%d %H:%M"),
                    "cores": os.cpu_count(),
                    "load_average": os.getloadavg(),
                    "claims": [asdict(c) for c in claims],
                    "runs": [asdict(r) for r in runs],
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
