"""What an agent without a live source says when asked for live data: that it has none.

Asked for a price, the weather, the news or a score right now, the 1.5B model invented a
figure on every such tuning question (0 of 9 declined), usually after a calculator or search
call that fed it a number, although its system prompt said it has no live data. A small model
chooses among tools far more readily than it declines, so the agent offers one whose
description matches the need: its result tells the model, in the moment it answers, that no
live source exists. The agent binds it only while search is offline (no `TAVILY_API_KEY`).
"""

from __future__ import annotations

NO_LIVE_SOURCE = (
    "I cannot know {what} right now: I have no internet connection and no live data source, "
    "so any figure I gave would be a guess. A current source (a bank, a finance or weather "
    "site, a news service) has it."
)


def no_live_source(what: str) -> str:
    """The tool's result, worded as the answer itself: a small model often passes a tool's
    result on word for word, so a result addressed to the model would reach the user."""
    return NO_LIVE_SOURCE.format(what=what.strip() or "that")
