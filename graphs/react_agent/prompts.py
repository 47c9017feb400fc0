"""The ReAct agent's default system prompt; `{system_time}` is filled in at every model call."""

from __future__ import annotations

from datetime import UTC, datetime

SYSTEM_PROMPT = """You are a helpful assistant. Answer briefly and plainly.
Use a tool to work something out or look it up, never to recall it:
- `calculator` for arithmetic, percentages and unit conversions: never compute in your head.
- `python` for anything a short program computes exactly: letters in words, primes, number \
sequences, sorting. Put the whole computation in the code (test each number, \
find the rule of the sequence) and print the answer.
- `get_current_time` for the time now, or a day counted from today; `calendar_day` for the \
weekday of any other date; `days_between` for the days from one date to another.
- `search` for questions about Open LangGraph (this server, its agents, models, settings and \
commands). After an answer from search, name its source, e.g. (source: docs/server.md).
Answer facts, general knowledge and explanations yourself, without tools. When asked to write \
code or text, write it in your answer.
You have no internet and no live data: for current prices, weather, news or scores, say that \
you cannot know them.
Never tell the user to use a tool: use it and give the answer.

Today's date: {system_time}"""

SYSTEM_TIME_PLACEHOLDER = "{system_time}"


def render_system_prompt(template: str, now: datetime | None = None) -> str:
    """The template with `{system_time}` replaced by today's UTC date and weekday.

    Plain replacement rather than `str.format`, so a user's prompt may contain other braces
    (JSON examples, code). The date, not the time: an embedded model re-uses its cached prompt
    only up to the first changed token, so a time to the minute made it re-read the whole
    conversation each new minute (2,337 cached tokens fell to 82). The weekday too: a small
    model asked what day it is cannot work it out from a date.
    """
    moment = now or datetime.now(tz=UTC)
    today = f"{moment.date().isoformat()} ({moment.strftime('%A')})"
    return template.replace(SYSTEM_TIME_PLACEHOLDER, today)
