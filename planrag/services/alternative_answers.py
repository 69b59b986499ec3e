"""The answer to an alternative question ("Is City University public or private?",
"한빛로보틱스는 상장사인가요 비상장사인가요?", `text/alternatives.py`): the value, not "Yes".

Of the passages' sentences saying exactly one of the two values, the one sharing most words with
the rest of the question (what the value is said of) leads, headed by its value; on a tie the
earlier passage's (the answer's passages are in rank order: a step's looked-up page first). When
the sentence best matching the subject says no value but names another passage's title ("…
Professor Ana Reyes, who served as Professor of Lindell University"), that passage's sentences
count one word more: the subject is reached through it (the adaptive step's lookup). A
sentence saying both values settles nothing; no sentence sharing a word with the subject: no
choice (the ordinary answer stands). Only read once the ordinary reading found evidence: the
values alone are no evidence that the passages are about the subject.
"""

from __future__ import annotations

from collections.abc import Sequence

from planrag.services.answers import Passage
from planrag.services.passage_text import body_sentences
from planrag.services.reader import Reader
from planrag.services.readings import Reading, ReadSentence
from planrag.text.alternatives import Alternative, alternative

CHOICE_CONFIDENCE = 0.5


def read_alternative(reader: Reader, question: str, passages: Sequence[Passage]) -> Reading | None:
    """The value the passages say of the question's subject, leading its sentence; None when
    the question is no alternative or no sentence settles it."""
    shape = alternative(question)
    if shape is None:
        return None
    subject = reader.terms(shape.rest)
    bridged = _bridged(reader, shape, subject, passages)
    best: tuple[tuple[int, int, int], str, ReadSentence] | None = None
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(body_sentences(passage.content)):
            value = _one_value(reader, shape, sentence)
            held = len(subject & reader.terms(sentence))
            if value is None or held == 0:
                continue
            held += passage.n in bridged
            key = (held, -rank, -position)
            if best is None or key > best[0]:
                best = (key, value, ReadSentence(text=sentence, n=passage.n, score=held))
    if best is None:
        return None
    _, value, lead = best
    return Reading(
        question=question,
        answer_type="thing",
        lead=lead,
        passage=next(p for p in passages if p.n == lead.n),
        span=value,
        confidence=CHOICE_CONFIDENCE,
        evidence=[lead.n],
        headline=value,
    )


def _bridged(
    reader: Reader, shape: Alternative, subject: set[str], passages: Sequence[Passage]
) -> set[int]:
    """The passages whose titles the subject's best sentence names, when it says no value."""
    best = max(
        (
            (len(subject & reader.terms(s)), -rank, s)
            for rank, p in enumerate(passages)
            for s in body_sentences(p.content)
        ),
        default=None,
    )
    if best is None or best[0] == 0 or _said(reader, shape, best[2]):
        return set()
    return {p.n for p in passages if p.title and p.title in best[2]}


def _said(reader: Reader, shape: Alternative, sentence: str) -> list[str]:
    """The values the sentence holds (every word; a number as written)."""
    held = reader.terms(sentence)
    return [
        v for v in shape.values if ((terms := reader.terms(v)) and terms <= held) or v in sentence
    ]


def _one_value(reader: Reader, shape: Alternative, sentence: str) -> str | None:
    """The one value the sentence says (the longer when one holds the other's words:
    "비상장사" holds "상장사"); None for neither or both."""
    said = _said(reader, shape, sentence)
    if len(said) == 2:
        first, second = (reader.terms(v) for v in shape.values)
        if first < second or second < first:
            return max(said, key=lambda v: len(reader.terms(v)))
        return None
    return said[0] if said else None
