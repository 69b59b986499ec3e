"""One Kiwi analysis per question, shared by every rule of the heuristic planner (time, count and
order words, publication cues, the particles a removed phrase leaves, whether a topic is left).

Kiwi runs once per question and only when the question has Hangul: English questions are read by
word patterns, and their tokens are plain words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HANGUL = re.compile(r"[가-힣]")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*|\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Token:
    """A morpheme (Korean) or a word (English): its form, Kiwi tag and character span."""

    form: str
    tag: str
    start: int
    end: int


@dataclass
class Analysis:
    """The question's morphemes; `korean` says whether Kiwi read it."""

    text: str
    tokens: list[Token] = field(default_factory=list)
    korean: bool = False

    def within(self, start: int, end: int) -> list[Token]:
        """The tokens wholly inside [start, end)."""
        return [t for t in self.tokens if t.start >= start and t.end <= end]

    def index_at(self, start: int) -> int | None:
        """The index of the first token starting at or after `start`."""
        return next((i for i, t in enumerate(self.tokens) if t.start >= start), None)


def analyse(text: str) -> Analysis:
    """The question's morphemes by Kiwi when it has Hangul, else its words."""
    if _HANGUL.search(text):
        from planrag.text.korean import get_kiwi  # loaded once per process, only when needed

        tokens = [Token(t.form, t.tag, t.start, t.start + t.len) for t in get_kiwi().tokenize(text)]
        return Analysis(text, tokens, korean=True)
    tokens = [
        Token(m.group(), "SN" if m.group()[0].isdigit() else "SL", m.start(), m.end())
        for m in _WORD.finditer(text)
    ]
    return Analysis(text, tokens)
