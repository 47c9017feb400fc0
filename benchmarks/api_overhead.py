"""Compare the API overhead of Open LangGraph (`olg serve`) with the reference `langgraph dev`.

Both servers serve the same trivial two-node graph, so whatever time a run takes is the server's
own cost: HTTP handling, run creation, queueing, checkpointing and streaming. Both run side by
side on free loopback ports and are driven, one after the other, by the official async
`langgraph_sdk` client, because that client is what users of either server call.

Run it with the project's virtualenv, for example::

    .venv/bin/python benchmarks/api_overhead.py --iterations 200 --duration 10 --json out.json

The reference server lives in its own virtualenv (created on first use) so that its pinned
dependencies never mix with the project's. See benchmarks/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Literal

import httpx
from aegra_target import (
    AEGRA_REQUIREMENTS,
    DEFAULT_AEGRA_VENV,
    DEFAULT_POSTGRES_URL,
    DEFAULT_REDIS_URL,
    AegraDeployment,
    ensure_aegra_venv,
)
from aegra_target import HEALTH_PATH as AEGRA_HEALTH_PATH
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

BENCH_DIR = Path(__file__).resolve().parent
GRAPH_DIR = BENCH_DIR / "bench_graph"
OURS_CONFIG = GRAPH_DIR / "open_langgraph.json"
# `langgraph dev` keeps its in-memory state here between restarts; we wipe it so that every run
# starts from an empty server, as ours does with its fresh database.
REF_STATE_DIR = GRAPH_DIR / ".langgraph_api"
DEFAULT_REF_VENV = BENCH_DIR / ".ref-venv"
# `--auth` serves ours a second time with this API-key example, so auth's cost can be read off.
AUTH_EXAMPLE = BENCH_DIR.parent / "examples" / "auth" / "api_key_auth.py"
AUTH_IDENTITY = "bench"
REF_REQUIREMENTS = ("langgraph-cli[inmem]==0.4.40", "langgraph-api==0.16.7")
# Written into the reference venv after a successful install, so a changed pin reinstalls.
REF_MARKER = ".bench-requirements"

GRAPH_ID = "bench"
RUN_INPUT: dict[str, Any] = {"count": 0}
EXPECTED_COUNT = 2
HOST = "127.0.0.1"
MAX_ERROR_EXAMPLES = 5
# A pause after a failed request so a broken server is not hammered in a tight loop.
ERROR_BACKOFF_S = 0.05
# `--auth`'s interleaved threads.get phase: pairs per `--iterations` (cheap requests, so many).
PAIRS_PER_ITERATION = 5

ServerKey = Literal["ours", "auth", "ref", "aegra"]
RowKind = Literal["latency", "throughput", "count"]
SERVER_LABELS: dict[ServerKey, str] = {
    "ours": "ours",
    "auth": "ours + API-key auth",
    "ref": "langgraph dev",
    "aegra": "aegra (Redis + PostgreSQL)",
}


# --------------------------------------------------------------------------------------------
# Progress output
# --------------------------------------------------------------------------------------------


def progress(message: str) -> None:
    """Report what is running on stderr, so stdout holds only the final table."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), or None when nothing succeeded."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def to_ms(seconds: float | None) -> float | None:
    """Seconds to milliseconds, keeping None for 'no data'."""
    return None if seconds is None else round(seconds * 1000.0, 3)


@dataclass
class Sample:
    """Latencies of successful operations plus a count of failed ones.

    Failures are kept apart so a fast error never flatters the latency figures.
    """

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)

    def add(self, seconds: float) -> None:
        self.latencies.append(seconds)

    def fail(self, exc: BaseException) -> None:
        self.errors += 1
        if len(self.error_examples) < MAX_ERROR_EXAMPLES:
            self.error_examples.append(f"{type(exc).__name__}: {exc}"[:300])


@dataclass
class LatencySummary:
    """What the report and the JSON file say about one latency phase."""

    count: int
    errors: int
    p50_ms: float | None
    p95_ms: float | None
    mean_ms: float | None
    min_ms: float | None
    max_ms: float | None
    error_examples: list[str]


def summarize(sample: Sample) -> LatencySummary:
    """Reduce a sample to the figures we report."""
    values = sample.latencies
    return LatencySummary(
        count=len(values),
        errors=sample.errors,
        p50_ms=to_ms(percentile(values, 50)),
        p95_ms=to_ms(percentile(values, 95)),
        mean_ms=to_ms(sum(values) / len(values) if values else None),
        min_ms=to_ms(min(values) if values else None),
        max_ms=to_ms(max(values) if values else None),
        error_examples=sample.error_examples,
    )


@dataclass
class ThroughputSummary:
    """Completed correct runs per second under concurrent load, and their latency."""

    workers: int
    duration_s: float
    elapsed_s: float
    runs_per_s: float
    latency: LatencySummary


# --------------------------------------------------------------------------------------------
# One benchmark operation
# --------------------------------------------------------------------------------------------


class WrongResultError(Exception):
    """A run finished but did not produce count == 2; counted as an error, like a failure."""


def check_result(result: Any) -> None:
    """Raise unless the run's final state is the one the graph must produce."""
    if not isinstance(result, dict) or result.get("count") != EXPECTED_COUNT:
        raise WrongResultError(f"expected count == {EXPECTED_COUNT}, got {result!r}"[:300])


