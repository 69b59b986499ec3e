"""The LLM answer's citations, checked against the passages they cite.

After generation, each sentence of the answer that cites passages ([n]) is compared with each
cited passage: it is supported when the passage holds at least half of the sentence's content
terms (Kiwi nouns, stemmed English words), or, with e5, when one of the passage's sentences is
close to it (cosine at least `SUPPORT_MIN`; this is also how a Korean sentence citing an English
passage is judged). A citation of a passage that was never given is unsupported too. The answer
was streamed already: the unsupported citations are reported in the `end` event
(`unsupported_citations`) and the trace, and left out of `citations`.
"""

from __future__ import annotations

import re

from planrag.services.answers import Passage, UnsupportedCitation
from planrag.services.passage_text import body_sentences, plain_text
from planrag.services.reader import Reader
from planrag.text.korean import split_sentences

SUPPORT_TERMS = 0.5  # share of the sentence's content terms the passage must hold
SUPPORT_MIN = 0.86  # e5 cosine of the sentence to one of the passage's sentences
_CITATION = re.compile(r"\[(\d{1,3})\]")


def cited_sentences(answer: str) -> list[tuple[str, list[int]]]:
    """(sentence without its markers, the passages it cites) for each sentence citing any; a
    marker opening a sentence belongs to the one before it ("… 설립되었다. [1]")."""
    text = plain_text(answer) if answer.lstrip().startswith(("#", "-", "*")) else answer
    spans = split_sentences(text)
    found: list[tuple[str, list[int]]] = []
    for i, (start, end) in enumerate(spans):
        sentence = text[start:end]
        numbers = [int(n) for n in _CITATION.findall(sentence)]
        lead = re.match(r"^(?:\s*\[\d{1,3}\])+", sentence)
        if lead and found and i > 0:  # markers split off the previous sentence
            found[-1][1].extend(int(n) for n in _CITATION.findall(lead.group(0)))
            numbers = numbers[len(_CITATION.findall(lead.group(0))) :]
            sentence = sentence[lead.end() :]
        bare = re.sub(r"\s+([.!?])", r"\1", " ".join(_CITATION.sub(" ", sentence).split()))
        if numbers and bare:
            found.append((bare, numbers))
    return found


def check_citations(
    answer: str, passages: list[Passage], reader: Reader
) -> list[UnsupportedCitation]:
    """The citations of `answer` that their passage does not support."""
    by_n = {p.n: p for p in passages}
    unsupported: list[UnsupportedCitation] = []
    for sentence, numbers in cited_sentences(answer):
        for n in dict.fromkeys(numbers):
            passage = by_n.get(n)
            if passage is None:
                unsupported.append(
                    UnsupportedCitation(n=n, sentence=sentence, reason="no_such_passage")
                )
            elif not _supports(reader, sentence, passage):
                unsupported.append(
                    UnsupportedCitation(n=n, sentence=sentence, reason="not_supported")
                )
    return unsupported


def _supports(reader: Reader, sentence: str, passage: Passage) -> bool:
    terms = reader.terms(sentence)
    if terms and reader.coverage(terms, passage) >= SUPPORT_TERMS:
        return True
    if not reader.has_e5:
        return not terms  # nothing to compare: not held against the answer
    sentences = body_sentences(passage.content)[:40] or [plain_text(passage.content)[:1000]]
    return max(reader.similarities(sentence, sentences), default=0.0) >= SUPPORT_MIN
