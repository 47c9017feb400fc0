"""`olg run` asks every interrupt that is no tool review in plain words, with a prompt saying
what to type, and turns the typed line into the resume value the graph expects (issue 33:
raw JSON and a bare `>` before)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import pytest

from open_langgraph.run_cli import Console, answer_interrupts
from open_langgraph.run_questions import question_for

PLAN_APPROVAL = {
    "type": "plan_approval",
    "plan": ["Open the shop", "Buy it"],
    "question": "Run this plan? Answer yes, or no with what to change.",
}
INBOX_REQUEST = {
    "action_request": {"action": "send_email", "args": {"to": "kim@example.com"}},
    "config": {
        "allow_accept": True,
        "allow_edit": True,
        "allow_respond": True,
        "allow_ignore": False,
    },
    "description": "Send this email?",
}


def typed(*lines: str) -> Any:
    """A read_line giving `lines` in turn, then the end of input."""
    queue = [f"{line}\n" for line in lines]

    async def read_line() -> str:
        return queue.pop(0) if queue else ""

    return read_line


async def answer(value: Any, lines: Iterable[str]) -> tuple[Any, str]:
    """The command for one interrupt of `value`, and everything `olg run` printed."""
    out = io.StringIO()
    command = await answer_interrupts(
        [{"id": "i1", "value": value}], Console(out, io.StringIO()), typed(*lines)
    )
    return command, out.getvalue()


@pytest.mark.parametrize(
    ("value", "shown", "prompt"),
    [
        ("What is your name?", "What is your name?\n", "Your answer (free text)? "),
        (
            {"type": "clarification", "question": "Which shop?", "message_to_user": "I need it."},
            "I need it.\nWhich shop?\n",
            "Your answer (free text)? ",
        ),
        (
            PLAN_APPROVAL,
            "Plan:\n  1. Open the shop\n  2. Buy it\n"
            "Run this plan? Answer yes, or no with what to change.\n",
            "Your answer (yes to run it, or no and what to change)? ",
        ),
        (
            {"type": "confirm_quit", "question": "Quit without running it?"},
            "Quit without running it?\n",
            "Your answer (yes or no)? ",
        ),
        (
            "Delete notes.txt? (yes or no)",
            "Delete notes.txt? (yes or no)\n",
            "Your answer (yes or no)? ",
        ),
        (
            {"action": "send_email", "to": "kim@example.com", "body": "Lunch?\nAt noon."},
            "The agent waits for your answer:\n  action: send_email\n  to: kim@example.com\n"
            "  body: Lunch?\n    At noon.\n",
            "Your answer (free text, or a JSON object)? ",
        ),
        (
            {"question": "Which size?", "options": ["16 fl oz", "32 fl oz"]},
            "Which size?\nChoices:\n  1. 16 fl oz\n  2. 32 fl oz\n",
            "Your answer (a number from 1 to 2, or your own words)? ",
        ),
        (None, "The agent waits for your answer.\n", "Your answer (free text)? "),
    ],
    ids=["text", "clarification", "plan", "confirm", "yes-no-text", "object", "choice", "none"],
)
async def test_each_shape_is_asked_in_words(value: Any, shown: str, prompt: str) -> None:
    _, out = await answer(value, ["x"])
    assert out == f"\n{shown}{prompt}"


async def test_a_text_question_gets_the_typed_text() -> None:
    command, _ = await answer("What is your name?", ["Kim"])
    assert command == {"resume": "Kim"}


async def test_a_json_object_typed_is_sent_as_one() -> None:
    command, _ = await answer({"action": "send_email"}, ['{"approved": true}'])
    assert command == {"resume": {"approved": True}}


async def test_an_empty_answer_to_an_approval_is_asked_again() -> None:
    command, out = await answer(PLAN_APPROVAL, ["", "no, check the home page first"])
    assert out.count("Your answer (yes to run it, or no and what to change)? ") == 2
    assert "Please type yes, or no and what to change." in out
    assert command == {"resume": "no, check the home page first"}


async def test_a_choice_is_answered_by_its_number_or_in_words() -> None:
    value = {"question": "Which size?", "options": ["16 fl oz", {"label": "32", "value": 32}]}
    assert (await answer(value, ["2"]))[0] == {"resume": 32}
    assert (await answer(value, ["1"]))[0] == {"resume": "16 fl oz"}
    assert (await answer(value, ["the big one"]))[0] == {"resume": "the big one"}
    assert (await answer(value, ["3"]))[0] == {"resume": "3"}


def test_a_question_is_never_shown_as_json() -> None:
    question = question_for({"type": "review", "data": {"a": 1}})
    assert question.lines == (
        "The agent waits for your answer:",
        "  type: review",
        '  data: {"a": 1}',
    )


@pytest.mark.parametrize(
    ("lines", "response"),
    [
        (["approve"], {"type": "accept", "args": None}),
        (
            ['edit {"to": "lee@example.com"}'],
            {"type": "edit", "args": {"action": "send_email", "args": {"to": "lee@example.com"}}},
        ),
        (["respond not today"], {"type": "response", "args": "not today"}),
    ],
)
async def test_an_agent_inbox_request_is_reviewed_in_words(
    lines: list[str], response: dict[str, Any]
) -> None:
    command, out = await answer([INBOX_REQUEST], lines)
    assert command == {"resume": [response]}
    assert "Tool call 1 of 1: send_email\n  Send this email?\n" in out
    assert '  arguments: {"to": "kim@example.com"}\n' in out
    assert "  approve: accept it as it is\n" in out
    assert "Your decision (approve, edit or respond; or end to stop the review)? " in out
    assert "reject" not in out  # allow_ignore is false


async def test_a_single_agent_inbox_request_gets_a_single_response() -> None:
    allowed = {**INBOX_REQUEST, "config": {**INBOX_REQUEST["config"], "allow_ignore": True}}
    command, out = await answer(allowed, ["reject"])
    assert command == {"resume": {"type": "ignore", "args": None}}
    assert "  reject: ignore it: skip this step\n" in out
    assert "Why" not in out  # an ignored request carries no reason
