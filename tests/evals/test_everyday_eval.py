"""The everyday evaluation's data and answer matcher: every question checkable, the matcher
strict on the value and lenient on the wording."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.evals.benchmark_modules import BENCHMARKS, load_benchmark

NOW = datetime(2026, 11, 26, 10, 5, tzinfo=UTC)  # a Thursday


@pytest.fixture(scope="module")
def everyday() -> ModuleType:
    return load_benchmark("everyday_eval")


def test_at_least_sixty_questions_fifteen_of_each_kind(everyday: ModuleType) -> None:
    questions = everyday.load(everyday.DATA, None)
    kinds = {q["kind"] for q in questions}
    assert len(questions) >= 60
    assert kinds == {"arithmetic", "percentages", "dates", "docs"}
    assert all(sum(q["kind"] == k for q in questions) >= 15 for k in kinds)
    assert len({q["id"] for q in questions}) == len(questions)
    for question in questions:
        everyday.checker(question["expect"], NOW)  # every expectation is understood


def test_the_tuning_set_is_checkable_and_shares_no_question_with_the_held_out_one(
    everyday: ModuleType,
) -> None:
    """Tuning on `everyday_dev.json` leaves the held-out questions unseen."""
    tuning = everyday.load(BENCHMARKS / "data" / "everyday_dev.json", None)
    held_out = everyday.load(everyday.DATA, None)
    assert {q["kind"] for q in tuning} == {q["kind"] for q in held_out}
    assert not {q["question"] for q in tuning} & {q["question"] for q in held_out}
    assert not {q["id"] for q in tuning} & {q["id"] for q in held_out}
    for question in tuning:
        everyday.checker(question["expect"], NOW)


@pytest.mark.parametrize(
    ("expect", "answer", "correct"),
    [
        ({"number": 72.47}, "The total is $72.47.", True),
        ({"number": 25480}, "The new population is 25,480 people.", True),
        ({"number": 25480}, "About 25,000 people.", False),
        ({"number": 9.6}, "A 15% tip on $64 is $9.60.", True),
        ({"number": 45}, "There are 46 days.", False),
        ({"weekday_in_days": 1}, "Today is Thursday, so tomorrow is Friday.", True),
        ({"weekday_in_days": 1}, "Tomorrow is Saturday.", False),
        ({"weekday_in_days": 1}, "It could be Friday or Saturday.", False),
        ({"weekday": "Saturday"}, "1 January 2000 was a Saturday.", True),
        ({"date_in_days": 7}, "It will be December 3rd, 2026.", True),
        ({"date_in_days": 7}, "2026-12-03", True),
        ({"date_in_days": 7}, "2026-12-04", False),
        ({"date_in_days": 0}, "Today is Thursday, 26 November 2026.", True),
        ({"any": ["olg db upgrade"]}, "Run `olg db upgrade`.", True),
        ({"any": [".olg/olg.db"]}, "It is ./.olg/olg.db by default.", True),
        ({"any": ["OLG_MODEL"]}, "Set OLG_MODEL_CACHE.", False),
        ({"hour_utc": True}, "It is 10:04:59 in UTC.", True),
        ({"hour_utc": True}, "It is 14:00 in UTC.", False),
        ({"year_in_years": -25}, "It was 2001.", True),
        ({"month_in_months": 0}, "It is November.", True),
    ],
)
def test_the_matcher(
    everyday: ModuleType, expect: dict[str, Any], answer: str, correct: bool
) -> None:
    assert everyday.checker(expect, NOW)(answer) is correct


def test_kinds_take_turns_and_a_saved_run_is_reported(
    everyday: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = everyday.load(everyday.DATA, {"dates", "docs"})
    assert [q["kind"] for q in questions[:4]] == ["dates", "docs", "dates", "docs"]
    outcome: dict[str, Any] = {
        "question": "q",
        "answer": "a",
        "correct": True,
        "looped": False,
        "seconds": 2.0,
        "tool_calls": [],
        "cache_reused": 30,
        "prompt_read": 10,
    }
    records = [
        {"id": "d1", "kind": "dates", **outcome},
        {"id": "k1", "kind": "docs", **outcome, "correct": False, "seconds": 4.0},
    ]
    saved = tmp_path / "answers.json"
    saved.write_text(json.dumps(records))
    assert everyday.main(["--report", str(saved), "--markdown"]) == 0
    printed = capsys.readouterr().out
    assert "| dates | 1/1 | 100% | 2.0 | 2.0 | 0 |" in printed
    assert "| **all** | 1/2 | 50% | 3.0 | 4.0 | 0 |" in printed
    assert "75% (60 of 80)" in printed
