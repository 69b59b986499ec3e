"""Fixed-size windows over a text, measured in characters or tokens, cut at natural boundaries.

Every span is given as (start, end) character offsets into the whole text, trimmed of surrounding
whitespace and never empty, so `text[start:end]` is exactly the chunk.
"""

from __future__ import annotations

import re
from typing import Literal

from planrag.text.offsets import skip_space, strip_end

Unit = Literal["chars", "tokens"]

# The token a "tokens" size counts: a word (Hangul, Latin, digits, _) or one punctuation mark.
TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")

# Where a window may end, best first. Each pattern gives a cut position (the chunk ends there):
# the start of a paragraph break, just after a sentence end, a line break, any whitespace.
_CUTS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r"\n[^\S\n]*\n"), False),
    (re.compile(r"[.!?\u3002\uff01\uff1f\u2026][\"'\u201d\u2019)\]]*(?=\s)"), True),
    (re.compile(r"\n"), False),
    (re.compile(r"\s"), False),
)
# A window looks for a good cut in its last fifth before cutting hard at its size limit.
_CUT_ZONE = 0.2
# Where a sentence starts: after a sentence end and a space, or after a line break.
_SENTENCE_START = re.compile(
    r"(?:[.!?\u3002\uff01\uff1f\u2026][\"'\u201d\u2019)\]]*\s+|\n\s*)(?=\S)"
)


def count_tokens(text: str) -> int:
    """Number of tokens in `text` as `TOKEN_PATTERN` counts them."""
    return sum(1 for _ in TOKEN_PATTERN.finditer(text))


class Ruler:
    """Measures spans of one text in its unit: characters, or tokens of `TOKEN_PATTERN`."""

    def __init__(self, text: str, unit: Unit) -> None:
        self.text = text
        self.unit = unit

    def length(self, start: int, end: int) -> int:
        """Size of text[start:end] in the unit."""
        if self.unit == "chars":
            return end - start
        return sum(1 for _ in TOKEN_PATTERN.finditer(self.text, start, end))

    def window_end(self, start: int, size: int, bound: int) -> int:
        """The furthest end (at most `bound`) with at most `size` units in text[start:end]."""
        if self.unit == "chars":
            return min(start + size, bound)
        for count, match in enumerate(TOKEN_PATTERN.finditer(self.text, start, bound), start=1):
            if count == size:
                return match.end()
        return bound

    def back_off(self, start: int, end: int, amount: int) -> int:
        """Where a window overlapping the last `amount` units of text[start:end] starts.

        Returns `start` when text[start:end] is not longer than `amount` (no overlap possible).
        The overlap starts at a sentence start: the first inside the overlap, else the last
        within twice the overlap (a whole last sentence longer than the overlap, so no window
        opens mid-sentence: "projectors are designed …" of "Lumen projectors are designed …"),
        else at a word start (characters) or a token (tokens).
        """
        if self.unit == "tokens":
            starts = [m.start() for m in TOKEN_PATTERN.finditer(self.text, start, end)]
            if len(starts) <= amount:
                return start
            back, reach = starts[-amount], starts[-min(2 * amount, len(starts) - 1)]
        else:
            back = end - amount
            if back <= start:
                return start
            reach = max(end - 2 * amount, start + 1)
            if not self.text[back - 1].isspace():
                space = self.text.find(" ", back, end)
                newline = self.text.find("\n", back, end)
                found = [p for p in (space, newline) if p != -1]
                if found:
                    back = skip_space(self.text, min(found), end)
        return _sentence_start(self.text, reach, back, end) or back


def _sentence_start(text: str, reach: int, back: int, end: int) -> int | None:
    """The first sentence start in [back, end), else the last in [reach, back); None if none."""
    starts = [m.end() for m in _SENTENCE_START.finditer(text, max(reach - 8, 0), end)]
    starts = [p for p in starts if reach <= p < end]
    inside = [p for p in starts if p >= back]
    if inside:
        return inside[0]
    before = [p for p in starts if p < back]
    return before[-1] if before else None


def split_windows(
    text: str, start: int, end: int, size: int, overlap: int, ruler: Ruler
) -> list[tuple[int, int]]:
    """Cover text[start:end] with windows of at most `size` units overlapping by about `overlap`.

    Each window prefers to end at a paragraph break, a sentence end, a line break or a space in
    its last fifth; failing that it is cut at exactly `size` units.
    """
    spans: list[tuple[int, int]] = []
    pos = skip_space(text, start, end)
    while pos < end:
        limit = ruler.window_end(pos, size, end)
        if skip_space(text, limit, end) >= end:
            spans.append((pos, strip_end(text, pos, end)))
            break
        cut = _best_cut(text, pos, limit)
        chunk_end = strip_end(text, pos, cut)
        spans.append((pos, chunk_end))
        following = skip_space(text, cut, end)
        if overlap > 0 and following < end:
            back = ruler.back_off(pos, chunk_end, overlap)
            if back > pos:
                following = skip_space(text, back, end)
        pos = following
    return spans


def _best_cut(text: str, pos: int, limit: int) -> int:
    """The best cut in [zone start, limit], or `limit` itself (a hard cut) when there is none."""
    zone_start = pos + max(1, int((limit - pos) * (1 - _CUT_ZONE)))
    if zone_start >= limit:
        return limit
    search_end = min(limit + 1, len(text))  # one more character for the look-ahead
    for pattern, cut_after in _CUTS:
        best = None
        for match in pattern.finditer(text, zone_start, search_end):
            cut = match.end() if cut_after else match.start()
            if zone_start <= cut <= limit:
                best = cut
        if best is not None:
            return best
    return limit
