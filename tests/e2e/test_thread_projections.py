"""The v3 thread protocol's projections as `langgraph_sdk` 0.4.14 reads them.

`thread.messages`, `thread.extensions[name]`, `thread.values` and `thread.interrupts`,
through the real client, async and sync, against the `projections` graph
(tests/fixtures/protocol_graphs.py): one model streams `AIMessageChunk`s, another streams v3
content blocks itself, a node returns a message whole, and the run waits for a person.
On SQLite and, with `OLG_TEST_BACKEND=postgres+redis`, in queue mode.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.protocol_graphs import BLOCKS_REPLY, CHUNKS_REPLY
from tests.fixtures.server import ServerProcess

pytestmark = pytest.mark.e2e

TIMEOUT = 30.0
GRAPH = "projections"
INPUT = {"messages": [{"role": "user", "content": "ship it"}]}
#: `progress` events before the run waits at `ask`, as (step, phase).
BEFORE_INTERRUPT = [
    ("chunks", "start"),
    ("chunks", "end"),
    ("blocks", "start"),
    ("blocks", "end"),
    ("act", "start"),
    ("act", "end"),
    ("ask", "start"),
]


def _words(text: str) -> list[str]:
    first, *rest = text.split(" ")
    return [first, *(f" {word}" for word in rest)]


async def _collect(aiter: Any) -> list[Any]:
    async with asyncio.timeout(TIMEOUT):
        return [item async for item in aiter]


async def test_each_streamed_message_is_one_stream_of_its_token_deltas(client: LangGraphClient):
    async with client.threads.stream(assistant_id=GRAPH) as thread:
        await thread.run.start(input=INPUT)
        # The outer iterator ends when the run waits; drain it before the inner ones.
        streams = await _collect(thread.messages)
        deltas = [await _collect(stream.text) for stream in streams]
        texts = [await stream.text for stream in streams]
    # One stream per model reply, in order; the message `act` returned whole is none.
    assert deltas == [_words(CHUNKS_REPLY), _words(BLOCKS_REPLY)]
    assert texts == [CHUNKS_REPLY, BLOCKS_REPLY]
    assert [stream.node for stream in streams] == ["chunks", "blocks"]
    assert streams[1].message_id == "reply-blocks"


def test_message_streams_through_the_sync_client(server: ServerProcess):
    sync_client = get_sync_client(url=server.url)
    try:
        with sync_client.threads.stream(assistant_id=GRAPH) as thread:
            thread.run.start(input=INPUT)
            streams = list(thread.messages)
            deltas = [list(stream.text) for stream in streams]
    finally:
        sync_client.http.client.close()
    assert deltas == [_words(CHUNKS_REPLY), _words(BLOCKS_REPLY)]
    assert ["".join(pieces) for pieces in deltas] == [CHUNKS_REPLY, BLOCKS_REPLY]


async def test_an_extension_yields_what_each_node_wrote_under_its_name(client: LangGraphClient):
    async with client.threads.stream(assistant_id=GRAPH) as thread:
        await thread.run.start(input=INPUT)
        progress = await _collect(thread.extensions["progress"])  # ends when the run waits
    # Only the `progress` events (not `audit`), in order, each what the node wrote.
    assert [(e["step"], e["phase"]) for e in progress] == BEFORE_INTERRUPT
    assert progress[1] == {"name": "progress", "step": "chunks", "phase": "end", "words": 7}
    # One projection per session here: the SDK (0.4.14) can hang a projection opened while
    # another one's connection is still being replaced (its `ready` is never set).
    async with client.threads.stream(assistant_id=GRAPH) as thread:
        await thread.run.start(input=INPUT)
        audit = await _collect(thread.extensions["audit"])
    assert audit == [{"name": "audit", "step": "blocks", "checked": True}]


def test_an_extension_through_the_sync_client(server: ServerProcess):
    sync_client = get_sync_client(url=server.url)
    try:
        with sync_client.threads.stream(assistant_id=GRAPH) as thread:
            thread.run.start(input=INPUT)
            progress = list(thread.extensions["progress"])
    finally:
        sync_client.http.client.close()
    assert [(e["step"], e["phase"]) for e in progress] == BEFORE_INTERRUPT


async def test_values_interrupts_and_the_answer_that_resumes_the_run(client: LangGraphClient):
    async with client.threads.stream(assistant_id=GRAPH) as thread:
        await thread.run.start(input=INPUT)
        snapshots = await _collect(thread.values)  # ends when the run waits
        assert thread.interrupted
        [pending] = thread.interrupts
        assert pending["value"] == {
            "question": "deploy to staging?",
            "steps": ["chunks", "blocks", "act"],
        }
        assert pending["namespace"] == []
        # A snapshot per superstep, none with the interrupt in it (that is on `input`).
        assert [s.get("steps") for s in snapshots[1:]] == [
            [],
            ["chunks"],
            ["chunks", "blocks"],
            ["chunks", "blocks", "act"],
        ]
        assert all("__interrupt__" not in s for s in snapshots)
        replies = snapshots[-1]["messages"][1:]
        assert [m["type"] for m in replies] == ["ai", "ai", "ai"]
        assert replies[-1]["tool_calls"][0]["args"] == {"target": "staging"}
        await thread.run.respond("yes")
        async with asyncio.timeout(TIMEOUT):
            async for snapshot in thread.values:  # the resumed run's state, to its end
                if "answer" in snapshot:
                    break
            output = await thread.output
        assert not thread.interrupted and thread.interrupts == []
    assert snapshot == output
    assert output["answer"] == "yes"
    assert output["steps"] == ["chunks", "blocks", "act", "ask"]
