"""Stored and returned timestamps keep the text `datetime.isoformat()` gives in UTC, which
clients of the Platform parse and which sorting by text relies on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from open_langgraph.storage.base import utc_now


def test_utc_now_is_isoformat_text_in_utc():
    text = utc_now()
    parsed = datetime.fromisoformat(text)
    assert parsed.utcoffset() == timedelta(0)
    assert parsed.isoformat() == text
    assert text.endswith("+00:00")
    assert abs(datetime.now(UTC) - parsed) < timedelta(seconds=5)
