"""Server CPU per run: what each server's own processes spend on the same runs.

`api_overhead.py --cpu` runs this. Every server serves the benchmark's two-node graph
(bench_graph/) and gets the same work from the official `langgraph_sdk` client: `--runs` runs,
each a thread created then `runs.wait`, `--cpu-concurrency` at a time, after a warm-up. The CPU
seconds of the server's processes (the API process, its workers, and in PostgreSQL modes the
PostgreSQL server and Redis) are read from /proc before and after (proc_cpu.py), the client's
excluded, and divided by the runs. Two baselines run the same graph in one Python process with
no HTTP: LangGraph with `InMemorySaver`, and with `AsyncSqliteSaver`.

Modes: `ours-sqlite` (the default `olg serve`), `ours-postgres` (one process on PostgreSQL),
`ours-queue` (`--workers 2` on PostgreSQL + Redis), `ref` (`langgraph dev`, langgraph-api
0.16.7, in memory). PostgreSQL and Redis are shared with whatever else runs on the machine, so
their counters include that: run on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from api_overhead import (
    BENCH_DIR,
    GRAPH_ID,
    OURS_CONFIG,
    PostgresDatabase,
    ServerProcess,
    base_env,
    ensure_ref_venv,
    free_port,
    make_client,
    progress,
    ref_server,
)
from proc_cpu import TreeUsage, own_usage, tree_usage

MODES = ("ours-sqlite", "ours-postgres", "ours-queue", "ref")
BASELINES = ("langgraph-memory", "langgraph-sqlite")


@dataclass
class CpuResult:
    """One server's (or baseline's) cost of the measured runs."""

    mode: str
    runs: int
    wall_seconds: float
    cpu_ms_per_run: dict[str, float] = field(default_factory=dict)
    """Per component (`api`, `workers`, `postgres`, `redis`, `process`) and `total`."""
    startup_seconds: float | None = None
    rss_mb_after: float | None = None
    error: str | None = None


# -- the servers --------------------------------------------------------------------------------


def _olg_server(mode: str, olg: Path, tmp: Path, log_dir: Path, args: argparse.Namespace) -> Any:
    port = free_port()
    argv = [str(olg), "serve", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--config", str(OURS_CONFIG)]
    server = ServerProcess("ours", argv, BENCH_DIR.parent, base_env(), port, log_dir)
    if mode == "ours-sqlite":
        argv += ["--db", str(tmp / f"{mode}.db")]
        return server
    database = PostgresDatabase.fresh(args.postgres_url)
    argv += ["--database-url", database.url]
    if mode == "ours-queue":
        argv += ["--redis-url", args.redis_url, "--workers", str(args.workers)]
    server.on_stop = database.drop
    return server


def _postmaster_pid(admin_url: str) -> int | None:
    """The PostgreSQL server's main process (its backends are its children)."""
    import psycopg

    try:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            row = admin.execute("SHOW data_directory").fetchone()
        return int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
    except (psycopg.Error, OSError, ValueError, TypeError):
        return None


def _redis_pid(url: str) -> int | None:
    import redis

    try:
        return int(redis.Redis.from_url(url).info("server")["process_id"])
    except (redis.RedisError, KeyError, ValueError):
        return None


@dataclass
class Counted:
    """The processes whose CPU counts for one mode, by component."""

    api: int
    postgres: int | None = None
    redis: int | None = None

    def snapshot(self) -> dict[str, TreeUsage]:
        tree = tree_usage(self.api)
        own = own_usage(self.api)
        shot = {"api": own, "workers": TreeUsage(tree.cpu_seconds - own.cpu_seconds, 0)}
        shot["_tree"] = tree
        if self.postgres is not None:
            shot["postgres"] = tree_usage(self.postgres)
        if self.redis is not None:
            shot["redis"] = tree_usage(self.redis)
        return shot


# -- the work -----------------------------------------------------------------------------------


async def drive(url: str, runs: int, concurrency: int, timeout: float) -> None:
    """`runs` runs of the bench graph, `concurrency` at a time; any wrong result raises."""
    client = make_client(url, timeout)
    pending = iter(range(runs))

    async def one_client() -> None:
        for _ in pending:
            thread = await client.threads.create()
            result = await client.runs.wait(thread["thread_id"], GRAPH_ID, input={"count": 0})
            if not isinstance(result, dict) or result.get("count") != 2:
                raise RuntimeError(f"wrong result: {result!r}")

    try:
        await asyncio.gather(*(one_client() for _ in range(concurrency)))
    finally:
        await client.http.client.aclose()


