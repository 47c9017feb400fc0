"""The web agent's guards against doing things twice: questions about what the task already
says are not asked, and an action that already worked on the same page is not taken again."""

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


def test_an_identical_action_on_the_same_page_is_found_with_its_result() -> None:
    history = [
        {"page": "", "tool": "browser_navigate", "args": {"url": "http://s/"}, "ok": True},
        {
            "page": "http://s/",
            "tool": "browser_type",
            "args": {"target": "e3", "text": "socks"},
            "ok": True,
            "result": "Done. Page: http://s/search",
        },
        {"page": "http://s/search", "tool": "browser_navigate_back", "args": {}, "ok": True},
    ]
    again = {"text": "socks", "target": "e3"}  # argument order does not matter
    # Back on the page where it worked, after other pages: still a repeat.
    found = repeated_action(history, "http://s/", "browser_type", again)
    assert found is not None and found["result"] == "Done. Page: http://s/search"
    # Another page (where e3 is another element), other arguments, or moves that are normal
    # to repeat are not.
    assert repeated_action(history, "http://s/search", "browser_type", again) is None
    other = {"target": "e3", "text": "hats"}
    assert repeated_action(history, "http://s/", "browser_type", other) is None
    # A failed action is not retried as it was either.
    failed = [{**history[1], "ok": False, "result": "Ref e3 not found"}]
    assert repeated_action(failed, "http://s/", "browser_type", again) == failed[0]
    assert repeated_action(history, "http://s/search", "browser_navigate_back", {}) is None
    assert repeated_action(history, "http://s/", "finish", {"result": "done"}) is None


def test_the_same_element_under_a_new_ref_is_the_same_action() -> None:
    """Each reload of a page numbers its refs anew (f4e13, f5e13): the element's role and name
    identify it, and the free `element` description does not count."""
    page = 'http://s/click?target=28" x 28"'
    history = [
        {
            "page": page,
            "tool": "browser_click",
            "args": {"target": "f4e13", "element": "link"},
            "label": 'radio "28 x 28"',
            "ok": True,
            "result": "Done.",
        }
    ]
    again = {"target": "f5e13", "element": "the size"}
    assert repeated_action(history, page, "browser_click", again, 'radio "28 x 28"') is not None
    other = {"target": "f5e14"}
    assert repeated_action(history, page, "browser_click", other, 'link "Buy Now"') is None


def test_an_address_opened_before_is_not_opened_again_from_another_page() -> None:
    history = [
        {"page": "", "tool": "browser_navigate", "args": {"url": "http://s/"}, "ok": True},
        {"page": "http://s/", "tool": "browser_click", "args": {"target": "e2"}, "ok": True},
    ]
    again = repeated_action(history, "http://s/done", "browser_navigate", {"url": "http://s/"})
    assert again is history[0]
    other = {"url": "http://t/"}
    assert repeated_action(history, "http://s/done", "browser_navigate", other) is None
