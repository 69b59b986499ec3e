"""The answer without an LLM, built on the extractive reader (`reader.py`).

- A question gets the reader's lead sentence, cited, and at most two supporting sentences.
- With a limit ("2개만") or a listing, each of the documents gets its own line: its title (and
  date) and its best sentence.
- A summary request ("요약해줘", /prompt/summarize) gets an extractive summary (`summaries.py`).
- Passages are plain text (`passage_text.py`): no Markdown syntax, headings or front matter.
- Relevance is the reader's evidence check: below it for every passage there is no answer, and
  the caller says plainly that nothing relevant was found.
"""

from __future__ import annotations

from collections.abc import Sequence

from planrag.llm.embedders import Embedder
from planrag.services.answers import Passage
from planrag.services.passage_text import body_sentences, plain_text
from planrag.services.reader import Reader, Reading
from planrag.services.summaries import summarize

__all__ = ["Extractor", "plain_text"]


class Extractor:
    """Builds extractive answers with one knowledge base's user words (Kiwi spans) and, when it
    is e5, its embedder."""

    def __init__(
        self,
        user_words: Sequence[str] = (),
        floor: float = 0.5,
        embedder: Embedder | None = None,
        cross_lingual_min: float | None = None,
    ) -> None:
        extra = {} if cross_lingual_min is None else {"cross_lingual_min": cross_lingual_min}
        self.reader = Reader(user_words, floor, embedder, **extra)
        self._floor = floor

    def relevant(self, question: str, passages: list[Passage]) -> bool:
        """Whether any passage passes the evidence check."""
        return bool(self.reader.evidence(question, passages))

    def read(
        self, question: str, passages: list[Passage], search_text: str | None = None
    ) -> Reading:
        """The reader's reading; the evidence check runs on `search_text` (the plan's query,
        without time words) when given, and not at all without a floor."""
        return self.reader.read(question, passages, check=self._floor > 0, search_text=search_text)

    def answer(self, question: str, passages: list[Passage], per_document: int | None) -> str:
        """Cited sentences; "" when nothing is relevant enough to answer from."""
        if per_document:
            pool = passages[:per_document]
            if self._floor > 0:
                evident = set(self.reader.evidence(question, pool))
                pool = [p for p in pool if p.n in evident]
            return self.listing(question, pool)
        return self.read(question, passages).text()

    def listing(self, question: str, passages: list[Passage]) -> str:
        """One line per document: its label and its best sentence (or its first)."""
        lines = []
        for passage in passages:
            reading = self.reader.read(question, [passage], check=False)
            if reading.lead is not None:
                lines.append(f"{_label(passage)}: {reading.lead.text} [{passage.n}]")
            else:
                first = next(iter(body_sentences(passage.content)), "")
                if first:
                    lines.append(f"{_label(passage)}: {first} [{passage.n}]")
        return "\n".join(lines)

    def summary(self, query: str, passages: list[Passage]) -> str:
        """An extractive summary of the passages passing the evidence check ("" if none)."""
        if self._floor > 0:
            evident = set(self.reader.evidence(query, passages))
            passages = [p for p in passages if p.n in evident]
        return summarize(self.reader, query, passages) if passages else ""


def _label(passage: Passage) -> str:
    title = plain_text(passage.title or "") or passage.doc_id
    return f"{title} ({passage.date})" if passage.date else title
