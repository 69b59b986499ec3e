"""What two named subjects share, or where they differ: Korean "공통점 / 차이점" questions.

"한빛로보틱스와 누리테크의 공통점은?" is not answered by the sentence naming both (their
partnership says how they relate, not what each is). Each subject's sentences are those of the
passages naming it (its words, read by Kiwi, particles stripped: "최민" is not "최민호") and not
the other subject; a description ("한빛로보틱스 대표") adds the sentences about a name its own
sentences give ("한빛로보틱스의 대표이사는 김도윤이다" → 김도윤's sentences).

The answer is the pair of sentences, one per subject, sharing the most of what the question
does not say: shared words weighed by their rarity among the sentences read, a pair of the
subjects' first sentences (what each is) preferred. In common, the answer opens with the shared
words ("공통점: 한결대학교, 졸업 — 김도윤 대표는 … [1] 이서준 대표는 … [2]"); a difference
("차이점") opens with "차이점" and the pair sharing an attribute, each sentence holding a word the
other lacks (its subject's value). Without such a pair there is no reading: the ordinary answer
stands.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from planrag.services.answers import Passage
from planrag.services.passage_text import body_sentences
from planrag.services.readings import Reading, ReadSentence
from planrag.text.korean import get_kiwi
from planrag.text.question_shapes import Shared

__all__ = ["read_commonality", "words"]

DEFINING_BONUS = 2.0  # both are the first sentences about their subjects in their passages
NAME_WEIGHT = 2.0  # a shared name (한결대학교, 부산) is a likeness; a shared attribute less so
TOPIC_BONUS = 0.5  # per sentence opening with its subject ("X는 …", "X의 …"): about X
HEADLINE_WORDS = 3
_NOUNISH = ("NN", "SL", "SN", "SH", "XR")
_STOP = ("J", "E", "VCP", "XS")  # where a word's own part ends: particle, ending, copula, suffix


@dataclass
class _Sentence:
    n: int
    text: str
    words: list[str]
    names: list[str]  # its words Kiwi reads as proper nouns (in the sentence)
    topic: bool = False  # the sentence opens with its subject
    first: bool = False  # the first sentence of its passage about the subject: what it is


def words(text: str) -> list[str]:
    """The text's content words: each space-separated word up to its particle, ending or
    suffix (Kiwi's reading), kept when that part holds a noun, a number or a Latin word —
    "한결대학교를" → 한결대학교, "졸업했다" → 졸업, "S2는" → S2."""
    return [w for w, _ in _read(text)]


def _read(text: str) -> list[tuple[str, bool]]:
    """`words`, each with whether Kiwi reads it (in the text) as a proper noun."""
    found: list[tuple[str, bool]] = []
    tokens = get_kiwi().tokenize(text)
    i = 0
    while i < len(tokens):
        start = tokens[i].start
        end = start
        nounish = False
        j = i
        while j < len(tokens) and (
            j == i or tokens[j].start == tokens[j - 1].start + tokens[j - 1].len
        ):
            if tokens[j].tag.startswith(_STOP) and j > i:
                break
            nounish = nounish or (tokens[j].tag.startswith(_NOUNISH) and tokens[j].tag != "NNB")
            end = tokens[j].start + tokens[j].len
            j += 1
        while j < len(tokens) and tokens[j].start == tokens[j - 1].start + tokens[j - 1].len:
            j += 1  # the rest of the word (its particle or ending)
        word = text[start:end]
        if nounish and word.strip():
            head = tokens[i]  # a name: a proper noun, or a noun Kiwi does not know
            found.append((word, head.tag == "NNP" or bool(getattr(head, "oov", False))))
        i = j
    return found


def read_commonality(question: str, passages: Sequence[Passage], shape: Shared) -> Reading | None:
    """The two subjects' sentences sharing most of what the question does not say (see the
    module); None when the passages hold no such pair."""
    read = [
        (p.n, [(s, _read(s)) for s in body_sentences(p.content) if len(s) >= 8]) for p in passages
    ]
    subjects = [words(name) for name in shape.subjects]
    if not all(subjects):
        return None
    about = [_about(read, own, other) for own, other in (subjects, subjects[::-1])]
    for i, own in enumerate(subjects):
        if len(own) > 1:  # a description: add the sentences about the names it gives
            about[i] += _named(read, about[i], own, subjects[1 - i])
    if not all(about):
        return None
    asked = set(words(question)) | set(subjects[0]) | set(subjects[1])
    weights = _rarity([[w for w, _ in held] for _, sentences in read for _, held in sentences])
    best: tuple[float, _Sentence, _Sentence, list[str]] | None = None
    for a in about[0]:
        for b in about[1]:
            shared = [
                w
                for w in dict.fromkeys(a.words)
                if w in b.words and w not in asked and not any(c.isdigit() for c in w)
            ]  # a date or a number two sentences hold is a coincidence, not a likeness
            if not shared or a.text == b.text:
                continue
            if shape.differ and (set(a.words) <= set(b.words) or set(b.words) <= set(a.words)):
                continue
            names = set(a.names) | set(b.names)
            score = sum(weights.get(w, 1.0) * (NAME_WEIGHT if w in names else 1.0) for w in shared)
            score += TOPIC_BONUS * (a.topic + b.topic) + DEFINING_BONUS * (a.first and b.first)
            if best is None or score > best[0]:
                best = (score, a, b, shared)
    if best is None:
        return None
    _, a, b, shared = best
    named = sorted(shared, key=lambda w: -weights.get(w, 1.0))[:HEADLINE_WORDS]
    headline = "차이점" if shape.differ else f"공통점: {', '.join(named)}"
    by_n = {p.n: p for p in passages}
    return Reading(
        question=question,
        answer_type="thing",
        lead=ReadSentence(text=a.text, n=a.n, score=round(best[0], 4)),
        passage=by_n[a.n],
        span=None if shape.differ else named[0],
        confidence=0.5,
        support=[ReadSentence(text=b.text, n=b.n, score=round(best[0], 4))],
        evidence=sorted({a.n, b.n}),
        headline=headline,
    )


def _holds(sentence_words: list[str], name: list[str]) -> bool:
    """Whether a sentence names the subject: each of its words, or a word beginning with it
    that Kiwi reads as more of the same ("대표" in "대표이사", not "최민" in "최민호")."""
    return all(any(w == v or _extends(w, v) for v in sentence_words) for w in name)


def _extends(word: str, longer: str) -> bool:
    if not longer.startswith(word) or longer == word:
        return False
    head = [t.form for t in get_kiwi().tokenize(longer)]
    return bool(head) and head[0] == word


_Read = list[tuple[int, list[tuple[str, list[tuple[str, bool]]]]]]


def _about(read: _Read, own: list[str], other: list[str]) -> list[_Sentence]:
    found = []
    for n, sentences in read:
        first = True
        for text, read_words in sentences:
            held = [w for w, _ in read_words]
            if _holds(held, own) and not _holds(held, other):
                names = [w for w, name in read_words if name]
                found.append(_Sentence(n, text, held, names, _holds(held[:1], own[:1]), first))
                first = False
    return found


def _named(
    read: _Read, sentences: list[_Sentence], own: list[str], other: list[str]
) -> list[_Sentence]:
    """The sentences about the names a description's sentences give (not its own words)."""
    names = {w for s in sentences for w in s.names if not any(_holds([w], [o]) for o in own)}
    seen = {s.text for s in sentences}
    found = []
    for name in names:
        for s in _about(read, [name], other):
            if s.text not in seen:
                s.first = False
                found.append(s)
                seen.add(s.text)
    return found


def _rarity(sentences: list[list[str]]) -> dict[str, float]:
    total = len(sentences)
    counts: dict[str, int] = {}
    for held in sentences:
        for w in set(held):
            counts[w] = counts.get(w, 0) + 1
    return {w: math.log(1 + (total + 1) / (1 + c)) for w, c in counts.items()}
