"""The answer without an LLM: sentences of the passages, each with its citation.

- Passages are read as Markdown and turned into plain text (markdown-it-py): no `#`, `**`, links
  or table pipes in the answer, and headings are never answer sentences (a heading alone says
  nothing).
- A sentence appears once, under the first (best) passage holding it, even when two passages or
  two documents repeat it.
- Relevance: the share of the question's content terms (Kiwi nouns, stemmed English words, minus
  generic request words such as 기사/글/문서/article) that a passage holds. Below the floor
  (`PLANRAG_ASK__RELEVANCE_FLOOR`, 0.5) for every passage there is no answer: the caller says
  plainly that nothing relevant was found. Retrieval scores are no measure of this (a fused score
  normalises the best BM25 hit to 1, and a weak model's cosine is high for anything).
- With a limit ("2개만"), each of the documents gets its own line; without one, the best
  sentences of the top three passages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from planrag.planner.query_text import generic_terms
from planrag.services.answers import Passage
from planrag.text.korean import split_sentences
from planrag.text.tokenizer import tokenizer_for

SENTENCES = 3
PASSAGES = 3
MIN_SENTENCE_CHARS = 8
_WORD = re.compile(r"\w", re.UNICODE)


@dataclass(frozen=True)
class Block:
    text: str
    heading: bool


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def plain_blocks(text: str) -> list[Block]:
    """The text's blocks as plain text: headings marked, Markdown syntax gone."""
    blocks: list[Block] = []
    heading = False
    for token in _markdown().parse(text):
        if token.type == "heading_open":
            heading = True
        elif token.type == "heading_close":
            heading = False
        elif token.type == "inline":
            plain = _inline_text(token.children or [])
            if plain.strip():
                blocks.append(Block(" ".join(plain.split()), heading))
        elif token.type in ("code_block", "fence") and token.content.strip():
            blocks.append(Block(" ".join(token.content.split()), False))
    return blocks


def _inline_text(children: Sequence) -> str:  # type: ignore[type-arg]
    parts = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)  # its alt text
    return "".join(parts)


def plain_text(text: str) -> str:
    """The text without Markdown syntax, headings included, one block per line."""
    return "\n".join(block.text for block in plain_blocks(text))


class Extractor:
    """Builds extractive answers with one knowledge base's user words (Kiwi spans)."""

    def __init__(self, user_words: Sequence[str] = (), floor: float = 0.5) -> None:
        self._tokenizer = tokenizer_for(user_words)
        self._floor = floor
        self._generic = generic_terms(self._tokenizer)

    def terms(self, text: str) -> set[str]:
        """The content terms of a question."""
        return {t for t in self._tokenizer.tokenize(text) if t not in self._generic}

    def coverage(self, terms: set[str], passage: Passage) -> float:
        """The share of the terms the passage holds (1 when the question has none)."""
        if not terms:
            return 1.0
        return len(terms & set(self._tokenizer.tokenize(plain_text(passage.content)))) / len(terms)

    def relevant(self, question: str, passages: list[Passage]) -> bool:
        """Whether any passage holds enough of the question's content terms."""
        terms = self.terms(question)
        return any(self.coverage(terms, p) >= self._floor for p in passages[:PASSAGES])

    def answer(self, question: str, passages: list[Passage], per_document: int | None) -> str:
        """Cited sentences; "" when nothing is relevant enough to answer from."""
        terms = self.terms(question)
        pool = passages[: per_document or PASSAGES]
        pool = [p for p in pool if self.coverage(terms, p) >= self._floor]
        candidates = self._sentences(pool, terms)
        if per_document:  # one line per document: its best sentence (or its first)
            lines = []
            for passage in pool:
                own = [c for c in candidates if c[1] == passage.n]
                if own:
                    best = max(own, key=lambda c: (c[4], -c[2]))
                    lines.append(f"{_label(passage)}: {best[3]} [{passage.n}]")
            return "\n".join(lines)
        if terms and self._floor > 0:  # with no floor (a summary), the leading sentences do
            candidates = [c for c in candidates if c[4] > 0]
        chosen = sorted(candidates, key=lambda c: -c[0])[:SENTENCES]
        chosen.sort(key=lambda c: (c[1], c[2]))
        return " ".join(f"{c[3]} [{c[1]}]" for c in chosen)

    def _sentences(
        self, passages: list[Passage], terms: set[str]
    ) -> list[tuple[float, int, int, str, int]]:
        """(score, passage n, position, sentence, overlap) of the passages' body sentences;
        each sentence once, under the first passage holding it."""
        seen: set[str] = set()
        found: list[tuple[float, int, int, str, int]] = []
        for rank, passage in enumerate(passages):
            for position, sentence in enumerate(_body_sentences(passage.content)):
                key = "".join(_WORD.findall(sentence.casefold()))
                if len(sentence) < MIN_SENTENCE_CHARS or key in seen:
                    continue
                seen.add(key)
                overlap = len(terms & set(self._tokenizer.tokenize(sentence)))
                score = overlap - 0.1 * rank - 0.01 * position
                found.append((score, passage.n, position, sentence, overlap))
        return found


def _body_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    for block in plain_blocks(text):
        if block.heading:
            continue
        sentences.extend(block.text[a:b] for a, b in split_sentences(block.text))
    return sentences


def _label(passage: Passage) -> str:
    title = plain_text(passage.title or "") or passage.doc_id
    return f"{title} ({passage.date})" if passage.date else title
