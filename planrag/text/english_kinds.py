"""The kind of an English name by the word it ends in, where the capitalised-span typing
(`named_entities._english_type`) reads every two or three capitalised words as a person:
"Redwing Records", "Brackley Conservatory", "the Lantern Society" name organisations, "the
Corran River" a place, and a name written after "The" is a title or a body, not a person.
For the step reader, which wants the name of the type a step asks for."""

from __future__ import annotations

import re

from planrag.text.name_lexicon import EN_ORG_ENDINGS
from planrag.text.named_entities import ORG, PERSON, PLACE

_ORG_WORDS = EN_ORG_ENDINGS | frozenset(
    (
        *("records", "recordings", "music", "society", "conservatory", "academy", "seminary"),
        *("orchestra", "philharmonic", "symphony", "ensemble", "choir", "band", "quartet"),
        *("museum", "gallery", "library", "press", "publishing", "publishers", "studios"),
        *("studio", "pictures", "films", "club", "party", "church", "cathedral", "hospital"),
        *("theatre", "theater", "airlines", "airways", "railway", "railroad", "trust", "union"),
        *("league", "federation", "brewery", "works", "mills", "entertainment", "media"),
        *("network", "broadcasting", "magazine", "times", "gazette", "herald", "tribune"),
    )
)
_PLACE_WORDS = frozenset(
    (
        *("river", "lake", "creek", "bay", "island", "islands", "mountain", "mountains"),
        *("hills", "valley", "county", "city", "town", "village", "province", "state"),
        *("park", "forest", "desert", "sea", "ocean", "peninsula", "coast", "heights"),
        *("springs", "beach", "harbour", "harbor", "district", "region", "canyon", "gulf"),
    )
)
_PLACE_OPENINGS = frozenset(("port", "mount", "lake", "fort", "cape", "isle", "saint", "st"))


def english_kind(name: str, typed: str, sentence: str) -> str:
    """The kind of `name` (typed `typed` by the span typing) as written in `sentence`."""
    words = name.split()
    if not words:
        return typed
    last, first = words[-1].casefold().strip("."), words[0].casefold().strip(".")
    if last in _ORG_WORDS:
        return ORG
    if last in _PLACE_WORDS or (len(words) > 1 and first in _PLACE_OPENINGS):
        return PLACE
    if typed == PERSON and re.search(rf"\bThe\s+{re.escape(name)}", sentence):
        return ""  # "The Salt Road", "The Night Owls": a title or a band, not a person
    return typed
