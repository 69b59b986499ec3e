"""Character offsets inside a text: whitespace trimming without copying strings."""

from __future__ import annotations


def skip_space(text: str, pos: int, end: int) -> int:
    """The first non-whitespace offset in text[pos:end], or `end`."""
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def strip_end(text: str, start: int, end: int) -> int:
    """`end` moved back over trailing whitespace, not before `start`."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """text[start:end] without surrounding whitespace, as offsets (start == end when blank)."""
    start = skip_space(text, start, end)
    return start, strip_end(text, start, end)
