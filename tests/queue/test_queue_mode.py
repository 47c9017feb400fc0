"""Starting queue mode from the command line: `olg serve --workers N`, `olg worker`, and the
messages for settings that cannot work together."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import StreamPart

from tests.fixtures.postgres import fresh_database
from tests.fixtures.queue_cluster import RedisServer, queue_cluster
from tests.fixtures.server import free_port, write_config
from tests.fixtures.streams import open_stream

pytestmark = pytest.mark.timeout(180)


def _olg(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "open_langgraph.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--redis-url", "redis://127.0.0.1:6379/0"], "needs PostgreSQL"),
        (["serve", "--workers", "2"], "need queue mode"),
        (["serve", "--api-only"], "need queue mode"),
        (["worker"], "needs --redis-url and --database-url"),
        (
            ["worker", "--database-url", "postgresql://x@127.0.0.1/x", "--redis-url", "http://x"],
            "must start with redis://",
        ),
    ],
)
def test_settings_that_cannot_work_are_refused(tmp_path: Path, argv: list[str], says: str) -> None:
    config = write_config(tmp_path)
    result = _olg(*argv, "--config", str(config))
    assert result.returncode == 2, result.stderr
    assert says in result.stderr


def _children(pid: int) -> list[str]:
    listed = subprocess.run(
        ["ps", "-o", "args=", "--ppid", str(pid)], capture_output=True, text=True, check=False
    )
    return [line for line in listed.stdout.splitlines() if line.strip()]


def _child_pids(pid: int) -> list[int]:
    listed = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False
    )
    return [int(line) for line in listed.stdout.split()]


async def test_serve_with_workers_runs_them_as_child_processes(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path)
    redis.start()
    port = free_port()
    try:
        with fresh_database() as url:
            serve = subprocess.Popen(
                [
                    *(sys.executable, "-m", "open_langgraph.cli", "serve", "--port", str(port)),
                    *("--config", str(write_config(tmp_path)), "--database-url", url),
                    *("--redis-url", redis.url, "--workers", "2"),
                ],
                stdout=(tmp_path / "serve.log").open("wb"),
                stderr=subprocess.STDOUT,
            )
            try:
                deadline = time.monotonic() + 60
                while True:
                    assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                    try:
                        if httpx.get(f"http://127.0.0.1:{port}/ok").status_code == 200:
                            break
                    except httpx.HTTPError:
                        time.sleep(0.2)
                workers = [a for a in _children(serve.pid) if " worker " in f" {a} "]
                assert len(workers) == 2, _children(serve.pid)
                worker_pids = _child_pids(serve.pid)
                client = get_client(url=f"http://127.0.0.1:{port}")
                thread = await client.threads.create()
                for count in range(3):
                    values = await client.runs.wait(
                        thread["thread_id"], "counter", input={"count": count}
                    )
                    assert values["count"] == count + 2
            finally:
                serve.terminate()
                serve.wait(timeout=60)
            # The workers were stopped before it exited, not left orphaned.
            assert serve.returncode == 0
            assert not any(Path(f"/proc/{pid}").exists() for pid in worker_pids)
    finally:
        redis.kill()


async def test_a_stream_starts_before_any_worker_takes_its_run(tmp_path: Path) -> None:
    """The API process stores and sends a run's first event (`metadata`: run id, attempt)
    itself, so a client learns its run id while every worker is busy; the worker that takes
    the run later goes on from there, and no replay shows the start twice."""
    with queue_cluster(tmp_path, apis=1, workers=0) as cluster:
        client = get_client(url=cluster.apis[0].url)
        thread = await client.threads.create()
        parts = client.runs.stream(
            thread["thread_id"], "counter", input={}, stream_mode=["values"]
        ).__aiter__()
        first = await asyncio.wait_for(parts.__anext__(), 10)
        assert first.event == "metadata"
        assert first.data["attempt"] == 1
        run = await client.runs.get(thread["thread_id"], first.data["run_id"])
        assert run["status"] == "pending"  # no worker exists yet

        worker = cluster.add_worker()
        worker.wait_ready()
        rest = [part async for part in parts]
        assert rest[-1].event == "values"
        replay: list[StreamPart] = []
        path = f"/threads/{thread['thread_id']}/runs/{run['run_id']}/stream"
        await asyncio.wait_for(
            await open_stream(client, path, replay, headers={"Last-Event-ID": "-1"}), 30
        )
        assert [p.event for p in replay].count("metadata") == 1
        assert [p.id for p in replay] == [str(seq) for seq in range(len(replay))]
        assert [(p.event, p.data) for p in replay] == [(p.event, p.data) for p in [first, *rest]]
