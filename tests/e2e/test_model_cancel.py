"""A run cancelled while the embedded model reads a long prompt frees the model for the next
run long before the read would have ended, and a server stopped meanwhile exits at once and
quietly. The real SmolLM2 through the SDK: a prompt of 4,000 tokens takes it seconds to read
(5-30 s here), and llama.cpp can only stop between the batches it reads it in."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.backend import POSTGRES_REDIS
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, serving, write_config

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
GRAPHS = {**TEST_GRAPHS, "small_model": "tests.fixtures.local_model_graph:graph"}
WORDS = ("apple", "pear", "plum")


def long_prompt(first: int) -> dict[str, Any]:
    """About 4,000 tokens (one a word); `first` picks the first word, so two prompts share no
    prefix that llama.cpp's prompt cache could restore."""
    text = " ".join(WORDS[(first + i) % 3] for i in range(4000))
    return {"messages": [{"role": "user", "content": text}]}


SHORT = {"messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerProcess]:
    with serving(tmp_path, write_config(tmp_path, graphs=GRAPHS)) as process:
        yield process


async def _reading(client: Any, thread_id: str, run_id: str) -> None:
    """Until the run has reached the model: running, and the model loaded long before."""
    while (await client.runs.get(thread_id, run_id))["status"] != "running":
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)


async def test_a_cancelled_run_frees_the_model_long_before_its_read_ends(
    served: ServerProcess,
) -> None:
    async with sdk_client(served.url) as client:
        await client.runs.wait(None, "small_model", input=SHORT)  # the model loads
        started = time.monotonic()
        await client.runs.wait(None, "small_model", input=long_prompt(0))
        full_read = time.monotonic() - started

        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "small_model", input=long_prompt(1))
        await _reading(client, thread["thread_id"], run["run_id"])
        cancelled_at = time.monotonic()
        await client.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
        after = await client.runs.wait(None, "small_model", input=SHORT)
        freed = time.monotonic() - cancelled_at

    assert (await _status(served, thread["thread_id"], run["run_id"])) == "interrupted"
    assert after["messages"][-1]["type"] == "ai"
    # Had the read gone on, the next run would have waited for most of `full_read`.
    assert freed < full_read / 2, (freed, full_read)


async def _status(served: ServerProcess, thread_id: str, run_id: str) -> str:
    async with sdk_client(served.url) as client:
        return (await client.runs.get(thread_id, run_id))["status"]


@pytest.fixture
def stoppable(tmp_path: Path) -> Iterator[ServerProcess]:
    """In queue mode a SIGTERM first lets running runs finish for `OLG_GRACE_SECONDS` (30 by
    default), then hands them back to the queue: one second here."""
    config = write_config(tmp_path, graphs=GRAPHS)
    with serving(tmp_path, config, env={"OLG_GRACE_SECONDS": "1"}) as process:
        yield process


async def test_a_server_stopped_while_the_model_reads_exits_at_once_and_quietly(
    stoppable: ServerProcess,
) -> None:
    served = stoppable
    async with sdk_client(served.url) as client:
        await client.runs.wait(None, "small_model", input=SHORT)
        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "small_model", input=long_prompt(2))
        await _reading(client, thread["thread_id"], run["run_id"])
    assert served.process is not None
    stopping = time.monotonic()
    served.process.terminate()
    code = await asyncio.to_thread(served.process.wait, 60)
    stopped = time.monotonic() - stopping
    log = served.log.read_text()
    assert code == 0, log
    assert "Traceback" not in log, log
    assert stopped < 10, (stopped, log)  # a read left running would hold the exit for seconds
    served.start()  # the run cut off is not left `running` by a server that is gone
    async with httpx.AsyncClient(base_url=served.url) as http:
        stored = (await http.get(f"/threads/{thread['thread_id']}/runs/{run['run_id']}")).json()
    if served.database.backend == POSTGRES_REDIS:  # handed back: the queue runs it again
        assert stored["status"] in ("pending", "running", "success"), stored
    else:  # the process that executed it stored its end
        assert stored["status"] == "error", stored
