"""Numbers come back from storage as the numbers that were sent, on either backend.

PostgreSQL's jsonb keeps a number's value but not its spelling: the float 1e30 is stored as
1000...0, which read back naively is an integer beyond 64 bits that no response can carry
(a 500 on every later read of the assistant, thread or state holding it).
"""

from __future__ import annotations

import pytest
from langgraph_sdk.client import LangGraphClient

pytestmark = pytest.mark.e2e

HUGE = 1e30
LARGE = 1e17  # written as 1e+17: on PostgreSQL it may come back as the integer of that value


async def test_large_floats_in_configs_metadata_and_state_read_back_as_sent(
    client: LangGraphClient,
) -> None:
    assistant = await client.assistants.create(
        "counter", config={"configurable": {"huge": HUGE, "large": LARGE}}
    )
    stored = (await client.assistants.get(assistant["assistant_id"]))["config"]["configurable"]
    assert stored == {"huge": HUGE, "large": LARGE}

    thread_id = (await client.threads.create(metadata={"huge": HUGE}))["thread_id"]
    assert (await client.threads.get(thread_id))["metadata"] == {"huge": HUGE}
    found = await client.threads.search(metadata={"huge": HUGE})
    assert [t["thread_id"] for t in found] == [thread_id]

    await client.runs.wait(thread_id, "counter", input={"count": HUGE})
    assert (await client.threads.get_state(thread_id))["values"]["count"] == HUGE
    assert (await client.threads.get_history(thread_id, limit=1))[0]["values"]["count"] == HUGE
