"""The held-out harness (benchmarks/heldout_eval.py): every question of every held-out set has
three forms and a check that runs, and the checks judge code, honesty about live data and
lists as a reader would. Only the data's shape is read here, never an answer to it."""

from __future__ import annotations

from datetime import UTC, datetime
from types import ModuleType

import pytest

from tests.evals.benchmark_modules import BENCHMARKS, load_benchmark

SETS = [
    "agents_heldout.json",
    "agents_heldout_v2.json",
    "subgraph_agent_heldout.json",
    "plan_execute_heldout.json",
]
NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    return load_benchmark("heldout_eval")


@pytest.mark.parametrize("name", SETS)
def test_each_set_has_three_forms_and_a_working_check(harness: ModuleType, name: str) -> None:
    items = harness.load(BENCHMARKS / "data" / name, 3)
    ids = {question["id"] for question, _, _ in items}
    assert len(items) == 3 * len(ids)
    for question, _, turns in items:
        assert turns and all(isinstance(t, str) and t.strip() for t in turns)
        assert callable(harness.check_for(question["expect"], NOW))


def test_the_react_set_covers_nine_kinds_with_nine_each(harness: ModuleType) -> None:
    items = harness.load(BENCHMARKS / "data" / "agents_heldout.json", 1)
    kinds = {q["kind"] for q, _, _ in items}
    assert kinds == {
        "numbers",
        "dates",
        "facts",
        "words",
        "code",
        "live_data",
        "docs",
        "memory",
        "mentions",
    }
    assert all(sum(q["kind"] == k for q, _, _ in items) >= 9 for k in kinds)
    assert len(items) >= 80
    assert all(len(t) >= 2 for q, _, t in items if q["kind"] == "memory")


def test_live_data_answers_must_decline_without_a_figure(harness: ModuleType) -> None:
    check = harness.check_for({"declines": True}, NOW)
    assert check("I don't have access to real-time stock prices, so I can't tell you.")
    assert check("I cannot know the current weather: I have no internet access.")
    assert not check("Apple trades at $187.20 right now.")
    assert not check("I can't be sure, but it is probably around $187 a share.")
    assert not check("It is sunny in Paris.")


def test_code_is_judged_by_running_it(harness: ModuleType) -> None:
    check = harness.check_for(
        {"python": {"function": "double", "cases": [[[2], 4], [[0], 0]]}}, NOW
    )
    assert check("Here you go:\n```python\ndef double(n):\n    return n * 2\n```")
    assert check("def double(n):\n    return 2 * n")
    assert not check("```python\ndef double(n):\n    return n + 2\n```")
    assert not check("The double of a number is twice it.")
    assert not check("```python\ndef double(n):\n    while True:\n        pass\n```")


def test_all_none_and_the_older_checks_combine(harness: ModuleType) -> None:
    check = harness.check_for({"all": ["apple", "pear"], "none": ["plum"], "number": 2}, NOW)
    assert check("2 fruits: apple and pear.")
    assert not check("2 fruits: apple and plum and pear.")
    assert not check("3 fruits: apple and pear.")


def test_paraphrase_consistency_counts_questions_whose_forms_agree(harness: ModuleType) -> None:
    outcome = harness.FormOutcome
    results = [
        outcome("a", "numbers", 0, "", True, False, 1.0),
        outcome("a", "numbers", 1, "", True, False, 1.0),
        outcome("b", "numbers", 0, "", True, False, 1.0),
        outcome("b", "numbers", 1, "", False, False, 1.0),
        outcome("c", "numbers", 0, "", False, False, 1.0),
    ]
    assert harness.consistency(results) == (1, 2)
