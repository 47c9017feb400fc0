"""A run's final write failing (a full disk, a lock held too long) ends the run; it never
leaves it half alive. The write is retried, then the run is stored as `error` with a
`StorageError` that the client sees.

Faults are injected into the real SQLite storage of a live server
(tests/fixtures/faulty_serve.py). In the last test they are real: the server process runs
under a file size limit. Both are SQLite's own errors and files, so these servers run on
SQLite whatever OLG_TEST_BACKEND says.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.backend import SQLITE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, write_config
from tests.fixtures.webhook_listener import Listener

pytestmark = pytest.mark.e2e

COUNT = {"count": 0}


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    listening = Listener()
    yield listening
    listening.close()


def _server(directory: Path, faults: list[dict[str, Any]] | None) -> ServerProcess:
    """A server on `directory`'s database; with `faults`, its storage fails as they say."""
    config = write_config(directory, webhooks={"url": {"disable_loopback": False}})
    return ServerProcess(
        config,
        directory / "olg.db",
        directory / "server.log",
        {} if faults is None else {"OLG_TEST_FAULTS": json.dumps(faults)},
        module="open_langgraph.cli" if faults is None else "tests.fixtures.faulty_serve",
        backend=SQLITE,  # the injected errors are sqlite3's
    )


@contextlib.asynccontextmanager
async def _serving(server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    with server:
        async with sdk_client(server.url) as client:
            yield client


async def _webhook(listener: Listener, path: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not (posts := listener.posts_to(path)):
        assert time.monotonic() < deadline, f"no webhook reached {path} within {timeout} s"
        await asyncio.sleep(0.05)
    return posts[-1]


async def _stored_events(client: LangGraphClient, thread_id: str, run_id: str) -> list[str]:
    """The names of the run's events as a client replaying it after the end gets them."""
    parts = client.runs.join_stream(thread_id, run_id, last_event_id="-1")
    return [part.event async for part in parts]


async def test_a_final_write_that_fails_twice_is_retried_and_nothing_is_lost(
    tmp_path: Path, listener: Listener
) -> None:
    faults = [{"method": "finish_run", "times": 2}]
    async with _serving(_server(tmp_path, faults)) as client:
        thread_id = (await client.threads.create())["thread_id"]
        result = await client.runs.wait(
            thread_id, "counter", input=COUNT, webhook=listener.url("/retried")
        )
        assert result["count"] == 2

        (run,) = await client.runs.list(thread_id)
        assert run["status"] == "success"
        assert (await client.threads.get(thread_id))["status"] == "idle"
        assert "values" in await _stored_events(client, thread_id, run["run_id"])
        assert (await _webhook(listener, "/retried"))["status"] == "success"


async def test_a_final_write_that_keeps_failing_ends_the_run_with_a_storage_error(
    tmp_path: Path, listener: Listener
) -> None:
    # Storing the real outcome always fails; storing an error still works.
    faults = [{"method": "finish_run", "match": {"status": "success"}}]
    async with _serving(_server(tmp_path, faults)) as client:
        thread_id = (await client.threads.create())["thread_id"]
        with pytest.raises(Exception, match="StorageError"):
            await client.runs.wait(
                thread_id, "counter", input=COUNT, webhook=listener.url("/failed")
            )

        (run,) = await client.runs.list(thread_id)
        assert run["status"] == "error"
        assert (await client.threads.get(thread_id))["status"] == "error"
        # Read back from the database: the handle is gone.
        stored = (await client.runs.join(thread_id, run["run_id"]))["__error__"]
        assert stored["error"] == "StorageError"
        assert "database or disk is full" in stored["message"]
        events = await _stored_events(client, thread_id, run["run_id"])
        assert "values" in events and events[-1] == "error"
        hook = await _webhook(listener, "/failed")
        assert hook["status"] == "error" and hook["error"]["error"] == "StorageError"
        await client.runs.delete(thread_id, run["run_id"])  # a finished run, no 409

        # A streaming client sees the failure as the stream's last event.
        parts = [p async for p in client.runs.stream(thread_id, "counter", input=COUNT)]
        assert parts[-1].event == "error" and parts[-1].data["error"] == "StorageError"


async def test_a_run_whose_end_cannot_be_stored_frees_its_thread_and_is_repaired_at_restart(
    tmp_path: Path, listener: Listener
) -> None:
    async with _serving(_server(tmp_path, [{"method": "finish_run"}])) as client:
        thread_id = (await client.threads.create())["thread_id"]
        with pytest.raises(Exception, match="StorageError"):
            await client.runs.wait(thread_id, "counter", input=COUNT, webhook=listener.url("/lost"))
        hook = await _webhook(listener, "/lost")
        assert hook["status"] == "error" and hook["error"]["error"] == "StorageError"
        # The database still says `busy`, but this process does not hold the thread.
        with pytest.raises(Exception, match="StorageError"):
            await client.runs.wait(thread_id, "counter", input=COUNT, multitask_strategy="reject")

    async with _serving(_server(tmp_path, None)) as client:
        assert [r["status"] for r in await client.runs.list(thread_id)] == ["error", "error"]
        assert (await client.threads.get(thread_id))["status"] == "error"
        assert (await client.runs.wait(thread_id, "counter", input=COUNT))["count"] == 2


FILE_SIZE_LIMIT = 2 * 1024 * 1024


def _limit_file_size() -> None:
    """Runs in the server process: no file it writes may grow beyond FILE_SIZE_LIMIT."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


async def test_a_real_full_disk_at_the_final_write_ends_the_run_with_a_storage_error(
    tmp_path: Path,
) -> None:
    server = ServerProcess(
        write_config(tmp_path),
        tmp_path / "olg.db",
        tmp_path / "server.log",
        preexec_fn=_limit_file_size,
        backend=SQLITE,  # the limit is on the database file
    )
    async with _serving(server) as client:
        thread_id = (await client.threads.create())["thread_id"]
        # About 3 MB of stream events, stored with the run when it ends: they cannot fit.
        run = await client.runs.create(
            thread_id,
            "bulky",
            input={"events": 300, "size": 10_000},
            stream_mode=["custom"],
        )
        error = (await client.runs.join(thread_id, run["run_id"]))["__error__"]
        assert error["error"] == "StorageError"
        assert "stream events were not stored" in error["message"]
        assert (await client.runs.get(thread_id, run["run_id"]))["status"] == "error"
        assert (await client.threads.get(thread_id))["status"] == "error"

        # What still fits is stored: the thread and the server carry on.
        assert (await client.runs.wait(thread_id, "counter", input=COUNT))["count"] == 2
        assert (await client.threads.get(thread_id))["status"] == "idle"


async def test_a_request_whose_write_fails_gets_a_503_and_the_next_one_works(
    tmp_path: Path,
) -> None:
    async with _serving(_server(tmp_path, [{"method": "create_thread", "times": 1}])) as client:
        failed = await client.http.client.post("/threads", json={"metadata": {"n": 1}})
        assert failed.status_code == 503
        assert "storage unavailable" in failed.json()["detail"]
        assert failed.headers["retry-after"] == "1"
        assert await client.threads.count() == 0
        await client.threads.create(metadata={"n": 2})
        assert await client.threads.count() == 1
