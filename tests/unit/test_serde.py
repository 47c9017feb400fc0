"""Values a graph's state or events may hold that JSON has no type for are encoded as
langgraph-api encodes them, so a client reads the same from either server."""

from __future__ import annotations

import re
from collections import deque
from datetime import UTC, timedelta
from decimal import Decimal
from ipaddress import ip_address
from pathlib import Path

import orjson
import pytest
from langgraph.types import Send

from open_langgraph.serde import dumps


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        # create_react_agent routes tool calls with Send: `events` show it as {node, args}
        (Send("tools", {"call": 1}), {"node": "tools", "args": {"call": 1}}),
        (ValueError("bad input"), {"error": "ValueError", "message": "bad input"}),
        (b"\x00\xffbytes", "AP9ieXRlcw=="),  # base64, not text with replacement characters
        (Decimal("12"), 12),
        (Decimal("2.50"), 2.5),
        (Decimal("Infinity"), None),
        (timedelta(minutes=1, seconds=30), 90.0),
        (UTC, "UTC"),
        (Path("/srv/data.csv"), "/srv/data.csv"),
        (ip_address("10.0.0.1"), "10.0.0.1"),
        (deque([1, 2]), [1, 2]),
        (re.compile(r"\d+"), r"\d+"),
    ],
)
def test_values_json_has_no_type_for_are_encoded_as_the_platform_does(
    value: object, encoded: object
) -> None:
    assert orjson.loads(dumps({"v": value})) == {"v": encoded}
