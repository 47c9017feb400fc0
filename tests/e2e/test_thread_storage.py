"""`GET /threads/{thread_id}/storage`: the bytes a thread's checkpoints take, in the shape of
the Platform's `ThreadStorage` (the SDK has no method for it: raw calls through its client)."""

from __future__ import annotations

import uuid

import pytest
from langgraph_sdk.client import LangGraphClient

pytestmark = pytest.mark.e2e

SECTIONS = ("checkpoints", "channel_values", "pending_writes")


def _check_shape(body: dict, thread_id: str) -> None:
    assert set(body) == {"thread_id", "total_bytes", *SECTIONS}
    assert body["thread_id"] == thread_id
    assert body["total_bytes"] == sum(body[s]["bytes"] for s in SECTIONS)
    by_channel = body["channel_values"]["by_channel"]
    assert body["channel_values"]["count"] == sum(c["versions"] for c in by_channel.values())
    assert body["channel_values"]["bytes"] == sum(c["bytes"] for c in by_channel.values())


async def test_storage_grows_with_the_thread_checkpoints(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    empty = await client.http.get(f"/threads/{thread_id}/storage")
    _check_shape(empty, thread_id)
    assert empty["total_bytes"] == 0 and empty["checkpoints"]["count"] == 0

    await client.runs.wait(thread_id, "counter", input={"count": 1, "trail": ["x" * 500]})
    once = await client.http.get(f"/threads/{thread_id}/storage")
    _check_shape(once, thread_id)
    history = await client.threads.get_history(thread_id, limit=100)
    assert once["checkpoints"]["count"] == len(history)
    assert once["total_bytes"] > 500  # the trail is in there, whichever section holds it

    await client.runs.wait(thread_id, "counter", input={"count": 2})
    twice = await client.http.get(f"/threads/{thread_id}/storage")
    assert twice["checkpoints"]["count"] > once["checkpoints"]["count"]
    assert twice["total_bytes"] > once["total_bytes"]


async def test_an_interrupted_thread_counts_its_pending_writes(client: LangGraphClient):
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "hitl", input={"request": "leave"})
    body = await client.http.get(f"/threads/{thread_id}/storage")
    _check_shape(body, thread_id)
    assert body["pending_writes"]["count"] >= 1


@pytest.mark.parametrize("thread_id", [str(uuid.uuid4()), "not-a-uuid"])
async def test_unknown_or_malformed_thread(client: LangGraphClient, thread_id: str):
    response = await client.http.client.get(f"/threads/{thread_id}/storage")
    assert response.status_code in (404, 422)
    assert isinstance(response.json()["detail"], str)