def measure_server(mode: str, server: Any, counted_for: Any, args: argparse.Namespace) -> CpuResult:
    server.start()
    try:
        server.wait_healthy(args.startup_timeout)
        startup = time.monotonic() - server.started_at
        counted: Counted = counted_for(server.proc.pid)
        asyncio.run(drive(server.url, args.warmup_runs, args.cpu_concurrency, 120))
        before = counted.snapshot()
        began = time.monotonic()
        asyncio.run(drive(server.url, args.runs, args.cpu_concurrency, 120))
        wall = time.monotonic() - began
        after = counted.snapshot()
    finally:
        server.stop()
    per_run = {
        name: (after[name].cpu_seconds - before[name].cpu_seconds) * 1000 / args.runs
        for name in after
        if not name.startswith("_")
    }
    if mode != "ours-queue":
        per_run.pop("workers", None)
    per_run["total"] = sum(per_run.values())
    return CpuResult(
        mode,
        args.runs,
        wall,
        {k: round(v, 2) for k, v in per_run.items()},
        round(startup, 2),
        round(after["_tree"].rss_bytes / 2**20, 1),
    )


def run_mode(mode: str, args: argparse.Namespace, tmp: Path, log_dir: Path) -> CpuResult:
    progress(f"cpu: {mode}: {args.runs} runs, {args.cpu_concurrency} at a time")
    pg = _postmaster_pid(args.postgres_url) if mode in ("ours-postgres", "ours-queue") else None
    rd = _redis_pid(args.redis_url) if mode == "ours-queue" else None
    if mode == "ref":
        ensure_ref_venv(args.ref_venv)
        server = ref_server(args.ref_venv, log_dir)
    else:
        server = _olg_server(mode, args.olg, tmp, log_dir, args)
    try:
        return measure_server(mode, server, lambda pid: Counted(pid, pg, rd), args)
    except Exception as exc:
        progress(f"cpu: {mode} failed: {type(exc).__name__}: {exc}")
        return CpuResult(mode, args.runs, 0.0, error=f"{type(exc).__name__}: {exc}")


# -- side by side -------------------------------------------------------------------------------


async def _drive_each(urls: list[str], runs: int, concurrency: int) -> None:
    """The same runs to every server at once."""
    await asyncio.gather(*(drive(url, runs, concurrency, 300) for url in urls))


def run_side_by_side(args: argparse.Namespace, tmp: Path, log_dir: Path) -> int:
    """`--cpu --side-by-side`: `olg serve` (SQLite) and `langgraph dev` served at once and
    given the same runs at once, `--cpu-concurrency` at a time each.

    Measured in turn, one server's CPU per run drifts here by 10-30 % from one minute to the
    next (the VM's host), which moves the ratio between two servers as much; at once, the
    drift moves both alike. Their absolute figures are higher than in turn: two servers and
    the client share the cores."""
    ensure_ref_venv(args.ref_venv)
    servers = {
        "ours-sqlite": _olg_server("ours-sqlite", args.olg, tmp, log_dir, args),
        "ref": ref_server(args.ref_venv, log_dir),
    }
    progress(f"cpu: side by side: {args.runs} runs each, {args.cpu_concurrency} at a time each")
    try:
        for server in servers.values():
            server.start()
        for server in servers.values():
            server.wait_healthy(args.startup_timeout)
        urls = [server.url for server in servers.values()]
        asyncio.run(_drive_each(urls, args.warmup_runs, args.cpu_concurrency))
        before = {mode: own_usage(server.proc.pid) for mode, server in servers.items()}
        asyncio.run(_drive_each(urls, args.runs, args.cpu_concurrency))
        after = {mode: own_usage(server.proc.pid) for mode, server in servers.items()}
    finally:
        for server in servers.values():
            server.stop()
    per_run = {
        mode: (after[mode].cpu_seconds - before[mode].cpu_seconds) * 1000 / args.runs
        for mode in servers
    }
    print(
        f"side by side, {args.runs} runs each: ours-sqlite {per_run['ours-sqlite']:.2f} ms, "
        f"langgraph dev {per_run['ref']:.2f} ms per run: "
        f"{per_run['ours-sqlite'] / per_run['ref']:.3f}x"
    )
    return 0


# -- LangGraph alone ----------------------------------------------------------------------------


async def _baseline(kind: str, runs: int, warmup: int, concurrency: int, db: Path) -> dict:
    sys.path.insert(0, str(BENCH_DIR / "bench_graph"))
    from graph import builder  # the bench graph, uncompiled

    if kind == "langgraph-memory":
        from langgraph.checkpoint.memory import InMemorySaver

        return await _invoke_all(
            builder.compile(checkpointer=InMemorySaver()), runs, warmup, concurrency
        )
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        return await _invoke_all(builder.compile(checkpointer=saver), runs, warmup, concurrency)