async def wait_run(client: LangGraphClient) -> float:
    """One thread create + `runs.wait`, timed together because a real caller pays for both."""
    start = time.perf_counter()
    thread = await client.threads.create()
    result = await client.runs.wait(thread["thread_id"], GRAPH_ID, input=RUN_INPUT)
    elapsed = time.perf_counter() - start
    check_result(result)
    return elapsed


async def stream_first_event(client: LangGraphClient) -> float:
    """Time from `runs.stream` to its first chunk; the thread is created outside the timing.

    The whole stream is still consumed and its last `values` event checked, so a stream that
    starts fast but ends wrong counts as an error.
    """
    thread = await client.threads.create()
    start = time.perf_counter()
    first: float | None = None
    final: Any = None
    stream = client.runs.stream(
        thread["thread_id"], GRAPH_ID, input=RUN_INPUT, stream_mode="values"
    )
    async for chunk in stream:
        if first is None:
            first = time.perf_counter() - start
        if chunk.event == "error":
            raise RuntimeError(f"error event: {chunk.data!r}"[:300])
        if chunk.event == "values":
            final = chunk.data
    if first is None:
        raise RuntimeError("stream ended without any event")
    check_result(final)
    return first


class IncompleteStreamError(Exception):
    """A stream missed events: no `metadata` first, or not every state and node update."""


#: What one run of the bench graph streams in `values` + `updates` mode, in order.
EXPECTED_VALUES = [0, 1, 2]
EXPECTED_UPDATES = ["a", "b"]


async def complete_stream(client: LangGraphClient) -> float:
    """Thread create + one `runs.stream` read to its end, timed together; the stream must
    carry every event the run produced, in order, or it counts as an error. This is what a
    chat front end does, so lost or repeated events under load show up here."""
    start = time.perf_counter()
    thread = await client.threads.create()
    events: list[str] = []
    values: list[Any] = []
    updates: list[str] = []
    async for chunk in client.runs.stream(
        thread["thread_id"], GRAPH_ID, input=RUN_INPUT, stream_mode=["values", "updates"]
    ):
        events.append(chunk.event)
        if chunk.event == "error":
            raise RuntimeError(f"error event: {chunk.data!r}"[:300])
        if chunk.event == "values" and isinstance(chunk.data, dict):
            values.append(chunk.data.get("count"))
        if chunk.event == "updates" and isinstance(chunk.data, dict):
            updates.extend(chunk.data)
    elapsed = time.perf_counter() - start
    if not events or events[0] != "metadata":
        raise IncompleteStreamError(f"first event {events[:1]!r}, expected metadata")
    if values != EXPECTED_VALUES or updates != EXPECTED_UPDATES:
        raise IncompleteStreamError(f"values {values!r}, updates {updates!r}"[:300])
    return elapsed


async def record(sample: Sample, operation: Awaitable[float], timeout: float) -> None:
    """Run one timed operation under a deadline and file its outcome in `sample`."""
    try:
        seconds = await asyncio.wait_for(operation, timeout)
    except Exception as exc:  # any failure is a data point, not a reason to stop measuring
        sample.fail(exc)
        await asyncio.sleep(ERROR_BACKOFF_S)
    else:
        sample.add(seconds)


# --------------------------------------------------------------------------------------------
# Benchmark phases
# --------------------------------------------------------------------------------------------


def make_client(url: str, timeout: float, api_key: str | None = None) -> LangGraphClient:
    """An SDK client for `url`. `api_key` (the `--auth` server's key) goes out as `x-api-key`;
    None sends no key, not even one from the environment."""
    return get_client(url=url, api_key=api_key, timeout=timeout)


