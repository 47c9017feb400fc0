"""Run events to v3 protocol events, subscription filters and `seq` numbering."""

from __future__ import annotations

from typing import Any

import pytest

from open_langgraph.errors import InvalidInput
from open_langgraph.serde import dumps
from open_langgraph.services.protocol_events import ProtocolTranslator
from open_langgraph.services.protocol_stream import (
    EventFilter,
    decode_seq,
    encode_seq,
    parse_since,
)

RUN = "run-1"


def _translate(translator: ProtocolTranslator, name: str, data: Any) -> list[dict[str, Any]]:
    return translator.translate(RUN, name, dumps(data))


def _summary(events: list[dict[str, Any]]) -> list[tuple[str, list[str], Any]]:
    return [(e["method"], e["params"]["namespace"], e["params"]["data"]) for e in events]


def test_a_runs_start_and_end_are_lifecycle_events():
    translator = ProtocolTranslator()
    assert _summary(_translate(translator, "metadata", {"run_id": RUN})) == [
        ("lifecycle", [], {"event": "running"})
    ]
    assert _summary(translator.run_started(RUN, "agent")) == [
        ("lifecycle", [], {"event": "running", "graph_name": "agent"})
    ]
    assert _summary(translator.run_ended(RUN, "success")) == [
        ("lifecycle", [], {"event": "completed", "graph_name": "agent"})
    ]
    _translate(translator, "error", {"error": "ValueError", "message": "boom"})
    assert _summary(translator.run_ended(RUN, "error")) == [
        ("lifecycle", [], {"event": "failed", "error": "boom"})
    ]
    # Interrupted without an interrupt: the run was cancelled.
    assert translator.run_ended(RUN, "interrupted")[0]["params"]["data"]["event"] == "failed"


def test_updates_become_one_event_per_node_and_interrupts_input_requests():
    translator = ProtocolTranslator()
    events = _translate(translator, "updates", {"a": {"count": 1}, "b": {"count": 2}})
    assert _summary(events) == [
        ("updates", [], {"node": "a", "values": {"count": 1}}),
        ("updates", [], {"node": "b", "values": {"count": 2}}),
    ]
    interrupt = {"__interrupt__": [{"value": {"q": "?"}, "id": "i-1"}]}
    events = _translate(translator, "updates", interrupt)
    assert _summary(events) == [
        ("input.requested", [], {"interrupt_id": "i-1", "payload": {"q": "?"}, "value": {"q": "?"}})
    ]
    assert _translate(translator, "updates", interrupt) == []  # once per interrupt
    assert _summary(translator.run_ended(RUN, "interrupted")) == [
        ("lifecycle", [], {"event": "interrupted"})
    ]


def test_streamed_message_events_pass_with_their_id_and_node():
    translator = ProtocolTranslator()
    meta = {"langgraph_node": "agent", "langgraph_path": ["x"], "langgraph_step": 1}
    start = _translate(
        translator, "messages", [{"event": "message-start", "role": "ai", "id": "m"}, meta]
    )
    assert start[0]["params"]["data"] == {
        "event": "message-start",
        "role": "ai",
        "id": "m",
        "metadata": {"langgraph_node": "agent", "langgraph_step": 1},
    }
    delta = {
        "event": "content-block-delta",
        "index": 0,
        "delta": {"type": "text-delta", "text": "hi"},
    }
    assert _summary(_translate(translator, "messages", [delta, meta])) == [("messages", [], delta)]


def test_only_streamed_message_events_are_messages():
    """A whole message (a node's output, a model that did not stream) or a v1 chunk would
    be a message stream without tokens: they are in `values` and `updates` instead."""
    translator = ProtocolTranslator()
    whole = {"type": "ai", "id": "m2", "content": "done", "tool_calls": []}
    chunk = {"type": "AIMessageChunk", "id": "m3", "content": "to"}
    for message in (whole, chunk, "text", None):
        assert _translate(translator, "messages", [message, {}]) == []


def test_a_finished_tools_message_result_is_mirrored_as_a_tool_message():
    translator = ProtocolTranslator()
    result = {"type": "tool", "id": None, "content": "42", "tool_call_id": "c1"}
    finished = {"event": "tool-finished", "tool_call_id": "c1", "output": result}
    events = _summary(_translate(translator, "tools", finished))
    assert events[0] == ("tools", [], finished)
    mirrored = events[1:]
    assert {tuple(namespace) for _, namespace, _ in mirrored} == {("tools:c1",)}
    assert [data["event"] for _, _, data in mirrored] == [
        "message-start",
        "content-block-start",
        "content-block-delta",
        "content-block-finish",
        "message-finish",
    ]
    assert mirrored[0][2] == {
        "event": "message-start",
        "role": "tool",
        "id": "tool-c1",
        "tool_call_id": "c1",
    }
    assert mirrored[3][2]["content"] == {"type": "text", "text": "42"}
    # A result that is not a message (a plain tool called directly) is not mirrored.
    plain = {"event": "tool-finished", "tool_call_id": "c2", "output": "42"}
    assert len(_translate(translator, "tools", plain)) == 1


