"""Korean nouns that are one term though Kiwi reads them apart, for the extractive reader.

- A noun and a compound it begins ("고객" and "고객사", "매출액" and "매출"), and a name Kiwi reads
  whole in a question and split in a sentence ("동해캐피털" and 동해 + 캐피털): one of them is
  the first part of the other in one of Kiwi's readings (`korean.splits_into`).
- The kind a 어느/무슨 question asks which one of, and a name of that kind: Korean compounds
  end in their head noun ("서울대학교" is a 학교: `answer_slots.named_kind`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planrag.text.answer_slots import named_kind
from planrag.text.korean import splits_into

__all__ = ["add_kinds_held", "add_names_held", "add_parts_held", "begins"]


def begins(term: str, word: str) -> bool:
    """Whether one of the two nouns is the first part of the other as Kiwi reads it."""
    short, long = sorted((term, word), key=len)
    return len(short) >= 2 and long.startswith(short) and splits_into(long, (short,))


def add_parts_held(asked: Iterable[str], term_lists: list[set[str]]) -> None:
    """Add each asked Korean noun of two syllables or more to the term sets holding a noun
    it begins or that begins it (`begins`). The asked verb's noun is left out by the caller:
    "무엇을 연구하나" asks what is researched, and 연구소 is a thing, not the act."""
    korean = [t for t in asked if len(t) >= 2 and any("가" <= c <= "힣" for c in t)]
    for terms in term_lists:
        for t in korean:
            if t not in terms and any(begins(t, w) for w in terms if w != t):
                terms.add(t)


def add_kinds_held(kinds: Iterable[str], term_lists: list[set[str]]) -> None:
    """Add each asked kind ("학교") to the term sets naming something of it ("서울대학교")."""
    for kind in kinds:
        for terms in term_lists:
            if kind not in terms and any(named_kind(t, kind) for t in terms):
                terms.add(kind)


def add_names_held(compounds: Mapping[str, tuple[str, ...]], term_lists: list[set[str]]) -> None:
    """Add a name the question writes as one word to the term sets holding all its nouns as
    Kiwi read them apart there ("대한물류" of a question, "대한물류의 대표는" read 대한 + 물류):
    Kiwi reads one name two ways by its context, and the question's name is matched whole."""
    for surface, parts in compounds.items():
        name = surface.casefold()
        for terms in term_lists:
            if name not in terms and set(parts) <= terms:
                terms.add(name)
