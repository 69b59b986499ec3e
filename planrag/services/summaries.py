"""The extractive summary (no LLM, or it failed): the sentences that cover the most of the
documents' key terms, in document order, each cited, within a length budget.

Key terms are the content terms (Kiwi nouns, stemmed English words) that recur: a term's weight
is the number of passages holding it plus a little for repeats, and the query's own terms count
double. Sentences are chosen greedily by the weight of the key terms they add per character, so
a summary says several things rather than one thing several times. It is never empty while a
passage has text: headings-only passages give their text.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

from planrag.services.answers import Passage
from planrag.services.passage_text import body_sentences, plain_text

if TYPE_CHECKING:
    from planrag.services.reader import Reader

SUMMARY_BUDGET = 600  # characters of the summary, citations left out
MAX_SUMMARY_SENTENCES = 6
MIN_SENTENCE_CHARS = 8


def summarize(reader: Reader, query: str, passages: list[Passage]) -> str:
    """Cited sentences summarising the passages ("" only when none has any text)."""
    sentences: list[tuple[int, int, str, set[str]]] = []  # (passage n, position, text, terms)
    for passage in passages:
        texts = [s for s in body_sentences(passage.content) if len(s) >= MIN_SENTENCE_CHARS]
        for position, (text, terms) in enumerate(zip(texts, _terms(reader, texts), strict=True)):
            sentences.append((passage.n, position, text, terms))
    if not sentences:
        return _fallback(passages)
    weights = _key_terms(reader, query, sentences)
    chosen: list[tuple[int, int, str, set[str]]] = []
    covered: set[str] = set()
    length = 0
    pool = list(sentences)
    while pool and len(chosen) < MAX_SUMMARY_SENTENCES:
        best = max(
            pool, key=lambda s: (_gain(s[3] - covered, weights) / math.sqrt(len(s[2])), -s[0])
        )
        pool.remove(best)
        if chosen and (
            _gain(best[3] - covered, weights) <= 0 or length + len(best[2]) > SUMMARY_BUDGET
        ):
            continue
        chosen.append(best)
        covered |= best[3]
        length += len(best[2])
    chosen.sort(key=lambda s: (s[0], s[1]))
    return " ".join(f"{text} [{n}]" for n, _, text, _ in chosen)


def _terms(reader: Reader, texts: list[str]) -> list[set[str]]:
    return [reader.terms(text) for text in texts]


def _key_terms(
    reader: Reader, query: str, sentences: list[tuple[int, int, str, set[str]]]
) -> dict[str, float]:
    in_passages: dict[str, set[int]] = {}
    counts: Counter[str] = Counter()
    for n, _, _, terms in sentences:
        for term in terms:
            in_passages.setdefault(term, set()).add(n)
            counts[term] += 1
    asked = reader.terms(query)
    return {
        term: (len(ns) + 0.5 * math.log(counts[term])) * (2.0 if term in asked else 1.0)
        for term, ns in in_passages.items()
    }


def _gain(terms: set[str], weights: dict[str, float]) -> float:
    return sum(weights.get(t, 0.0) for t in terms)


def _fallback(passages: list[Passage]) -> str:
    """Passages without body sentences (headings, tables): their plain text, cut short."""
    parts = []
    for passage in passages:
        text = " ".join(plain_text(passage.content).split())
        if text:
            parts.append(f"{text[:200]} [{passage.n}]")
    return " ".join(parts[:3])
