"""The web agent's guards against doing things twice: questions about what the task already
says are not asked, and an action already taken in the same plan step is not taken again."""

from __future__ import annotations

from graphs.web_agent.repeats import asks_something_new, repeated_action

GOAL = (
    "i need a long clip-in hair extension which is natural looking, and price lower than "
    "40.00 dollars"
)


def test_a_question_about_what_the_instruction_names_is_not_asked() -> None:
    assert not asks_something_new("What is the price limit for the hair extension?", GOAL, [])
    assert not asks_something_new("Should it look natural?", GOAL, [])
    assert not asks_something_new("   ", GOAL, [])


def test_a_question_about_what_is_missing_is_asked_once() -> None:
    question = "Which shop should I use? Please give its address."
    assert asks_something_new(question, GOAL, [])
    answered = [{"question": question, "answer": "http://127.0.0.1:3000/fixed_0"}]
    assert not asks_something_new(question, GOAL, answered)


def test_an_identical_action_in_the_same_step_is_found_with_its_result() -> None:
    history = [
        {"step": 0, "tool": "browser_navigate", "args": {"url": "http://s/"}, "ok": True},
        {
            "step": 1,
            "tool": "browser_type",
            "args": {"target": "e3", "text": "socks"},
            "ok": True,
            "result": "Done. Page: http://s/search",
        },
    ]
    again = {"text": "socks", "target": "e3"}  # argument order does not matter
    assert repeated_action(history, 1, "browser_type", again) == "Done. Page: http://s/search"
    # Another step, other arguments, a failed attempt or looking again are not repeats.
    assert repeated_action(history, 2, "browser_type", again) is None
    assert repeated_action(history, 1, "browser_type", {"target": "e3", "text": "hats"}) is None
    failed = [{**history[1], "ok": False}]
    assert repeated_action(failed, 1, "browser_type", again) is None
    snap = [{"step": 1, "tool": "browser_snapshot", "args": {}, "ok": True}]
    assert repeated_action(snap, 1, "browser_snapshot", {}) is None
