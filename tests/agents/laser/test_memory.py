"""The memory buffer's rules: record, merge by item id, cap with eviction, backup choice."""

from __future__ import annotations

import pytest

from graphs.laser.memory import choose_backup, keyword_match, parse_score, remember


def _item(item_id: str, **fields) -> dict:
    return {"item_id": item_id, **fields}


def test_opening_records_a_candidate_with_its_sighting() -> None:
    buffer = remember([], _item("A", title="Red mug", price="$9.99"), step=2, seen=True)
    assert buffer == [
        {
            "item_id": "A",
            "title": "Red mug",
            "price": "$9.99",
            "actions_taken": [],
            "times_seen": 1,
            "last_seen_step": 2,
        }
    ]


def test_merge_overwrites_with_non_empty_fields_and_appends_actions_once() -> None:
    buffer = remember(
        [],
        _item("A", title="Red mug", rationale="first look", actions_taken=["select_item"]),
        step=1,
        seen=True,
    )
    buffer = remember(
        buffer,
        _item(
            "A",
            title="",
            rationale="fits the instruction",
            features_summary="ceramic, 12 oz",
            score=None,
            actions_taken=["Features", "select_item"],
        ),
        step=3,
    )
    buffer = remember(buffer, _item("A", actions_taken=["select_item"]), step=5, seen=True)
    (a,) = buffer
    assert a["title"] == "Red mug"  # an empty value never erases
    assert a["rationale"] == "fits the instruction"
    assert a["features_summary"] == "ceramic, 12 oz"
    assert "score" not in a  # None is not information
    assert a["actions_taken"] == ["select_item", "Features"]
    assert a["times_seen"] == 2  # opened twice; reading features is not a new sighting
    assert a["last_seen_step"] == 5


def test_merge_keeps_other_items_untouched_and_does_not_mutate_input() -> None:
    first = remember([], _item("A", title="a"), step=1, seen=True)
    second = remember(first, _item("B", title="b"), step=2, seen=True)
    assert [c["item_id"] for c in second] == ["A", "B"]
    assert len(first) == 1


def test_cap_evicts_the_lowest_score_first() -> None:
    buffer: list = []
    for step, (item_id, score) in enumerate([("A", 5.0), ("B", 1.0), ("C", 8.0)], start=1):
        buffer = remember(buffer, _item(item_id, score=score), step=step, capacity=3)
    buffer = remember(buffer, _item("D", score=4.0), step=4, capacity=3)
    assert sorted(c["item_id"] for c in buffer) == ["A", "C", "D"]


def test_cap_evicts_unscored_then_least_recently_seen() -> None:
    buffer: list = []
    buffer = remember(buffer, _item("A"), step=1, capacity=2)
    buffer = remember(buffer, _item("B"), step=2, capacity=2)
    buffer = remember(buffer, _item("A", title="again"), step=3, capacity=2)  # A seen later
    buffer = remember(buffer, _item("C"), step=4, capacity=2)
    assert sorted(c["item_id"] for c in buffer) == ["A", "C"]
    buffer = remember(buffer, _item("D", score=0.0), step=5, capacity=2)
    assert sorted(c["item_id"] for c in buffer) == ["C", "D"]  # scored beats unscored


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="capacity"):
        remember([], _item("A"), step=1, capacity=0)


def test_backup_chooses_by_score_first() -> None:
    memory = [
        _item("A", title="blue mug", price="$5", score=3.0, last_seen_step=9),
        _item("B", title="red mug", price="$50", score=7.0, last_seen_step=1),
        _item("C", title="red ceramic mug", price="$5", last_seen_step=10),
    ]
    chosen, rule = choose_backup(memory, "red ceramic mug under 10 dollars", 10.0)
    assert (chosen["item_id"], rule) == ("B", "score")


def test_backup_without_scores_uses_price_and_keywords() -> None:
    memory = [
        _item("A", title="red ceramic mug", price="$50", last_seen_step=9),
        _item("B", title="red ceramic mug", price="$5.99", last_seen_step=1),
        _item("C", title="garden hose", price="$5", last_seen_step=10),
    ]
    chosen, rule = choose_backup(memory, "red ceramic mug, price lower than 10.00 dollars", 10.0)
    assert (chosen["item_id"], rule) == ("B", "match")


def test_backup_falls_back_to_the_most_recent_item() -> None:
    memory = [
        _item("A", title="garden hose", price="$50", last_seen_step=2),
        _item("B", title="lamp", price="$70", last_seen_step=6),
    ]
    chosen, rule = choose_backup(memory, "red ceramic mug", 10.0)
    assert (chosen["item_id"], rule) == ("B", "recency")
    assert choose_backup([], "anything", None) == (None, "empty")


@pytest.mark.parametrize(
    ("thought", "score"),
    [
        ("Looks right. Match score: 8/10", 8.0),
        ("match score 7.5 / 10", 7.5),
        ("Match score: 3/10 at first, now Match score: 9/10", 9.0),
        ("Match score: 15/10", 10.0),
        ("no rating here", None),
    ],
)
def test_scores_are_read_from_the_rationale(thought: str, score: float | None) -> None:
    assert parse_score(thought) == score


def test_keyword_match_ignores_filler_words() -> None:
    item = _item("A", title="Red Ceramic Mug")
    assert keyword_match("i want a red ceramic mug", item) == 1.0
    assert keyword_match("i want a blue glass", item) == 0.0
