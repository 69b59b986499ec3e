"""Markdown structure for the context-aware chunker: heading sections and paragraphs, as offsets."""

from __future__ import annotations

import re
from itertools import pairwise

from planrag.text.offsets import trim

# An ATX heading: up to three spaces, 1-6 '#', then a space and text (or nothing). "#tag" is not.
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t].*)?")
# A fenced code block opens and closes with ``` or ~~~; '#' lines inside are code, not headings.
_FENCE = re.compile(r" {0,3}(```|~~~)")
_BLANK_LINES = re.compile(r"\n[^\S\n]*\n\s*")


def heading_offsets(text: str) -> list[int]:
    """Offsets of the lines of `text` that are Markdown headings, outside fenced code blocks."""
    offsets: list[int] = []
    fence: str | None = None
    offset = 0
    for line in text.split("\n"):
        opener = _FENCE.match(line)
        if opener is not None and (fence is None or opener.group(1) == fence):
            fence = opener.group(1) if fence is None else None
        elif fence is None and _HEADING.fullmatch(line):
            offsets.append(offset)
        offset += len(line) + 1
    return offsets


def split_sections(text: str) -> list[tuple[int, int]]:
    """Sections of `text`: each starts at a heading (kept in it) and runs to the next heading.

    Text before the first heading is a section of its own; blank sections are dropped. A heading
    with no text under it (a document title over its first "## 제1조") opens the next section
    rather than being one: a heading joins the text under it, never a chunk of its own.
    """
    bounds = [0, *heading_offsets(text), len(text)]
    sections = [trim(text, start, end) for start, end in pairwise(bounds)]
    joined: list[tuple[int, int]] = []
    opening: int | None = None  # the start of bare headings waiting for their text
    for start, end in sections:
        if start >= end:
            continue
        if _HEADING.fullmatch(text[start:end]):
            opening = start if opening is None else opening
            continue
        joined.append((start if opening is None else opening, end))
        opening = None
    if opening is not None:  # headings closing the document: they stay with what is above
        if joined:
            joined[-1] = (joined[-1][0], trim(text, opening, len(text))[1])
        else:
            joined.append(trim(text, opening, len(text)))
    return joined


def split_paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Paragraphs of text[start:end] (separated by blank lines), trimmed, none blank."""
    paragraphs: list[tuple[int, int]] = []
    pos = start
    for match in _BLANK_LINES.finditer(text, start, end):
        paragraphs.append(trim(text, pos, match.start()))
        pos = match.end()
    paragraphs.append(trim(text, pos, end))
    return [(s, e) for s, e in paragraphs if s < e]
