"""A crash (SIGKILL) loses nothing that finished and leaves nothing stuck `running`."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from tests.fixtures.backend import POSTGRES_REDIS
from tests.fixtures.server import ServerProcess, write_config

pytestmark = pytest.mark.e2e


async def test_kill_9_and_restart_keeps_threads_history_runs_and_events(tmp_path: Path):
    server = ServerProcess(write_config(tmp_path), tmp_path / "data" / "olg.db", tmp_path / "log")
    queue_mode = server.database.backend == POSTGRES_REDIS
    server.start()
    try:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create(metadata={"owner": "crash-test"}))["thread_id"]
        finished = await client.runs.create(
            thread_id, "counter", input={"count": 0}, stream_mode=["values", "updates"]
        )
        await client.runs.join(thread_id, finished["run_id"])
        events_before = [
            (p.event, p.data) async for p in client.runs.join_stream(thread_id, finished["run_id"])
        ]
        history_before = await client.threads.get_history(thread_id, limit=100)
        assistant = await client.assistants.create("counter", name="survivor")

        busy_thread = (await client.threads.create())["thread_id"]
        # Queue mode resumes a run cut off by a crash, so there it is short enough to wait for.
        seconds = 2 if queue_mode else 30
        in_flight = await client.runs.create(busy_thread, "slow", input={"seconds": seconds})
        queued = await client.runs.create(
            busy_thread, "counter", input={"count": 100}, multitask_strategy="enqueue"
        )
        for _ in range(400):
            if (await client.runs.get(busy_thread, in_flight["run_id"]))["status"] == "running":
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the in-flight run never started; the crash would test nothing")
        await client.http.client.aclose()
    finally:
        server.kill_hard()

    server.start()
    try:
        client = get_client(url=server.url)
        thread = await client.threads.get(thread_id)
        assert thread["metadata"]["owner"] == "crash-test"
        assert thread["values"]["count"] == 2
        assert await client.threads.get_history(thread_id, limit=100) == history_before
        run = await client.runs.get(thread_id, finished["run_id"])
        assert run["status"] == "success"
        events_after = [
            (p.event, p.data) async for p in client.runs.join_stream(thread_id, finished["run_id"])
        ]
        assert events_after == events_before
        assert (await client.assistants.get(assistant["assistant_id"]))["name"] == "survivor"

        if queue_mode:
            # Taken over once its lease expired, and resumed from its input's checkpoint.
            resumed = await client.runs.join(busy_thread, in_flight["run_id"])
            assert resumed["done"] == [":first", ":second"]
            assert (await client.runs.get(busy_thread, in_flight["run_id"]))["status"] == "success"
        else:
            crashed = await client.runs.get(busy_thread, in_flight["run_id"])
            assert crashed["status"] == "error"
        # The run queued behind it was still pending: it runs after the restart.
        assert (await client.runs.join(busy_thread, queued["run_id"]))["count"] == 102
        assert (await client.runs.get(busy_thread, queued["run_id"]))["status"] == "success"
        assert (await client.threads.get(busy_thread))["status"] == "idle"
        await client.http.client.aclose()
    finally:
        server.close()


async def test_sigterm_with_a_stream_open_stops_promptly_and_settles_the_run(tmp_path: Path):
    server = ServerProcess(write_config(tmp_path), tmp_path / "olg.db", tmp_path / "log")
    server.start()
    try:
        client = get_client(url=server.url)
        thread_id = (await client.threads.create())["thread_id"]
        stream = client.runs.stream(
            thread_id, "slow", input={"seconds": 60}, on_disconnect="cancel"
        )
        first = await anext(stream)
        run_id = first.data["run_id"]
        assert server.process is not None
        started = time.monotonic()
        server.process.terminate()
        server.process.wait(timeout=30)
        assert time.monotonic() - started < 20
        await stream.aclose()
        await client.http.client.aclose()
    finally:
        server.stop()
    server.start()
    try:
        client = get_client(url=server.url)
        run = await client.runs.get(thread_id, run_id)
        # Shutdown closed the stream, and this stream's run is cancelled when its client goes.
        assert run["status"] == "interrupted"
        assert (await client.threads.get(thread_id))["status"] != "busy"
        await client.http.client.aclose()
    finally:
        server.close()
