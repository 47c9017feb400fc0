"""A folder of text documents cut into passages that fit a small model's context.

Markdown files are cut at their headings (outside code fences), so a search hit carries the
path of headings above it ("The agent server: Storage: PostgreSQL") and a link to its section;
sections longer than `MAX_PASSAGE_CHARS` are cut again at blank lines. Other text files are cut
at blank lines only. The heading path is kept apart from the text, because a search ranks a
match in the headings above a match in the text (`search.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DOCUMENT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst"})
MAX_PASSAGE_CHARS = 1200
NOT_SEARCHED = "<!-- search: skip -->"
"""A file holding this line in its first 20 lines is left out of the search. For logs of
measurements kept beside the docs: this project's agent results quote questions and the
model's wrong answers, and took top-3 places from the docs that answer them (5 of 43 tuning
questions, docs/agents/react_agent.md)."""

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True, slots=True)
class Passage:
    """One searchable piece of a document."""

    title: str
    """The document's title and the headings above the passage, joined by ": "."""
    url: str
    content: str
    headings: tuple[str, ...] = ()
    """The headings the title is made of, the document's title first."""


def document_files(root: Path) -> list[Path]:
    """The text documents under `root` (a folder, searched recursively, or one file)."""
    if root.is_file():
        return [root]
    return sorted(
        path
        for path in root.rglob("*")
        if path.suffix.lower() in DOCUMENT_SUFFIXES
        and path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    )


def passages(file: Path, url: str) -> list[Passage]:
    """The passages of one file; `url` is the file's address, anchors are appended to it.
    None for a file marked `NOT_SEARCHED`."""
    text = file.read_text(encoding="utf-8", errors="replace")
    if any(line.strip() == NOT_SEARCHED for line in text.splitlines()[:20]):
        return []
    if file.suffix.lower() not in (".md", ".markdown"):
        return [Passage(file.name, url, chunk) for chunk in _chunks(text)]
    found: list[Passage] = []
    document_title = file.stem
    # (level, text) of the headings above the current line; the document's H1 is its title.
    stack: list[tuple[int, str]] = []
    for heading, body in _sections(text):
        if heading is None:
            path, link = (document_title,), url
        else:
            if not found and not stack and heading[0] == 1:
                document_title = heading[1]
            while stack and stack[-1][0] >= heading[0]:
                stack.pop()
            stack.append(heading)
            path = (document_title, *(t for _, t in stack if t != document_title))
            link = f"{url}#{slug(heading[1])}"
        title = ": ".join(path)
        found.extend(Passage(title, link, chunk, path) for chunk in _chunks(body))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_\[\]()]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _sections(text: str) -> Iterator[tuple[tuple[int, str] | None, str]]:
    """(heading level and text, or None before the first heading; the section's text)."""
    heading: tuple[int, str] | None = None
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            yield heading, "\n".join(lines)
            heading, lines = (len(match.group(1)), match.group(2)), []
        else:
            lines.append(line)
    yield heading, "\n".join(lines)


def _chunks(text: str) -> list[str]:
    """`text` in pieces of at most `MAX_PASSAGE_CHARS`, cut at blank lines where possible."""
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        while len(paragraph) > MAX_PASSAGE_CHARS:
            if current:
                pieces.append(current)
                current = ""
            cut = paragraph.rfind(" ", 0, MAX_PASSAGE_CHARS)
            cut = cut if cut > MAX_PASSAGE_CHARS // 2 else MAX_PASSAGE_CHARS
            pieces.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if current and len(current) + 2 + len(paragraph) > MAX_PASSAGE_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        pieces.append(current)
    return pieces
