"""Stopping a decode that has started to repeat itself word for word.

Greedy decoding of the 1.5B model can fall into a loop ("DNS servers are also responsible for
handling DNS queries for IPv6 addresses, ...") that runs until `max_tokens`; for an agent whose
tools take long arguments that is thousands of tokens, a turn of 300 s that says nothing new.
llama.cpp's DRY sampler did not stop it: the model kept the loop going with a space doubled
here and there. A loop is caught instead on the text itself: once the last `SPAN` characters
already occur earlier in the reply, the reply only repeats, and the decode stops there.
"""

from __future__ import annotations

SPAN = 120
"""Characters a verbatim repeat must run: longer than any phrase an answer or a piece of code
legitimately says twice, shorter than the sentence a loop repeats."""


def repeats_itself(text: str, span: int = SPAN) -> bool:
    """Whether the last `span` characters of `text` already occur earlier in it."""
    if len(text) < 2 * span:
        return False
    return text.find(text[-span:]) < len(text) - span


def before_repeat(text: str, span: int = SPAN) -> str:
    """`text` up to where its repeat began, ending at the last whole sentence or line."""
    kept = text[:-span]
    end = max(kept.rfind(". "), kept.rfind(".\n"), kept.rfind("\n"))
    return kept[: end + 1].rstrip() if end > 0 else kept.rstrip()
