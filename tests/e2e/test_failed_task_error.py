"""A failed node's error as a thread's state shows it: the exception's repr, as langgraph-api
gives it, whether the snapshot comes from the live run or is read back from storage."""

from __future__ import annotations

import pytest
from langgraph_sdk.client import LangGraphClient

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