async def repeat(
    label: str,
    iterations: int,
    operation: Callable[[], Awaitable[float]],
    timeout: float,
) -> Sample:
    """Run `operation` sequentially a fixed number of times, reporting progress every 10%."""
    sample = Sample()
    step = max(1, iterations // 10)
    for index in range(1, iterations + 1):
        await record(sample, operation(), timeout)
        if index % step == 0 or index == iterations:
            progress(f"{label}: {index}/{iterations} done, {sample.errors} errors")
    return sample


Operation = Callable[[LangGraphClient], Awaitable[float]]


async def throughput_worker(
    url: str,
    api_key: str | None,
    deadline: float,
    sample: Sample,
    timeout: float,
    operation: Operation,
) -> None:
    """One concurrent client repeating `operation` until the deadline; its own client,
    its own pool."""
    client = make_client(url, timeout, api_key)
    try:
        while time.perf_counter() < deadline:
            await record(sample, operation(client), timeout)
    finally:
        await client.aclose()


async def measure_throughput(
    url: str,
    api_key: str | None,
    workers: int,
    duration: float,
    timeout: float,
    operation: Operation = wait_run,
) -> ThroughputSummary:
    """Keep `workers` clients busy for `duration` seconds and count correct runs per second.

    Runs in flight at the deadline are allowed to finish and the elapsed time includes them,
    so the rate is never inflated by work that was started but not paid for.
    """
    sample = Sample()
    start = time.perf_counter()
    deadline = start + duration
    tasks = [
        throughput_worker(url, api_key, deadline, sample, timeout, operation)
        for _ in range(workers)
    ]
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    return ThroughputSummary(
        workers=workers,
        duration_s=duration,
        elapsed_s=round(elapsed, 3),
        runs_per_s=round(len(sample.latencies) / elapsed, 3),
        latency=summarize(sample),
    )


@dataclass
class Measurements:
    """Everything measured against one healthy server."""

    warmup_errors: int
    wait: LatencySummary
    stream_first_event: LatencySummary
    throughput: ThroughputSummary
    streams: ThroughputSummary | None = None
    """Concurrent complete streams (`--stream-concurrency` clients); None when skipped."""


async def measure_server(
    label: str, url: str, args: argparse.Namespace, api_key: str | None = None
) -> Measurements:
    """Warm up, then run the three phases in order against one server."""
    client = make_client(url, args.request_timeout, api_key)
    try:
        progress(f"{label}: warm-up ({args.warmup} runs.wait + {args.warmup} streams)")
        timeout = args.request_timeout
        warm = await repeat(f"{label} warm-up wait", args.warmup, lambda: wait_run(client), timeout)
        warm_stream = await repeat(
            f"{label} warm-up stream", args.warmup, lambda: stream_first_event(client), timeout
        )
        progress(f"{label}: sequential runs.wait x{args.iterations}")
        wait = await repeat(
            f"{label} runs.wait", args.iterations, lambda: wait_run(client), args.request_timeout
        )
        progress(f"{label}: stream time-to-first-event x{args.iterations}")
        stream = await repeat(
            f"{label} stream",
            args.iterations,
            lambda: stream_first_event(client),
            args.request_timeout,
        )
    finally:
        await client.aclose()
    progress(f"{label}: throughput, {args.concurrency} clients for {args.duration:g}s")
    throughput = await measure_throughput(
        url, api_key, args.concurrency, args.duration, args.request_timeout
    )
    progress(f"{label}: {throughput.runs_per_s:.1f} runs/s, {throughput.latency.errors} errors")
    streams = None
    if args.stream_concurrency > 0:
        progress(
            f"{label}: concurrent streams, {args.stream_concurrency} clients for {args.duration:g}s"
        )
        streams = await measure_throughput(
            url,
            api_key,
            args.stream_concurrency,
            args.duration,
            args.request_timeout,
            complete_stream,
        )
        progress(
            f"{label}: {streams.runs_per_s:.1f} complete streams/s, {streams.latency.errors} errors"
        )
    return Measurements(
        warmup_errors=warm.errors + warm_stream.errors,
        wait=summarize(wait),
        stream_first_event=summarize(stream),
        throughput=throughput,
        streams=streams,
    )


@dataclass
class PairedSummary:
    """One cheap request sent alternately to ours and to ours with auth.

    Alternating cancels the drift (other load, CPU frequency) that separate phases minutes
    apart would pick up, so the p50 of the per-pair difference is what auth adds to a request.
    """

    request: str
    pairs: int
    ours: LatencySummary
    auth: LatencySummary
    difference_p50_ms: float | None
    difference_p95_ms: float | None


async def timed_get(client: LangGraphClient, thread_id: str) -> float:
    """One `threads.get`: authentication plus the owner filter, and no run to drown them."""
    start = time.perf_counter()
    await client.threads.get(thread_id)
    return time.perf_counter() - start


async def measure_auth_overhead(
    ours_url: str, auth_url: str, api_key: str | None, args: argparse.Namespace
) -> PairedSummary:
    """`threads.get` on each server in turn (which goes first alternates), pair after pair."""
    pairs = args.iterations * PAIRS_PER_ITERATION
    plain = make_client(ours_url, args.request_timeout)
    authed = make_client(auth_url, args.request_timeout, api_key)
    samples = {"ours": Sample(), "auth": Sample()}
    differences: list[float] = []
    try:
        targets = {
            "ours": (plain, (await plain.threads.create())["thread_id"]),
            "auth": (authed, (await authed.threads.create())["thread_id"]),
        }
        for _ in range(args.warmup):
            for client, thread_id in targets.values():
                await record(Sample(), timed_get(client, thread_id), args.request_timeout)
        progress(f"auth overhead: threads.get alternately on both servers, {pairs} pairs")
        for index in range(pairs):
            order = ["ours", "auth"] if index % 2 == 0 else ["auth", "ours"]
            seconds: dict[str, float] = {}
            for key in order:
                client, thread_id = targets[key]
                sample = samples[key]
                before = len(sample.latencies)
                await record(sample, timed_get(client, thread_id), args.request_timeout)
                if len(sample.latencies) > before:
                    seconds[key] = sample.latencies[-1]
            if len(seconds) == 2:
                differences.append(seconds["auth"] - seconds["ours"])
    finally:
        await plain.aclose()
        await authed.aclose()
    return PairedSummary(
        request="threads.get",
        pairs=pairs,
        ours=summarize(samples["ours"]),
        auth=summarize(samples["auth"]),
        difference_p50_ms=to_ms(percentile(differences, 50)),
        difference_p95_ms=to_ms(percentile(differences, 95)),
    )


# --------------------------------------------------------------------------------------------
# Server processes
# --------------------------------------------------------------------------------------------


_PORTS_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """Ask the kernel for an unused loopback port; port 2024 is often taken, so never assume.

    Ports already given to the other server are skipped, since both are picked before either
    binds its port.
    """
    for _ in range(20):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if port not in _PORTS_HANDED_OUT:
            _PORTS_HANDED_OUT.add(port)
            return port
    raise RuntimeError("could not find a free loopback port")


def tail(path: Path, lines: int = 30) -> str:
    """The end of a log file, for explaining why a server did not come up."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class ServerStartError(Exception):
    """The server could not be started or never answered its health check."""


@dataclass
class ServerProcess:
    """One server under test, started in its own process group so it can be stopped whole."""

    key: ServerKey
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    port: int
    log_dir: Path
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    # The key every benchmark request to this server carries (only the `--auth` server has one).
    client_api_key: str | None = None
    # Aegra has no GET /ok, so its health check asks another path.
    health_path: str = "/ok"
    # Called once the process is gone, to remove what the server needed outside of it (Aegra's
    # database and Redis keys); it must report its own failures rather than raise.
    on_stop: Callable[[], None] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def stdout_path(self) -> Path:
        return self.log_dir / f"{self.key}.stdout.log"

    @property
    def stderr_path(self) -> Path:
        return self.log_dir / f"{self.key}.stderr.log"

    def start(self) -> None:
        """Launch without waiting; a missing executable becomes a start error, not a crash."""
        progress(f"{self.key}: starting {' '.join(self.argv)} (cwd {self.cwd})")
        self.started_at = time.monotonic()
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            try:
                self.proc = subprocess.Popen(
                    self.argv,
                    cwd=self.cwd,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,  # Ctrl-C reaches us only; we stop it in order
                )
            except OSError as exc:
                raise ServerStartError(f"cannot run {self.argv[0]}: {exc}") from exc

    def wait_healthy(self, timeout: float) -> None:
        """Poll GET /ok (or `health_path`) until 200, the process exits, or `timeout` passes."""
        deadline = self.started_at + timeout
        with httpx.Client(trust_env=False, timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    code = None if self.proc is None else self.proc.returncode
                    raise ServerStartError(f"exited with code {code} before becoming healthy")
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(f"{self.url}{self.health_path}").status_code == 200:
                        progress(f"{self.key}: healthy at {self.url}")
                        return
                time.sleep(0.25)
        raise ServerStartError(f"GET {self.health_path} did not return 200 within {timeout:g}s")

    def failure_log(self) -> str:
        """The server's stderr (or stdout if stderr is empty), to show why it failed."""
        return tail(self.stderr_path) or tail(self.stdout_path)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the process, then run `on_stop` whether or not the process had started."""
        try:
            self.terminate(grace)
        finally:
            if self.on_stop is not None:
                self.on_stop()

    def terminate(self, grace: float) -> None:
        """SIGTERM the process group, then SIGKILL it if it is still there after `grace`."""
        if self.proc is None:
            return
        pgid = self.proc.pid  # its own session, so the group id is its pid
        if self.proc.poll() is None:
            progress(f"{self.key}: stopping (pid {pgid})")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                progress(f"{self.key}: did not stop within {grace:g}s, killing")
        # Kill whatever is left of the group, e.g. workers that outlived their parent.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


def base_env() -> dict[str, str]:
    """The servers' environment: ours, minus anything that would make them call out."""
    env = dict(os.environ)
    env.update(
        {
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.pop("VIRTUAL_ENV", None)
    return env


def ours_server(
    olg: Path, tmp: Path, log_dir: Path, args: argparse.Namespace | None = None
) -> ServerProcess:
    """`olg serve` with a fresh SQLite database in the temporary directory, or, with
    `--backend postgres`, in queue mode on a fresh PostgreSQL database (dropped on stop) and
    Redis, with `--workers` worker processes."""
    port = free_port()
    argv = [str(olg), "serve", "--host", HOST, "--port", str(port), "--config", str(OURS_CONFIG)]
    if args is None or args.backend == "sqlite":
        argv += ["--db", str(tmp / "olg.db")]
        return ServerProcess("ours", argv, BENCH_DIR.parent, base_env(), port, log_dir)
    database = PostgresDatabase.fresh(args.postgres_url)
    argv += ["--database-url", database.url, "--redis-url", args.redis_url]
    argv += ["--workers", str(args.workers)]
    server = ServerProcess("ours", argv, BENCH_DIR.parent, base_env(), port, log_dir)
    server.on_stop = database.drop
    return server


@dataclass
class PostgresDatabase:
    """A database of our server's own for one benchmark run (its Redis channels are named
    after it, so nothing is shared with other servers on the same Redis)."""

    admin_url: str
    name: str

    @classmethod
    def fresh(cls, admin_url: str) -> PostgresDatabase:
        import psycopg

        database = cls(admin_url, f"olg_bench_{secrets.token_hex(6)}")
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{database.name}"')
        return database

    @property
    def url(self) -> str:
        import psycopg

        info = psycopg.conninfo.conninfo_to_dict(self.admin_url)
        info["dbname"] = self.name
        return "postgresql://{user}@{host}:{port}/{dbname}".format(
            user=info.get("user", "postgres"),
            host=info.get("host", HOST),
            port=info.get("port", 5432),
            dbname=self.name,
        )

    def drop(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.admin_url, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        except psycopg.Error as exc:
            progress(f"ours: could not drop database {self.name}: {exc}")


def auth_server(olg: Path, tmp: Path, log_dir: Path) -> ServerProcess:
    """`olg serve` on the same graph with examples/auth/api_key_auth.py and its own database.

    The key is random per run; the server reads it from OLG_API_KEYS, the client sends it as
    `x-api-key`. The config is ours with absolute paths, written to the temporary directory.
    """
    port = free_port()
    key = secrets.token_hex(32)
    base = json.loads(OURS_CONFIG.read_text(encoding="utf-8"))
    config = {
        **base,
        "dependencies": [str((GRAPH_DIR / d).resolve()) for d in base["dependencies"]],
        "graphs": {graph: str(GRAPH_DIR / spec) for graph, spec in base["graphs"].items()},
        "auth": {"path": f"{AUTH_EXAMPLE}:auth"},
    }
    config_path = tmp / "open_langgraph.auth.json"
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    argv = [str(olg), "serve", "--host", HOST, "--port", str(port)]
    argv += ["--config", str(config_path), "--db", str(tmp / "olg-auth.db")]
    env = base_env()
    env["OLG_API_KEYS"] = f"{AUTH_IDENTITY}:{key}"
    env.pop("OLG_ADMIN_USERS", None)
    server = ServerProcess("auth", argv, BENCH_DIR.parent, env, port, log_dir)
    server.client_api_key = key
    return server


def ref_server(ref_venv: Path, log_dir: Path) -> ServerProcess:
    """`langgraph dev` from its own virtualenv, run in a fresh copy of the graph folder.

    `langgraph dev` keeps its in-memory threads and runs in `.langgraph_api/` of the folder it
    serves and loads them back when it starts: run in the graph folder itself, each invocation
    started with every earlier invocation's runs, and its CPU per run grew from 14 to 45 ms
    over seven invocations. --no-reload because it would otherwise watch the folder; our logs
    go to `log_dir`.
    """
    port = free_port()
    argv = [str(ref_venv / "bin" / "langgraph"), "dev", "--no-browser", "--no-reload"]
    argv += ["--host", HOST, "--port", str(port)]
    workdir = Path(tempfile.mkdtemp(prefix="olg-ref-graph-"))
    shutil.copytree(
        GRAPH_DIR,
        workdir,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(".langgraph_api", "__pycache__"),
    )
    server = ServerProcess("ref", argv, workdir, base_env(), port, log_dir)
    server.on_stop = lambda: shutil.rmtree(workdir, ignore_errors=True)
    return server


def aegra_server(args: argparse.Namespace, tmp: Path, log_dir: Path) -> ServerProcess:
    """Aegra in its Redis + PostgreSQL mode, installed on first use, with a fresh database.

    The database is created last, once nothing else can fail, and dropped (with the run's Redis
    keys) by the server's `on_stop`, which `servers_running` always calls.
    """
    venv = args.aegra_venv.absolute()
    ensure_aegra_venv(venv, args.aegra_python)
    deployment = AegraDeployment.fresh(venv, args.aegra_postgres_url, args.aegra_redis_url)
    port = free_port()
    env = deployment.env(base_env(), deployment.write_config(tmp), HOST, port)
    server = ServerProcess("aegra", deployment.argv(HOST, port), tmp, env, port, log_dir)
    server.health_path = AEGRA_HEALTH_PATH
    deployment.create_database()
    server.on_stop = deployment.cleanup
    return server


# --------------------------------------------------------------------------------------------
# Reference virtualenv
# --------------------------------------------------------------------------------------------


def ref_venv_ready(venv: Path) -> bool:
    """True when the venv exists and was installed with exactly the pinned requirements."""
    marker = venv / REF_MARKER
    langgraph = venv / "bin" / "langgraph"
    if not (langgraph.exists() and marker.exists()):
        return False
    return marker.read_text(encoding="utf-8").split() == list(REF_REQUIREMENTS)


def run_logged(argv: list[str], log: Path, timeout: float) -> None:
    """Run an install step, its output appended to `log`; on failure show the log's end."""
    with log.open("ab") as out:
        try:
            subprocess.run(argv, stdout=out, stderr=out, timeout=timeout, check=True)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            raise SystemExit(f"install step failed: {exc}\n--- {log} ---\n{tail(log)}") from exc


def ensure_ref_venv(venv: Path) -> None:
    """Create the reference server's own virtualenv once, so its pins never touch the project."""
    if ref_venv_ready(venv):
        return
    python3 = shutil.which("python3") or sys.executable
    progress(
        f"installing the reference server into {venv} ({', '.join(REF_REQUIREMENTS)}); "
        "this happens once and takes a minute or two..."
    )
    # The log lives inside the venv (created empty first, which `venv` accepts) so that
    # nothing but the venv itself is left in the benchmarks folder.
    venv.mkdir(parents=True, exist_ok=True)
    log = venv / "bench-install.log"
    log.write_text("", encoding="utf-8")
    if not (venv / "bin" / "python").exists():
        run_logged([python3, "-m", "venv", str(venv)], log, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    run_logged([*pip, *REF_REQUIREMENTS], log, timeout=1200)
    (venv / REF_MARKER).write_text("\n".join(REF_REQUIREMENTS) + "\n", encoding="utf-8")
    progress(f"reference server installed (pip log: {log})")


def clear_ref_state() -> None:
    """Drop `langgraph dev`'s saved in-memory state so each benchmark starts empty."""
    shutil.rmtree(REF_STATE_DIR, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Results and report
# --------------------------------------------------------------------------------------------


@dataclass
class ServerResult:
    """The outcome for one server: its figures, or why there are none."""

    key: ServerKey
    label: str
    command: list[str]
    url: str | None = None
    status: Literal["ok", "failed", "skipped"] = "skipped"
    error: str | None = None
    server_log: str | None = None
    measurements: Measurements | None = None

    def total_errors(self) -> int | None:
        m = self.measurements
        if m is None:
            return None
        streamed = m.streams.latency.errors if m.streams is not None else 0
        return m.wait.errors + m.stream_first_event.errors + m.throughput.latency.errors + streamed


@dataclass
class Row:
    """One line of the table; `kind` decides which way the ratio is taken."""

    metric: str
    ours: float | None
    ref: float | None
    kind: RowKind
    unit: str
    aegra: float | None = None

    def ratio(self) -> float | None:
        """ref/ours for latencies and ours/ref for throughput, so > 1 always favours ours."""
        return self.ratio_to(self.ref)

    def ratio_to(self, other: float | None) -> float | None:
        """other/ours for latencies and ours/other for throughput (> 1 favours ours)."""
        if self.kind == "count" or not self.ours or not other:
            return None
        return other / self.ours if self.kind == "latency" else self.ours / other


def pick(result: ServerResult | None, getter: Callable[[Measurements], float | None]) -> Any:
    """A figure from a result, or None when that server has no measurements."""
    if result is None or result.measurements is None:
        return None
    return getter(result.measurements)


METRICS: list[tuple[str, Callable[[Measurements], float | None], RowKind, str]] = [
    ("runs.wait p50 (incl. thread create)", lambda m: m.wait.p50_ms, "latency", "ms"),
    ("runs.wait p95 (incl. thread create)", lambda m: m.wait.p95_ms, "latency", "ms"),
    ("stream first event p50", lambda m: m.stream_first_event.p50_ms, "latency", "ms"),
    ("stream first event p95", lambda m: m.stream_first_event.p95_ms, "latency", "ms"),
    ("throughput", lambda m: m.throughput.runs_per_s, "throughput", "runs/s"),
    ("throughput run latency p95", lambda m: m.throughput.latency.p95_ms, "latency", "ms"),
    (
        "concurrent streams",
        lambda m: m.streams.runs_per_s if m.streams is not None else None,
        "throughput",
        "streams/s",
    ),
    (
        "concurrent stream latency p95",
        lambda m: m.streams.latency.p95_ms if m.streams is not None else None,
        "latency",
        "ms",
    ),
]


def build_rows(
    ours: ServerResult | None, ref: ServerResult | None, aegra: ServerResult | None = None
) -> list[Row]:
    """The comparison table's rows, in reading order; `ref` may be the `--auth` server."""
    rows = [
        Row(name, pick(ours, get), pick(ref, get), kind, unit, pick(aegra, get))
        for name, get, kind, unit in METRICS
    ]
    errors = [None if r is None else r.total_errors() for r in (ours, ref, aegra)]
    rows.append(
        Row("errors (wrong result or failure)", errors[0], errors[1], "count", "", errors[2])
    )
    return rows


def cell(value: float | None, unit: str, result: ServerResult | None) -> str:
    """One table cell: the figure, or why it is missing."""
    if result is None:
        return "-"
    if result.status == "failed":
        return "failed"
    if value is None:
        return "n/a"
    if unit == "":
        return str(int(value))
    return f"{value:,.1f} {unit}"


def format_ratio(ratio: float | None) -> str:
    """A ratio cell: 'ours is N times better' when above 1."""
    return "-" if ratio is None else f"{ratio:.2f}x"


def format_table(
    rows: list[Row],
    ours: ServerResult | None,
    ref: ServerResult | None,
    aegra: ServerResult | None = None,
) -> str:
    """A plain-text table that reads well in a terminal and in a CI log; Aegra's two columns
    only appear when it was benchmarked."""
    lines = [("metric", "ours", "langgraph dev", "ratio")]
    if aegra is not None:
        lines[0] += ("aegra", "ratio vs aegra")
    for row in rows:
        line: tuple[str, ...] = (
            row.metric,
            cell(row.ours, row.unit, ours),
            cell(row.ref, row.unit, ref),
            format_ratio(row.ratio()),
        )
        if aegra is not None:
            line += (cell(row.aegra, row.unit, aegra), format_ratio(row.ratio_to(row.aegra)))
        lines.append(line)
    return render(lines)


def signed(value: float | None, unit: str) -> str:
    """A difference with its sign, so 'auth adds' reads the right way round."""
    return "n/a" if value is None else f"{value:+,.2f} {unit}".rstrip()


def format_auth_table(ours: ServerResult, auth: ServerResult, paired: PairedSummary | None) -> str:
    """Ours without and with the API-key example, each figure's difference, and the paired
    threads.get phase, whose difference is the per-request cost of auth."""
    lines = [("metric", SERVER_LABELS["ours"], SERVER_LABELS["auth"], "auth adds")]
    for row in build_rows(ours, auth):
        difference = None if row.ours is None or row.ref is None else row.ref - row.ours
        lines.append(
            (
                row.metric,
                cell(row.ours, row.unit, ours),
                cell(row.ref, row.unit, auth),
                signed(difference, row.unit) if row.kind != "count" else "-",
            )
        )
    if paired is not None:
        for name, get in (("p50", lambda s: s.p50_ms), ("p95", lambda s: s.p95_ms)):
            o, a = get(paired.ours), get(paired.auth)
            lines.append(
                (
                    f"{paired.request} {name} (interleaved, {paired.pairs} pairs)",
                    cell(o, "ms", ours),
                    cell(a, "ms", auth),
                    signed(None if o is None or a is None else a - o, "ms"),
                )
            )
        lines.append(
            (
                f"{paired.request} per-pair difference p50 / p95",
                "-",
                "-",
                f"{signed(paired.difference_p50_ms, 'ms')} / "
                f"{signed(paired.difference_p95_ms, 'ms')}",
            )
        )
    return render(lines)


def render(lines: list[tuple[str, ...]]) -> str:
    """Columns padded to their widest cell, with a rule under the header."""
    header = lines[0]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    rendered = [" | ".join(text.ljust(widths[i]) for i, text in enumerate(line)) for line in lines]
    rendered.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(rendered)


def format_report(
    results: dict[ServerKey, ServerResult],
    args: argparse.Namespace,
    paired: PairedSummary | None = None,
) -> str:
    """The table plus the notes a reader needs to trust or distrust it."""
    ours, auth, ref = results.get("ours"), results.get("auth"), results.get("ref")
    aegra = results.get("aegra")
    parts = [
        f"API overhead: graph '{GRAPH_ID}' (2 nodes), {args.iterations} sequential iterations, "
        f"{args.concurrency} clients x {args.duration:g}s for throughput",
    ]
    if ref is not None or aegra is not None or auth is None:
        parts += [
            "",
            format_table(build_rows(ours, ref, aegra), ours, ref, aegra),
            "",
            "ratio > 1 means ours is better (ref/ours for latencies, ours/ref for throughput).",
        ]
        if aegra is not None:
            parts.append("ratio vs aegra: the same, with aegra in place of ref.")
    if ours is not None and auth is not None:
        parts += ["", "Auth overhead (examples/auth/api_key_auth.py, x-api-key on every request)"]
        parts += ["", format_auth_table(ours, auth, paired)]
        if paired is not None and paired.difference_p50_ms is not None:
            parts += [
                "",
                f"auth adds {paired.difference_p50_ms:+.2f} ms p50 per request "
                f"(paired {paired.request}, {paired.pairs} pairs)",
            ]
    for result in results.values():
        parts.extend(failure_notes(result))
    if paired is not None:
        examples = paired.ours.error_examples + paired.auth.error_examples
        if examples:
            parts += ["", f"{paired.request} (interleaved) error examples:"]
            parts += [f"  {text}" for text in examples[:MAX_ERROR_EXAMPLES]]
    return "\n".join(parts)


def failure_notes(result: ServerResult) -> list[str]:
    """Why a server has no figures, or a sample of the errors it produced."""
    notes: list[str] = []
    if result.status == "failed":
        notes += ["", f"{result.label} failed to start: {result.error}"]
        if result.server_log:
            notes += [f"--- {result.label} server output (last lines) ---", result.server_log]
        return notes
    m = result.measurements
    if m is None:
        return notes
    examples = (
        m.wait.error_examples
        + m.stream_first_event.error_examples
        + m.throughput.latency.error_examples
        + (m.streams.latency.error_examples if m.streams is not None else [])
    )
    if examples:
        notes += ["", f"{result.label} error examples:"]
        notes += [f"  {text}" for text in examples[:MAX_ERROR_EXAMPLES]]
    if m.warmup_errors:
        notes.append(f"{result.label}: {m.warmup_errors} errors during warm-up (not counted)")
    return notes


def json_report(
    results: dict[ServerKey, ServerResult],
    args: argparse.Namespace,
    paired: PairedSummary | None = None,
) -> dict[str, Any]:
    """Machine-readable results: settings, every figure per server, and the table's ratios."""
    ours, ref, aegra = results.get("ours"), results.get("ref"), results.get("aegra")
    return {
        "settings": {
            "iterations": args.iterations,
            "warmup": args.warmup,
            "concurrency": args.concurrency,
            "duration_s": args.duration,
            "auth": args.auth,
            "graph_id": GRAPH_ID,
            "reference_requirements": list(REF_REQUIREMENTS),
            "aegra_requirements": list(AEGRA_REQUIREMENTS) if aegra is not None else None,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "servers": {key: asdict(result) for key, result in results.items()},
        "comparison": [
            {**asdict(row), "ratio": row.ratio(), "ratio_vs_aegra": row.ratio_to(row.aegra)}
            for row in build_rows(ours, ref, aegra)
        ],
        "auth_overhead": None if paired is None else asdict(paired),
    }


# --------------------------------------------------------------------------------------------
# Orchestration
# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; defaults match the figures quoted in benchmarks/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", choices=["ours", "ref", "aegra"], help="benchmark just one server"
    )
    parser.add_argument(
        "--auth",
        action="store_true",
        help="also serve ours with examples/auth/api_key_auth.py and report what auth adds",
    )
    add_aegra_arguments(parser)
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="ours on its embedded SQLite default, or in queue mode on PostgreSQL + Redis",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="ours with --backend postgres: worker processes"
    )
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="PostgreSQL to create (and drop) ours' per-run database on (--backend postgres)",
    )
    parser.add_argument(
        "--redis-url", default=DEFAULT_REDIS_URL, help="ours' Redis (--backend postgres)"
    )
    parser.add_argument("--iterations", type=int, default=200, help="sequential iterations")
    parser.add_argument("--warmup", type=int, default=5, help="untimed warm-up runs per kind")
    parser.add_argument("--duration", type=float, default=10.0, help="throughput seconds")
    parser.add_argument("--concurrency", type=int, default=16, help="throughput clients")
    parser.add_argument(
        "--stream-concurrency",
        type=int,
        default=32,
        help="clients streaming complete runs at once in the concurrent-streams phase (0: skip)",
    )
    parser.add_argument("--request-timeout", type=float, default=60.0, help="per operation, s")
    parser.add_argument("--startup-timeout", type=float, default=90.0, help="health wait, s")
    parser.add_argument("--ref-venv", type=Path, default=DEFAULT_REF_VENV)
    parser.add_argument("--olg", type=Path, default=Path(sys.prefix) / "bin" / "olg")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--log-dir", type=Path, help="keep server logs here (default: a temp dir)")
    from server_cpu import add_cpu_arguments  # it imports this module: not at the top

    add_cpu_arguments(parser)
    args = parser.parse_args(argv)
    for name in ("iterations", "concurrency", "duration", "request_timeout", "startup_timeout"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.warmup < 0:
        parser.error("--warmup must not be negative")
    if args.auth and args.only in ("ref", "aegra"):
        parser.error(f"--auth measures our server; it cannot go with --only {args.only}")
    return args


def add_aegra_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the third target, Aegra (benchmarks/aegra_target.py)."""
    parser.add_argument(
        "--aegra",
        action="store_true",
        help="also benchmark Aegra (aegra-api from PyPI) in its Redis + PostgreSQL mode",
    )
    parser.add_argument("--aegra-venv", type=Path, default=DEFAULT_AEGRA_VENV)
    parser.add_argument(
        "--aegra-python", type=Path, help="a CPython >= 3.12 for Aegra's venv (default: found)"
    )
    parser.add_argument(
        "--aegra-postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="PostgreSQL to create (and drop) Aegra's per-run database on",
    )
    parser.add_argument("--aegra-redis-url", default=DEFAULT_REDIS_URL, help="Aegra's Redis")


def make_servers(args: argparse.Namespace, tmp: Path, log_dir: Path) -> list[ServerProcess]:
    """The servers this run covers, ours first; installs the reference venv if it is needed."""
    servers: list[ServerProcess] = []
    if args.only in (None, "ours"):
        servers.append(ours_server(args.olg.absolute(), tmp, log_dir, args))
    if args.auth:
        servers.append(auth_server(args.olg.absolute(), tmp, log_dir))
    if args.only in (None, "ref"):
        ensure_ref_venv(args.ref_venv.absolute())
        clear_ref_state()
        servers.append(ref_server(args.ref_venv.absolute(), log_dir))
    if args.aegra or args.only == "aegra":  # --aegra adds it to whatever --only picked
        servers.append(aegra_server(args, tmp, log_dir))
    return servers


def start_all(servers: list[ServerProcess], timeout: float) -> dict[ServerKey, ServerResult]:
    """Start every server at once (side by side), then wait for each to be healthy."""
    results = {s.key: ServerResult(s.key, SERVER_LABELS[s.key], s.argv, url=s.url) for s in servers}
    for server in servers:
        try:
            server.start()
        except ServerStartError as exc:
            mark_failed(results[server.key], server, exc)
    for server in servers:
        if results[server.key].status == "failed":
            continue
        try:
            server.wait_healthy(timeout)
        except ServerStartError as exc:
            mark_failed(results[server.key], server, exc)
    return results


def mark_failed(result: ServerResult, server: ServerProcess, exc: Exception) -> None:
    """Record a start failure with the server's own output, and say so right away."""
    result.status = "failed"
    result.error = str(exc)
    result.server_log = server.failure_log()
    progress(f"{server.key}: failed to start: {exc}")


async def benchmark_all(
    results: dict[ServerKey, ServerResult], servers: list[ServerProcess], args: argparse.Namespace
) -> PairedSummary | None:
    """Benchmark the healthy servers one after the other, so they never compete for CPU; with
    `--auth`, then the interleaved threads.get phase on ours with and without auth."""
    api_keys = {server.key: server.client_api_key for server in servers}
    for key, result in results.items():
        if result.status == "failed" or result.url is None:
            continue
        result.measurements = await measure_server(key, result.url, args, api_keys[key])
        result.status = "ok"
    ours, auth = results.get("ours"), results.get("auth")
    if ours is None or auth is None or ours.status != "ok" or auth.status != "ok":
        return None
    assert ours.url is not None and auth.url is not None
    return await measure_auth_overhead(ours.url, auth.url, api_keys["auth"], args)


def raise_keyboard_interrupt(signum: int, frame: FrameType | None) -> None:
    """Turn SIGTERM/SIGHUP into the same clean-up path as Ctrl-C."""
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def servers_running(servers: list[ServerProcess]) -> Iterator[None]:
    """Guarantee every started server is stopped, whatever ends the benchmark."""
    try:
        yield
    finally:
        # A second Ctrl-C must not cut the shutdown short and leave a server behind.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for server in servers:
                server.stop()
            if any(s.key == "ref" for s in servers):
                clear_ref_state()
        finally:
            signal.signal(signal.SIGINT, previous)


def emit(
    results: dict[ServerKey, ServerResult],
    args: argparse.Namespace,
    paired: PairedSummary | None = None,
) -> int:
    """Print the table, write the JSON, and turn the outcome into an exit code."""
    print(format_report(results, args, paired))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(json_report(results, args, paired), indent=2) + "\n")
        progress(f"wrote {args.json}")
    ok = all(r.status == "ok" and not r.total_errors() for r in results.values())
    if paired is not None and (paired.ours.errors or paired.auth.errors):
        ok = False
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """Install if needed, start the servers, measure, report, and always stop the servers."""
    args = parse_args(argv)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, raise_keyboard_interrupt)
    if args.cpu:
        from server_cpu import run_cpu

        try:
            return run_cpu(args)
        except KeyboardInterrupt:
            progress("interrupted; servers stopped")
            return 130
    with tempfile.TemporaryDirectory(prefix="olg-bench-") as tmp_name:
        tmp = Path(tmp_name)
        log_dir = (args.log_dir or tmp).absolute()
        log_dir.mkdir(parents=True, exist_ok=True)
        try:
            servers = make_servers(args, tmp, log_dir)
            with servers_running(servers):
                results = start_all(servers, args.startup_timeout)
                paired = asyncio.run(benchmark_all(results, servers, args))
        except KeyboardInterrupt:
            progress("interrupted; servers stopped")
            return 130
        return emit(results, args, paired)


if __name__ == "__main__":
    sys.exit(main())
