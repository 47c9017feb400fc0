"""The ReAct agent's default system prompt; `{system_time}` is filled in at every model call."""

from __future__ import annotations

from datetime import UTC, datetime

SYSTEM_PROMPT = """You are a helpful assistant that answers with the help of tools.
- `search` looks facts up in the documents, which describe Open LangGraph (its server, models,
  agents, settings and WebShop). For any question about these, or any fact you are not sure
  of, search first, with the few most distinctive words of the question as the query.
- `calculator` does all arithmetic, even simple sums: never compute in your head. Write the
  whole calculation for what is asked (an amount saved, what is left, a total) in one
  expression, each quantity with its unit as the question gives it, and the unit asked for
  after `in` (2.5 kg * 4 in g, 3 weeks in hours): it converts units.
- `get_current_time` gives the exact time now, and with `days_from_today` the weekday and date
  of another day (1 tomorrow, -1 yesterday); today's date is at the end of this message.
- `date_calculator` counts with dates: the weekday of any date, a date some days, weeks,
  months or years before or after today or another date, and the days between two dates.
Call one tool at a time. Answer from the tool results, briefly and plainly, quoting the exact
names, numbers and commands they give. After an answer from search, name its source, e.g.
(source: docs/server.md#postgresql).

Today's date: {system_time}"""

SYSTEM_TIME_PLACEHOLDER = "{system_time}"


def render_system_prompt(template: str, now: datetime | None = None) -> str:
    """The template with `{system_time}` replaced by today's UTC date and weekday.

    Plain replacement rather than `str.format`, so a user's prompt may contain other braces
    (JSON examples, code) without failing the run. The date, not the time: an embedded model
    re-uses its cached prompt only up to the first changed token, and the tool descriptions
    and the whole conversation come after the system prompt, so a time to the minute made the
    model re-read everything each new minute (2,337 cached tokens fell to 82). The exact time
    is one `get_current_time` call away.
    """
    moment = now or datetime.now(tz=UTC)
    # With the weekday: a small model asked "what day is it" cannot work it out from a date.
    today = f"{moment.date().isoformat()} ({moment.strftime('%A')})"
    return template.replace(SYSTEM_TIME_PLACEHOLDER, today)
