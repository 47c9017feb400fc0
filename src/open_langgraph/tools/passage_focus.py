"""Long tables in a search result cut down to the rows that match the query.

The docs keep their settings, commands and defaults in Markdown tables of 10 to 40 rows. A
passage holding one reaches a small model as a wall of pipes where the row it needs is one of
many that look alike, and the embedded model answered with a neighbouring row's variable, or a
flag for an environment variable (docs/agents/results.md). Keeping the header and the rows that
share the most words with the query (stemmed as the search stems them), in their order, puts
the answer in front of the model and shortens its prompt; a last line says how many rows were
left out, so the model knows to search again with other words. Prose is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

KEEP_ROWS = 4
"""Rows kept of a longer table: enough for a near miss beside the best row."""

Analyzer = Callable[[str], Sequence[str]]


def focus_tables(content: str, query: str, analyzer: Analyzer, keep: int = KEEP_ROWS) -> str:
    """`content` with every table of more than `keep` body rows cut to its header and at most
    `keep` rows sharing the most query terms (ties: earlier rows first; rows sharing none are
    left out)."""
    terms = set(analyzer(query))
    if not terms:
        return content
    lines = content.split("\n")
    out: list[str] = []
    start = 0
    while start < len(lines):
        if not _is_row(lines[start]):
            out.append(lines[start])
            start += 1
            continue
        end = start
        while end < len(lines) and _is_row(lines[end]):
            end += 1
        out.extend(_focused(lines[start:end], terms, analyzer, keep))
        start = end
    return "\n".join(out)


def _focused(table: list[str], terms: set[str], analyzer: Analyzer, keep: int) -> list[str]:
    header = 2 if len(table) > 1 and _is_separator(table[1]) else 0
    body = table[header:]
    if len(body) <= keep:
        return table
    matches = [len(terms & set(analyzer(row))) for row in body]
    if not any(matches):
        return table  # nothing to choose by: the model reads it whole
    matching = [i for i in range(len(body)) if matches[i]]
    best = sorted(matching, key=lambda i: (-matches[i], i))[:keep]
    kept = [body[i] for i in sorted(best)]
    left_out = len(body) - len(kept)
    return [*table[:header], *kept, f"({left_out} more rows of this table not shown)"]


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _is_separator(line: str) -> bool:
    cells = line.strip().strip("|").split("|")
    return all(set(cell.strip()) <= set("-: ") and cell.strip() for cell in cells)
