"""The pure parts of A2A and MCP: task ids, states, message parts, tool names."""

from __future__ import annotations

import pytest

from open_langgraph.services import a2a_messages as a2a
from open_langgraph.services.agent_tools import tool_name


def test_task_ids_name_thread_and_run():
    assert a2a.task_id("t", "r") == "t:r"
    assert a2a.split_task_id("t:r", None) == ("t", "r")
    assert a2a.split_task_id("t:r", "t") == ("t", "r")
    assert a2a.split_task_id("r", "t") == ("t", "r")
    with pytest.raises(a2a.A2AError) as other_context:
        a2a.split_task_id("t:r", "u")
    assert other_context.value.code == a2a.TASK_NOT_FOUND
    with pytest.raises(a2a.A2AError) as bare:
        a2a.split_task_id("r", None)
    assert bare.value.code == a2a.INVALID_PARAMS


@pytest.mark.parametrize(
    ("status", "waiting", "state"),
    [
        ("pending", False, "submitted"),
        ("running", False, "working"),
        ("success", False, "completed"),
        ("success", True, "input-required"),
        ("interrupted", True, "input-required"),
        ("interrupted", False, "canceled"),
        ("error", False, "failed"),
        ("timeout", True, "failed"),
    ],
)
def test_run_statuses_map_to_task_states(status: str, waiting: bool, state: str):
    assert a2a.task_state(status, waiting) == state


def test_text_parts_are_one_user_message_and_data_parts_merge():
    parts = [
        {"kind": "text", "text": "a"},
        {"kind": "data", "data": {"x": 1}},
        {"kind": "text", "text": "b"},
    ]
    assert a2a.message_input(parts, accepts_messages=True) == {
        "x": 1,
        "messages": [{"role": "user", "content": "a\nb"}],
    }
    assert a2a.message_input([{"kind": "data", "data": {"x": 1}}], False) == {"x": 1}
    for bad, accepts in (
        ([{"kind": "text", "text": "a"}], False),
        ([{"kind": "file", "file": {}}], True),
        (["text"], True),
        ([{"kind": "data", "data": [1]}], True),
    ):
        with pytest.raises(a2a.A2AError):
            a2a.message_input(bad, accepts)


def test_resume_takes_a_data_resume_then_the_data_then_the_text():
    assert a2a.resume_value([{"kind": "data", "data": {"resume": [1]}}]) == [1]
    assert a2a.resume_value([{"kind": "data", "data": {"ok": True}}]) == {"ok": True}
    assert a2a.resume_value([{"kind": "text", "text": "yes"}]) == "yes"


def test_history_and_reply_come_from_the_output_messages():
    output = {
        "messages": [
            {"type": "human", "content": "hi", "id": "1"},
            {"type": "tool", "content": "tool output", "id": "2"},
            {"type": "ai", "content": [{"type": "text", "text": "hello"}], "id": "3"},
        ]
    }
    every = a2a.history(output, "t:r", "t", None)
    assert [(m["role"], m["parts"][0]["text"]) for m in every] == [
        ("user", "hi"),
        ("agent", "hello"),
    ]
    assert [m["messageId"] for m in a2a.history(output, "t:r", "t", 1)] == ["3"]
    assert a2a.history(output, "t:r", "t", 0) == []
    assert a2a.history({"count": 1}, "t:r", "t", None) == []
    assert a2a.reply_parts(output) == [{"kind": "text", "text": "hello"}]
    assert a2a.reply_parts({"count": 1}) == [{"kind": "data", "data": {"count": 1}}]
    assert a2a.reply_parts(3) == [{"kind": "data", "data": {"output": 3}}]


def test_tool_names_are_valid_and_unique():
    taken: set[str] = set()
    first = tool_name({"name": "my agent!", "assistant_id": "id-1"}, taken)
    assert first == "my_agent"
    taken.add(first)
    assert tool_name({"name": "my agent?", "assistant_id": "id-2"}, taken) == "my_agent_id-2"
    assert tool_name({"name": "!!!", "assistant_id": "id-3"}, taken) == "id-3"
    assert len(tool_name({"name": "x" * 300, "assistant_id": "id-4"}, taken)) == 128
