"""The words an English which/what question describes its answer with (its wh-phrase).

"Which French aristocrat and military officer who fought in … visited The Cellar?" asks for a
French aristocrat and military officer; "What was the slogan that came about from …?" for a
slogan; "… based from what artists song?" for an artist's song. A sentence holding those words
describes a candidate answer ("Gilbert du Motier, Marquis de Lafayette … was a French aristocrat
and military officer …"), while the question's other words describe what the answer relates to.

`asked_head(question)` → the wh-phrase's words, or None (no which/what, or nothing after it
before a verb, a preposition or a clause). "What kind of X" asks about X.
"""

from __future__ import annotations

import re

__all__ = ["asked_head"]

MAX_WORDS = 8  # a wh-phrase longer than this has run into the clause after it

_WH = re.compile(r"\b(?:which|what)\b", re.I)
# "What is the slogan …", "what type of realism": the words between the wh-word and the head.
_LEAD_IN = re.compile(
    r"^\s*(?:(?:is|was|are|were)\s+(?:the|a|an)\s+)?(?:(?:kinds?|types?|sorts?|class(?:es)?)\s+of\s+)?",
    re.I,
)
# Where a wh-phrase ends: an auxiliary, a relative word, a preposition, an article of the next
# phrase ("what genre is the novel" ends at "is").
_END_WORDS = frozenset(
    """is was are were be been being did does do has have had can could will would should may
    might must who whom whose which that where when why how of in on at for with to from by into
    about as after before during under over between than the a an this these those his her its
    their and or""".split()  # noqa: SIM905
)
# "and" joins two heads ("aristocrat and military officer") when a word follows that is no end.
_JOINING = frozenset(("and", "or"))


def asked_head(question: str) -> str | None:
    """The wh-phrase's words after which/what (see the module), or None."""
    found = _WH.search(question)
    if found is None:
        return None
    rest = question[found.end() :]
    rest = rest[_LEAD_IN.match(rest).end() :]  # type: ignore[union-attr]
    words: list[str] = []
    for raw in re.findall(r"[\w'’\"“”.-]+|[,;:?!()]", rest):
        word = raw.strip("\"“”'’.")
        lower = word.lower()
        if not word or raw in ",;:?!()":
            break
        if lower in _JOINING and words:
            words.append(word)
            continue
        if lower in _END_WORDS:
            break
        words.append(word)
        if len(words) >= MAX_WORDS:
            break
    while words and words[-1].lower() in _JOINING:
        words.pop()
    return " ".join(words) or None
