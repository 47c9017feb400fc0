"""A failed node's error as a thread's state shows it: the exception's repr, as langgraph-api
gives it, whether the snapshot comes from the live run or is read back from storage."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

SHOWN = "ValueError('the failing node failed on purpose')"


async def test_a_failed_tasks_error_is_the_exceptions_repr_once(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "failing", input={"count": 1}, raise_error=False)
    state = await client.threads.get_state(thread_id)
    [task] = state["tasks"]
    assert task["name"] == "explode"
    assert task["error"] == SHOWN  # not quoted again: "'ValueError(...)'"
    history = await client.threads.get_history(thread_id, limit=1)
    assert history[0]["tasks"][0]["error"] == SHOWN


@pytest.fixture(scope="module")
def failing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    graphs = {**TEST_GRAPHS, "own_database_down": "tests.fixtures.graphs:own_database_down"}
    directory = tmp_path_factory.mktemp("olg-errors")
    with serving(directory, write_config(directory, graphs=graphs)) as process:
        yield process


async def test_a_run_shows_a_librarys_error_message_only_in_the_servers_log(
    failing_server: ServerProcess,
) -> None:
    """As langgraph-api: the class of any exception, the message only of Python's, LangGraph's
    and the server's own; another library's text may hold what a client must not see (here a
    database's host), so it goes to the log alone."""
    async with sdk_client(failing_server.url) as client:
        thread = await client.threads.create()
        masked = await client.runs.wait(
            thread["thread_id"], "own_database_down", input={"count": 0}, raise_error=False
        )
        streamed = [
            part.data
            async for part in client.runs.stream(
                None, "own_database_down", input={"count": 0}, stream_mode="values"
            )
            if part.event == "error"
        ]
        [run] = await client.runs.list(thread["thread_id"])
        shown = await client.runs.wait(None, "failing", input={"count": 1}, raise_error=False)
    hidden = {"error": "OperationalError", "message": "An internal error occurred"}
    assert masked["__error__"] == hidden
    assert streamed == [hidden]
    assert shown["__error__"] == {
        "error": "ValueError",
        "message": "the failing node failed on purpose",
    }
    assert "db:5432" in failing_server.log.read_text()
    assert run["status"] == "error"
