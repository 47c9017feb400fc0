"""`olg run` answering tool reviews in plain words, typed on its stdin as a person would, against
a live `olg serve` of `create_agent` graphs gated by `HumanInTheLoopMiddleware` in both modes
and of react_agent_hitl, all on the scripted model of tests/ui/scripted_agents.py (the
calculator allows every decision, `delete_file` only approve and reject); and every other
interrupt shape asked in words with a prompt saying what to type: text, an object, choices, an
Agent Inbox request (tests/fixtures/interrupt_graphs.py) and web_agent's plan approval and quit
question (its scripted shopper; the plan is never run, so no browser starts)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]
GRAPHS = {
    "react_agent_hitl": "tests.ui.scripted_agents:react_agent_hitl",
    "hitl_batched": "tests.ui.scripted_agents:hitl_batched",
    "hitl_per_call": "tests.ui.scripted_agents:hitl_per_call",
    "asks": "tests.fixtures.interrupt_graphs:asks",
    "inbox": "tests.fixtures.interrupt_graphs:inbox",
    "web_agent_scripted": "tests.agents.web_agent.served_graph:graph",
}
MODES = pytest.mark.parametrize("agent", ["hitl_batched", "hitl_per_call"])
BOTH_CALLS = "calculate 6 * 7 and delete notes.txt"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("run-cli-review")
    with serving(
        directory,
        write_config(directory, graphs=GRAPHS),
        env={"OLG_SEARCH_DOCS": "", "TAVILY_API_KEY": ""},
    ) as process:
        yield process


def olg_run(
    served: ServerProcess, agent: str, request: str, typed: str
) -> subprocess.CompletedProcess:
    """`olg run AGENT REQUEST` with `typed` as everything the person types."""
    return subprocess.run(
        [sys.executable, "-m", "open_langgraph.cli", "run", agent, request, "--url", served.url],
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
    )


def final_answer(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout.rstrip("\n").rsplit("\n", 1)[-1]


@MODES
def test_each_call_is_asked_with_only_its_decisions(served: ServerProcess, agent: str) -> None:
    done = olg_run(served, agent, BOTH_CALLS, 'edit {"expression": "6 * 8"}\nno\nkeep it\n')
    out = done.stdout
    assert "The agent wants to run 2 tool calls and waits for your review." in out
    calculator = out.index("Tool call 1 of 2: calculator")
    deleting = out.index("Tool call 2 of 2: delete_file")
    assert calculator < deleting
    assert '  arguments: {"expression": "6 * 7"}' in out[calculator:deleting]
    for word in ("approve", "edit", "reject", "respond"):
        assert f"\n  {word}: " in out[calculator:deleting]
    asked = out[deleting:]
    assert "  Tool execution requires approval\n" in asked
    assert "\n  approve: run it as it is\n" in asked and "\n  reject: " in asked
    assert "\n  edit: " not in asked and "\n  respond: " not in asked
    assert "Your decision (approve or reject; or end to stop the review)? " in asked
    assert final_answer(done) == (
        "The calculator says 48. The delete_file call failed: "
        "User rejected the tool call for `delete_file` with reason: keep it"
    )


@MODES
def test_a_response_stands_for_the_tool(served: ServerProcess, agent: str) -> None:
    done = olg_run(served, agent, BOTH_CALLS, "respond forty-two\napprove\n")
    assert final_answer(done) == (
        "The calculator says forty-two. The delete_file says deleted notes.txt. That is the answer."
    )


@MODES
def test_a_decision_the_call_does_not_allow_is_asked_again(
    served: ServerProcess, agent: str
) -> None:
    # Edit for delete_file, then a rejection with no reason (Enter).
    done = olg_run(served, agent, BOTH_CALLS, "yes\nedit\nreject\n\n")
    assert "Please type approve or reject (or end)." in done.stdout
    assert "Why (the agent reads it; Enter for no reason)? " in done.stdout
    assert final_answer(done).startswith(
        "The calculator says 42. The delete_file call failed: "
        "User rejected the tool call for `delete_file` with id call_"
    )


@MODES
def test_end_stops_the_review_with_nothing_run(served: ServerProcess, agent: str) -> None:
    done = olg_run(served, agent, BOTH_CALLS, "end\n")
    assert final_answer(done) == (
        "No reply: the agent stopped before its tool calls ran (calculator, delete_file)."
    )
    # The thread `olg run` made: this graph's last one.
    search = {"metadata": {"graph_id": agent}, "sort_by": "created_at", "sort_order": "desc"}
    thread = httpx.post(f"{served.url}/threads/search", json=search).json()[0]
    assert thread["values"]["messages"][0]["content"] == BOTH_CALLS
    assert thread["status"] == "idle"
    assert [m["type"] for m in thread["values"]["messages"]] == ["human", "ai"]


def test_react_agent_hitl_asks_again_for_an_empty_response(served: ServerProcess) -> None:
    done = olg_run(served, "react_agent_hitl", "calculate 6 * 7", "respond\n\nbad\nrespond 41\n")
    out = done.stdout
    assert "Your answer, which the agent gets as the tool's result? " in out
    assert "An empty answer cannot stand for the tool's result." in out
    assert "Please type approve, edit, reject or respond (or end)." in out
    assert final_answer(done) == "The calculator says 41. That is the answer."


def test_edited_arguments_must_be_a_json_object(served: ServerProcess) -> None:
    typed = 'edit expression=6*8\nedit ["6 * 8"]\nedit {"expression": "6 * 8"}\n'
    done = olg_run(served, "react_agent_hitl", "calculate 6 * 7", typed)
    assert "Those arguments are not JSON (Expecting value); nothing was sent." in done.stdout
    assert 'The arguments must be a JSON object, like {"name": "value"}.' in done.stdout
    assert final_answer(done) == "The calculator says 48. That is the answer."


def test_input_ending_mid_review_leaves_the_thread_waiting(served: ServerProcess) -> None:
    done = olg_run(served, "hitl_batched", BOTH_CALLS, "approve\n")
    assert done.returncode == 3
    assert "stays interrupted and can be resumed later" in done.stderr


def test_text_object_and_choice_interrupts_are_asked_in_words(served: ServerProcess) -> None:
    # A name, a JSON object for the object, Enter (asked again) and a number for the choice.
    done = olg_run(served, "asks", "hi", 'Kim\n{"send": true}\n\n2\n')
    out = done.stdout
    assert "\nWhat is your name?\nYour answer (free text)? " in out
    assert (
        "\nThe agent waits for your answer:\n  action: send_email\n  to: kim@example.com\n"
        "  subject: Hi\nYour answer (free text, or a JSON object)? "
    ) in out
    choice = "Which size?\nChoices:\n  1. 16 fl oz\n  2. 32 fl oz\n"
    prompt = "Your answer (a number from 1 to 2, or your own words)? "
    assert f"{choice}{prompt}Please type a number from 1 to 2, or your own words.\n{prompt}" in out
    assert "\n> " not in out and "{\n" not in out  # no bare prompt, no raw JSON
    assert json.loads(final_answer(done)) == {
        "name": "Kim",
        "email": {"send": True},
        "size": "32 fl oz",
    }


def test_an_agent_inbox_request_is_reviewed_in_words(served: ServerProcess) -> None:
    done = olg_run(served, "inbox", "hi", 'edit {"to": "lee@example.com"}\n')
    out = done.stdout
    assert "Tool call 1 of 1: send_email\n  Send this email?\n" in out
    assert "  approve: accept it as it is\n" in out and "  reject: ignore it: " in out
    assert "Your decision (approve, edit, reject or respond; or end to stop the review)? " in out
    assert json.loads(final_answer(done)) == {
        "type": "edit",
        "args": {"action": "send_email", "args": {"to": "lee@example.com"}},
    }


def test_web_agents_plan_approval_and_quit_question_are_asked_in_words(
    served: ServerProcess,
) -> None:
    typed = "http://127.0.0.1:9/shop\n\nno, check the home page first\nlater\n\nyes\n"
    done = olg_run(served, "web_agent_scripted", "Buy the shampoo", typed)
    out = done.stdout
    assert "I need the shop's address.\nWhich shop should I use? Please give its address.\n" in out
    approval = "Your answer (yes to run it, or no and what to change)? "
    assert f"{approval}Please type yes, or no and what to change.\n{approval}" in out
    # The rejection re-planned with the feedback: the second plan starts with it.
    assert "Plan:\n  1. Check the shop's home page first\n" in out
    assert "Quit without running it?\nYour answer (yes or no)? Please type yes or no.\n" in out
    assert "\n> " not in out
    assert done.returncode == 0, done.stderr
    assert "The person quit before the plan ran; nothing was done in the browser." in out
