"""Tables in a search result as named cells, long ones cut down to the rows matching the query.

The docs keep their settings, commands and defaults in Markdown tables of 10 to 40 rows. A
passage holding one reaches a small model as a wall of pipes where the row it needs is one of
many that look alike, and the embedded model answered with a neighbouring row's variable, or a
flag for an environment variable (docs/agents/results.md). Keeping the header and the rows that
share the most words with the query (stemmed as the search stems them), in their order, puts
the answer in front of the model and shortens its prompt; a last line says how many rows were
left out, so the model knows to search again with other words. Each row kept is written as
its cells named by their column (`- flag: --port; environment: OLG_PORT; default: 8123`).
Prose is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

KEEP_ROWS = 4
"""Rows kept of a longer table: enough for a near miss beside the best row."""

Analyzer = Callable[[str], Sequence[str]]


def focus_tables(content: str, query: str, analyzer: Analyzer, keep: int = KEEP_ROWS) -> str:
    """`content` with every table's rows written as named cells, and a table of more than `keep`
    rows cut to at most `keep` rows sharing the most query terms (ties: earlier rows first;
    rows sharing none are left out)."""
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
    if len(table) < 2 or not _is_separator(table[1]):
        return table  # no header to name the cells by
    columns, body = _cells(table[0]), table[2:]
    matches = [len(terms & set(analyzer(row))) for row in body]
    if len(body) <= keep or not any(matches):
        kept = body  # short, or nothing to choose by: the model reads it whole
    else:
        matching = [i for i in range(len(body)) if matches[i]]
        kept = [body[i] for i in sorted(sorted(matching, key=lambda i: (-matches[i], i))[:keep])]
    lines = [_labelled(columns, row) for row in kept]
    if len(kept) < len(body):
        lines.append(f"({len(body) - len(kept)} more rows of this table not shown)")
    return lines


def _labelled(columns: list[str], row: str) -> str:
    """`- flag: --port; environment: OLG_PORT; default: 8123`: each cell named by its column.

    In a pipe table the model took the flag for the environment variable one cell over; named
    cells say which is which."""
    cells = _cells(row)
    named = [f"{column}: {cell}" for column, cell in zip(columns, cells, strict=False) if cell]
    return "- " + "; ".join(named)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _is_separator(line: str) -> bool:
    cells = line.strip().strip("|").split("|")
    return all(set(cell.strip()) <= set("-: ") and cell.strip() for cell in cells)
