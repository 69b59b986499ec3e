"""Text cleaning applied to every parsed document before chunking."""

from __future__ import annotations

import re
import unicodedata

# Line-like separators become a newline rather than vanishing, so words on either side stay apart.
_LINE_BREAKS = re.compile(r"\r\n|[\r\v\f\x85\u2028\u2029]")
# C0/C1 controls except \t and \n, plus invisible format characters that only get in the way of
# search (BOM, zero-width space, soft hyphen). ZWJ/ZWNJ stay: emoji and some scripts need them.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff\u200b\u00ad]")
# Any horizontal whitespace run (spaces, tabs, NBSP, ideographic space, ...).
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")
_TRAILING_SPACE = re.compile(r" +$", re.MULTILINE)
_EXTRA_BLANK_LINES = re.compile(r"\n{3,}")
# "exam-\nple" -> "example": a Latin letter, a hyphen at the end of a line, a lowercase Latin letter
# starting the next line. Hangul never hyphenates, so it is left alone.
_HYPHEN_BREAK = re.compile(r"(?<=[A-Za-z\u00c0-\u024f])-\n ?(?=[a-z\u00df-\u024f])")


def clean_text(text: str) -> str:
    """Normalise text for indexing.

    NFC; CRLF/CR (and other line separators) to LF; control and invisible characters removed
    (LF and tab kept, tabs then collapse with spaces); runs of horizontal whitespace to one space;
    trailing spaces per line stripped; two or more blank lines to one blank line; Latin words
    hyphenated across a line break joined; leading/trailing blank space of the whole text removed.
    """
    text = unicodedata.normalize("NFC", text)
    text = _LINE_BREAKS.sub("\n", text)
    text = _INVISIBLE.sub("", text)
    text = _HORIZONTAL_SPACE.sub(" ", text)
    text = _TRAILING_SPACE.sub("", text)
    text = _HYPHEN_BREAK.sub("", text)
    text = _EXTRA_BLANK_LINES.sub("\n\n", text)
    return text.strip()
