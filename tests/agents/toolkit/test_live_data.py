"""An agent with no live source says so when asked for live data, and only then offers it."""

from __future__ import annotations

import pytest

from graphs.react_agent import tools


def test_the_live_data_tool_says_there_is_no_live_source() -> None:
    told = tools.live_data.invoke({"what": "the price of gold"})
    assert "cannot know the price of gold right now" in told
    assert not any(ch.isdigit() for ch in told), "the answer offers no figure"


def test_it_is_offered_only_while_search_is_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    assert "live_data" in [t.name for t in tools._tools()]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    assert "live_data" not in [t.name for t in tools._tools()]
