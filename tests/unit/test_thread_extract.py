"""Search `extract` paths: parsed strictly, followed leniently."""

from __future__ import annotations

import pytest

from open_langgraph.errors import InvalidInput
from open_langgraph.services.thread_extract import extracted, parse_extract, parse_path

THREAD = {
    "values": {"messages": [{"content": "hi"}, {"content": "bye"}], "n": 3},
    "metadata": {"graph_id": "g", "a.b": 1},
    "config": {},
    "interrupts": {},
}


def test_paths_follow_keys_and_indexes():
    paths = parse_extract(
        {
            "last": "values.messages[-1].content",
            "first": "values.messages[0]",
            "n": "values.n",
            "all": "metadata",
            "out_of_range": "values.messages[5]",
            "into_a_number": "values.n.x",
            "index_on_dict": "values[0]",
        }
    )
    assert extracted(THREAD, paths) == {
        "last": "bye",
        "first": {"content": "hi"},
        "n": 3,
        "all": {"graph_id": "g", "a.b": 1},
        "out_of_range": None,
        "into_a_number": None,
        "index_on_dict": None,
    }


@pytest.mark.parametrize(
    "path", ["valuesx.a", "thread_id", "values.", "values..a", "values[x]", "values[1", ""]
)
def test_malformed_paths_are_refused(path: str):
    with pytest.raises(InvalidInput, match="extract path"):
        parse_path(path)


def test_at_most_ten_paths():
    with pytest.raises(InvalidInput, match="at most 10"):
        parse_extract({str(i): "values" for i in range(11)})
