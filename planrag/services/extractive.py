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

from collections.abc import Mapping, Sequence

from planrag.core.types import CrossFloors, GraphPath
from planrag.llm.embedders import Embedder
from planrag.services.alternative_answers import read_alternative
from planrag.services.answers import Passage, is_korean
from planrag.services.comparisons import shaped_reading, subjects_found
from planrag.services.missing_details import missing_detail
from planrag.services.passage_text import body_sentences, plain_text
from planrag.services.reader import Reader, Reading, ReadSentence
from planrag.services.second_hop import second_hop
from planrag.services.summaries import summarize
from planrag.text.answer_types import answer_type
from planrag.text.joined_questions import JoinedQuestions, joined_questions
from planrag.text.korean import particle_for

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
        cross_floors: Mapping[str, CrossFloors] | None = None,
    ) -> None:
        extra = {} if cross_lingual_min is None else {"cross_lingual_min": cross_lingual_min}
        self.reader = Reader(user_words, floor, embedder, cross_floors=cross_floors, **extra)
        self._floor = floor

    def relevant(self, question: str, passages: list[Passage]) -> bool:
        """Whether any passage passes the evidence check, or, for a comparison or a yes/no
        question about named subjects, whether the passages settle it (each subject's own)."""
        if self.reader.evidence(question, passages):
            return True
        return self._floor > 0 and (
            subjects_found(self.reader, question, passages)
            or shaped_reading(self.reader, question, passages) is not None
        )

    def read(
        self, question: str, passages: list[Passage], search_text: str | None = None
    ) -> Reading:
        """The reader's reading; the evidence check runs on `search_text` (the plan's query,
        without time words) when given, and not at all without a floor. A comparison or a
        yes/no question gets its choice or verdict (`comparisons.py`) when the passages settle
        it. Two questions asked as one (`text/joined_questions.py`) get both readings."""
        joined = joined_questions(question) if is_korean(question) else None
        if joined is not None:
            both = self._read_both(joined, passages)
            if both is not None:
                return both
        reading = self.reader.read(
            question, passages, check=self._floor > 0, search_text=search_text
        )
        # A choice or a verdict is its own evidence: every subject it names has its passage,
        # which holds the subject's name though not the question's other words ("from the
        # same country" is in no passage); unsettled, the ordinary reading of those passages.
        shaped = shaped_reading(self.reader, question, passages)
        if shaped is not None:
            return shaped
        if (
            reading.lead is None
            and self._floor > 0
            and subjects_found(self.reader, question, passages)
        ):
            return self.reader.read(question, passages, check=False, search_text=search_text)
        if reading.lead is not None:  # "… public or private?": the value the evidence says
            chosen = read_alternative(self.reader, question, passages)
            if chosen is not None:
                return chosen
        reading = second_hop(self.reader, question, passages, reading) or reading
        if reading.lead is not None and self._floor > 0:
            missing = missing_detail(self.reader, question, passages, reading.passage)
            if missing is not None:  # what they lack first, then what they hold
                reading.absent = missing.sentence()
        return reading

    def _read_both(self, joined: JoinedQuestions, passages: list[Passage]) -> Reading | None:
        """The first part's reading, then the second's, each cited; the second part asked
        about the first's answer when the first asks who ("누리테크 대표는 누구고 전에 어디서
        일했어?" → "이서준은 전에 어디서 일했어?"). None when the first part finds nothing
        (the whole question is read instead)."""
        first = self.read(joined.first, passages)
        if first.lead is None:
            return None
        who = first.headline or first.span if joined.asks_who else None
        asked = f"{who}{particle_for(who, '는')} {joined.rest}" if who else joined.second
        second = self.read(asked, passages)
        shown = {s.text for s in [first.lead, *first.support]}
        if second.lead is not None and second.lead.text not in shown:
            first.support = [s for s in first.support if s.text != second.lead.text]
            second.support = []  # the second answer's own sentence, within the budget
            first.then = second
        return first

    def answer(
        self,
        question: str,
        passages: list[Passage],
        per_document: int | None,
        path: GraphPath | None = None,
    ) -> str:
        """Cited sentences; "" when nothing is relevant enough to answer from. With a graph
        path (multi-hop, `executors/graph_paths.py`) the answer is the path's end, in the
        sentences that state its steps."""
        if path is not None and not per_document:
            reading = path_reading(question, passages, path)
            if reading is not None:
                return reading.text()
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


def path_reading(question: str, passages: list[Passage], path: GraphPath) -> Reading | None:
    """The reading a graph path gives: the sentence stating its last step leads (it names the
    answer), the earlier steps' sentences support it, each cited; None when the passages do
    not hold the last step's sentence."""
    by_chunk = {p.chunk_id: p for p in passages}
    steps = list(zip(path.entities, path.entities[1:], path.chunks, strict=False))
    stated: list[ReadSentence] = []
    for here, there, chunk in reversed(steps):
        passage = by_chunk.get(chunk)
        sentence = _stating(passage, here, there) if passage is not None else None
        if sentence is None or passage is None:
            if not stated:
                return None  # the answer's own sentence is not among the passages
            continue
        if all(s.text != sentence for s in stated):
            stated.append(ReadSentence(text=sentence, n=passage.n, score=1.0))
    lead = by_chunk[path.chunks[-1]]
    return Reading(
        question=question,
        answer_type=answer_type(question),
        lead=stated[0],
        passage=lead,
        span=path.answer,
        confidence=1.0,
        support=stated[1:],
        evidence=sorted({s.n for s in stated}),
    )


def _stating(passage: Passage, here: str, there: str) -> str | None:
    """The passage's first sentence naming both ends of a step (else one naming the far end)."""
    sentences = body_sentences(passage.content)
    both = [s for s in sentences if here in s and there in s]
    named = both or [s for s in sentences if there in s]
    return named[0] if named else None


def _label(passage: Passage) -> str:
    title = plain_text(passage.title or "") or passage.doc_id
    return f"{title} ({passage.date})" if passage.date else title