async def _invoke_all(graph: Any, runs: int, warmup: int, concurrency: int) -> dict:
    async def batch(count: int) -> None:
        pending = iter(range(count))

        async def one() -> None:
            for _ in pending:
                config = {"configurable": {"thread_id": str(time.monotonic_ns())}}
                result = await graph.ainvoke({"count": 0}, config)
                assert result["count"] == 2

        await asyncio.gather(*(one() for _ in range(concurrency)))

    await batch(warmup)
    before = resource.getrusage(resource.RUSAGE_SELF)
    began = time.monotonic()
    await batch(runs)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu_seconds": cpu, "wall_seconds": wall, "rss_kb": after.ru_maxrss}


def run_baseline(kind: str, args: argparse.Namespace, tmp: Path) -> CpuResult:
    """In a process of its own, so its CPU is only the graph's and the saver's."""
    progress(f"cpu: {kind}: {args.runs} runs in one process, no HTTP")
    command = [sys.executable, __file__, "--baseline", kind, "--runs", str(args.runs)]
    command += [
        "--warmup-runs",
        str(args.warmup_runs),
        "--cpu-concurrency",
        str(args.cpu_concurrency),
    ]
    command += ["--db", str(tmp / f"{kind}.db")]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=BENCH_DIR)
    if done.returncode != 0:
        return CpuResult(kind, args.runs, 0.0, error=done.stderr.strip().splitlines()[-1:][0])
    measured = json.loads(done.stdout)
    per_run = round(measured["cpu_seconds"] * 1000 / args.runs, 2)
    return CpuResult(
        kind,
        args.runs,
        measured["wall_seconds"],
        {"process": per_run, "total": per_run},
        rss_mb_after=round(measured["rss_kb"] / 1024, 1),
    )


# -- report -------------------------------------------------------------------------------------


def format_cpu_table(results: list[CpuResult]) -> str:
    ref = next((r for r in results if r.mode == "ref" and r.error is None), None)
    lines = [
        "| mode | CPU ms per run (total) | by process | vs langgraph dev | runs/s | start-up "
        "| RSS after |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        if result.error is not None:
            lines.append(f"| {result.mode} | failed: {result.error} | | | | | |")
            continue
        total = result.cpu_ms_per_run["total"]
        parts = ", ".join(
            f"{name} {value:.2f}"
            for name, value in result.cpu_ms_per_run.items()
            if name != "total"
        )
        ratio = f"{total / ref.cpu_ms_per_run['total']:.2f}x" if ref else "-"
        rate = f"{result.runs / result.wall_seconds:.0f}" if result.wall_seconds else "-"
        start = f"{result.startup_seconds:.2f} s" if result.startup_seconds is not None else "-"
        rss = f"{result.rss_mb_after:.0f} MB" if result.rss_mb_after is not None else "-"
        lines.append(
            f"| {result.mode} | {total:.2f} | {parts} | {ratio} | {rate} | {start} | {rss} |"
        )
    return "\n".join(lines)


def add_cpu_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cpu", action="store_true", help="measure server CPU per run instead (server_cpu.py)"
    )
    parser.add_argument("--runs", type=int, default=400, help="--cpu: measured runs per mode")
    parser.add_argument("--warmup-runs", type=int, default=40, help="--cpu: unmeasured runs first")
    parser.add_argument("--cpu-concurrency", type=int, default=4, help="--cpu: runs at a time")
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="--cpu: `olg serve` (SQLite) and `langgraph dev` at the same time, their ratio",
    )
    parser.add_argument(
        "--modes",
        default=",".join((*BASELINES, *MODES)),
        help=f"--cpu: comma-separated, from {', '.join((*BASELINES, *MODES))}",
    )


def run_cpu(args: argparse.Namespace) -> int:
    """`api_overhead.py --cpu`: every chosen mode in turn, then the table (and `--json`)."""
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(modes) - set(MODES) - set(BASELINES))
    if unknown:
        print(f"server_cpu: unknown modes {unknown}", file=sys.stderr)
        return 2
    results: list[CpuResult] = []
    with tempfile.TemporaryDirectory(prefix="olg-cpu-") as name:
        tmp = Path(name)
        log_dir = (args.log_dir or tmp).absolute()
        log_dir.mkdir(parents=True, exist_ok=True)
        if args.side_by_side:
            return run_side_by_side(args, tmp, log_dir)
        for mode in modes:
            if mode in BASELINES:
                results.append(run_baseline(mode, args, tmp))
            else:
                results.append(run_mode(mode, args, tmp, log_dir))
    table = format_cpu_table(results)
    print(table)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2))
    return 1 if any(r.error for r in results) else 0


def _baseline_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", choices=BASELINES, required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--warmup-runs", type=int, required=True)
    parser.add_argument("--cpu-concurrency", type=int, required=True)
    parser.add_argument("--db", type=Path, required=True)
    args = parser.parse_args(argv)
    measured = asyncio.run(
        _baseline(args.baseline, args.runs, args.warmup_runs, args.cpu_concurrency, args.db)
    )
    print(json.dumps(measured))
    return 0


if __name__ == "__main__":
    sys.exit(_baseline_main(sys.argv[1:]))
