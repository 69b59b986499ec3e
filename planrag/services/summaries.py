"""The extractive summary (no LLM, or it failed): the sentences of the passages that say the
most about what was asked, in document order, each cited, within a length budget.

A summary is about its query ("누리봇 제품 요약해줘"), not about everything the search returned:

- **On topic.** A sentence is about the query when it names the query's words (at least half
  of their weight by rarity: "김도윤 대표" is about 김도윤, not any 대표), when its passage is
  headed by them (the page "누리봇 제품 안내": every sentence of it), or when it continues a
  sentence of its paragraph that names them (refers back, "그 회사는 …", or shares a word,
  "김도윤 대표는 …. 김 대표는 …"). Other sentences are left out, unless no
  sentence is on topic (then every sentence may be chosen, as a plain summary of the passages).
  A query naming a product model (S2) never gets a sentence about another model only (S1).
- **Focus.** Each passage weighs by its rank (the search's judgement) times the share of the
  query's words it holds, relative to the best passage's.
- **Key terms.** A content term (Kiwi nouns, stemmed English words) weighs by the focus of the
  passages holding it, a little more for repeats, double when the query holds it. Sentences are
  chosen greedily by the weight of the key terms they add per character, times their passage's
  focus and, for a sentence naming the query's words, the share it names, so a summary says
  several things about the topic rather than one thing several times.

It is never empty while a passage has text: headings-only passages give their text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from planrag.services.answers import Passage
from planrag.services.passage_text import plain_blocks, plain_text
from planrag.text.answer_types import model_codes
from planrag.text.korean import split_sentences

if TYPE_CHECKING:
    from planrag.services.reader import Reader

SUMMARY_BUDGET = 600  # characters of the summary, citations left out
MAX_SUMMARY_SENTENCES = 8
MIN_SENTENCE_CHARS = 8
RANK_DECAY = 0.5  # the passage ranked r weighs 1 / (1 + RANK_DECAY·(r − 1)) before its words
UNASKED = 0.25  # what a passage holding none of the query's words keeps of its rank's weight
REFERS_BACK = re.compile(
    r"(?:그|이|해당|같은)\s|(?:It|He|She|They|This|That|These|Those|Its|His|Her|Their)\b"
)
MODEL = re.compile(r"[A-Z]{1,2}\d{1,3}")


class Sentence(NamedTuple):
    n: int  # its passage's number
    position: int  # in reading order (document order within a passage)
    text: str
    terms: set[str]
    on_topic: bool


def summarize(reader: Reader, query: str, passages: list[Passage]) -> str:
    """Cited sentences summarising the passages about the query ("" only when none has text)."""
    asked = reader.terms(query)
    sentences = _sentences(reader, asked, passages)
    codes = _models(query)
    if codes:  # "누리봇 S2 요약": never a sentence about another model only (S1)
        sentences = [s for s in sentences if not (named := _models(s.text)) or named & codes]
    if not sentences:
        return _fallback(passages)
    if any(s.on_topic for s in sentences):
        sentences = [s for s in sentences if s.on_topic]
    focus = _focus(reader, asked, passages)
    weights = _key_terms(asked, sentences, focus)
    chosen: list[Sentence] = []
    covered: set[str] = set()
    length = 0

    def value(s: Sentence) -> float:
        named = 1.0 + (len(s.terms & asked) / len(asked) if asked else 0.0)
        return focus[s.n] * named * _gain(s.terms - covered, weights) / math.sqrt(len(s.text))

    pool = list(sentences)
    while pool and len(chosen) < MAX_SUMMARY_SENTENCES:
        best = max(pool, key=lambda s: (value(s), -s.n))
        pool.remove(best)
        if chosen and (value(best) <= 0 or length + len(best.text) > SUMMARY_BUDGET):
            continue
        chosen.append(best)
        covered |= best.terms
        length += len(best.text)
    chosen.sort(key=lambda s: (s.n, s.position))
    return " ".join(f"{s.text} [{s.n}]" for s in chosen)


class _Read(NamedTuple):
    n: int
    block: int
    text: str
    terms: set[str]
    headed: bool


def _sentences(reader: Reader, asked: set[str], passages: list[Passage]) -> list[Sentence]:
    """The passages' body sentences, each marked on topic or not: its passage is headed by
    the query, or it (or the sentence before it in its paragraph, which it continues) names
    the query's words weighing at least half of them by rarity ("김도윤 대표": 김도윤, not
    any 대표)."""
    found: list[tuple[int, int, str, bool]] = []  # passage n, block, text, headed
    for passage in passages:
        blocks = plain_blocks(passage.content)
        headed = _headed_by(reader, asked, [b.text for b in blocks if b.heading], passage.title)
        for i, block in enumerate(blocks):
            if not block.heading:
                for a, b in split_sentences(block.text):
                    found.append((passage.n, i, block.text[a:b].strip(), headed))
    texts = [text for _, _, text, _ in found]
    terms = reader.terms_many(texts)
    read = [
        _Read(n, i, text, t, headed) for (n, i, text, headed), t in zip(found, terms, strict=True)
    ]
    held = reader.held(asked, texts, terms)
    rarity = {t: math.log(1 + (len(read) + 1) / (1 + sum(t in h for h in held))) for t in asked}
    total = sum(rarity.values())
    names = [bool(asked) and sum(rarity[t] for t in h) >= total / 2 for h in held]
    sentences: list[Sentence] = []
    for i, r in enumerate(read):
        follows = i > 0 and names[i - 1] and read[i - 1][:2] == r[:2] and _continues(read[i - 1], r)
        if len(r.text) >= MIN_SENTENCE_CHARS:
            on_topic = not asked or r.headed or names[i] or follows
            sentences.append(Sentence(r.n, i, r.text, r.terms | held[i], on_topic))
    return sentences


def _continues(before: _Read, sentence: _Read) -> bool:
    """The sentence goes on about the one before it: it refers back ("그 회사는", "It") or
    shares a content term with it ("김도윤 대표는 …. 김 대표는 …")."""
    return bool(REFERS_BACK.match(sentence.text)) or bool(before.terms & sentence.terms)


def _models(text: str) -> set[str]:
    """The product model codes a text names ("S2", "X100"; not "ASIA2025" or "C214")."""
    return {c for c in model_codes(text) if MODEL.fullmatch(c)}


def _focus(reader: Reader, asked: set[str], passages: list[Passage]) -> dict[int, float]:
    """How much each passage is about the query: its rank (the search's judgement), times the
    share of the query's words it holds relative to the best passage's (a passage about
    another subject that shares one word weighs less). Words are not asked across languages."""
    rank = {p.n: 1.0 / (1.0 + RANK_DECAY * i) for i, p in enumerate(passages)}
    if not asked:
        return rank
    held = {p.n: reader.coverage(asked, p) for p in passages}
    best = max(held.values())
    if best <= 0:
        return rank
    return {n: rank[n] * (UNASKED + (1.0 - UNASKED) * held[n] / best) for n in rank}


def _headed_by(reader: Reader, asked: set[str], headings: list[str], title: str | None) -> bool:
    """The passage's headings (or its title, a file name's words) hold at least half of the
    query's words."""
    if not asked:
        return False
    name = Path(title or "").stem.replace("_", " ")
    held = asked & reader.terms(" ".join([*headings, name]))
    return len(held) >= len(asked) / 2


def _key_terms(
    asked: set[str], sentences: list[Sentence], focus: dict[int, float]
) -> dict[str, float]:
    """A term's weight: the focus of the passages holding it (a term the passages about the
    query share is key), a little more for repeats, double for the query's own terms."""
    in_passages: dict[str, set[int]] = {}
    counts: Counter[str] = Counter()
    for sentence in sentences:
        for term in sentence.terms:
            in_passages.setdefault(term, set()).add(sentence.n)
            counts[term] += 1
    return {
        term: (sum(focus[n] for n in ns) + 0.5 * math.log(counts[term]))
        * (2.0 if term in asked else 1.0)
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