def test_interrupts_in_values_become_input_requests_only():
    """A classic run's values carry its interrupts (LangGraph's v1 format)."""
    translator = ProtocolTranslator()
    values = {"count": 1, "__interrupt__": [{"value": "ok?", "id": "i-9"}]}
    assert _summary(_translate(translator, "values", values)) == [
        ("input.requested", [], {"interrupt_id": "i-9", "payload": "ok?", "value": "ok?"}),
        ("values", [], {"count": 1}),
    ]
    assert _translate(translator, "values", {"__interrupt__": values["__interrupt__"]}) == []


def test_a_subgraph_starts_when_first_seen_and_ends_with_its_task():
    translator = ProtocolTranslator()
    events = _translate(translator, "values|inner:t1", {"count": 1})
    assert _summary(events) == [
        ("lifecycle", ["inner:t1"], {"event": "started", "graph_name": "inner"}),
        ("values", ["inner:t1"], {"count": 1}),
    ]
    assert len(_translate(translator, "values|inner:t1", {"count": 2})) == 1
    events = _translate(translator, "tasks", {"id": "t1", "name": "inner", "result": {}})
    assert _summary(events)[-1] == ("lifecycle", ["inner:t1"], {"event": "completed"})


def test_custom_events_carry_what_the_node_wrote():
    """As langgraph-api sends them: the SDK's `thread.extensions[name]` yields the dicts
    whose `name` is `name`; a `custom:<name>` subscription matches on that name."""
    translator = ProtocolTranslator()
    [event] = _translate(translator, "custom", {"name": "progress", "step": "a"})
    assert event["params"]["data"] == {"name": "progress", "step": "a"}
    [plain] = _translate(translator, "custom", "just text")
    assert plain["params"]["data"] == "just text"
    named = EventFilter.parse({"channels": ["custom:progress"]})
    assert named.matches(event) and not named.matches(plain)
    assert EventFilter.parse({"channels": ["custom"]}).matches(plain)


def _event(method: str, namespace: list[str], data: Any = None) -> dict[str, Any]:
    return {"method": method, "params": {"namespace": namespace, "data": data or {}}}


def test_filters_match_channels_namespaces_and_depth():
    everything = EventFilter.parse({"channels": ["values", "input", "custom"]})
    assert everything.matches(_event("values", ["a:1", "b:2"]))
    assert everything.matches(_event("input.requested", []))
    assert everything.matches(_event("custom", [], {"name": "x"}))
    assert not everything.matches(_event("updates", []))
    named = EventFilter.parse({"channels": ["custom:x"]})
    assert named.matches(_event("custom", [], {"name": "x"}))
    assert not named.matches(_event("custom", [], {"name": "y"}))
    scoped = EventFilter.parse({"channels": ["values"], "namespaces": [["a"]], "depth": 0})
    assert scoped.matches(_event("values", ["a:1"]))
    assert not scoped.matches(_event("values", ["a:1", "b:2"]))
    assert not scoped.matches(_event("values", []))
    root = EventFilter.parse({"channels": ["values"], "namespaces": [[]], "depth": 1})
    assert root.matches(_event("values", ["a:1"]))
    assert not root.matches(_event("values", ["a:1", "b:2"]))


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"channels": []},
        {"channels": ["nope"]},
        {"channels": [1]},
        {"channels": ["values"], "namespaces": "a"},
        {"channels": ["values"], "namespaces": [[1]]},
        {"channels": ["values"], "depth": -1},
        {"channels": ["values"], "depth": True},
    ],
)
def test_bad_subscriptions_are_invalid_input(params: Any):
    with pytest.raises(InvalidInput):
        EventFilter.parse(params)


def test_seqs_grow_along_runs_and_events_and_decode():
    seqs = [
        encode_seq(0, 0, 0),
        encode_seq(0, 0, 3),
        encode_seq(0, 5, 0),
        encode_seq(0, (1 << 20) - 1, 0),  # the run's end
        encode_seq(1, 0, 0),
    ]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert decode_seq(encode_seq(7, 42, 3)) == (7, 42)
    assert max(seqs) < 2**53  # exact in JavaScript too
    assert parse_since("12") == 12 and parse_since(None) is None
    for bad in ("x", -1, True, 1.5):
        with pytest.raises(InvalidInput):
            parse_since(bad)
