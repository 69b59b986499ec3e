"""The extractive reader: the one sentence of the passages that answers the question, cited.

`read(question, passages)` → `Reading`: the lead sentence, its passage, the answer span found in
it (a name, a date, a number with its unit …) when there is one, a confidence, and at most two
supporting sentences from other passages. Each sentence of the first passages (Kiwi's splitter,
Markdown removed, headings never) is scored with:

- term overlap with the question's content terms (Kiwi nouns, stemmed English words), in the
  sentence and, weaker, in its passage;
- the question's named entities (`text/entities.py`) found in the sentence;
- model numbers: a question about "누리봇 S2" loses every sentence naming only another model
  (S3) and gains those naming S2 or following a sentence that did (the S2 paragraph);
- the expected answer type (`text/answer_types.py`): a "누구" question wants a sentence holding a
  person's name that the question does not already give, "언제" a date, "몇/얼마" a number;
- e5 similarity of sentence and question, when the knowledge base's embedder is e5 (other models
  are not trusted on Korean; without one the signal is left out);
- the passage's rank and the sentence's position.

The evidence check, the terms and e5 similarities are `reader_evidence.ReaderEvidence`, which
`Reader` extends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from planrag.llm.embedders import Embedder
from planrag.services.answers import Passage, is_korean
from planrag.services.passage_text import headed_sentences
from planrag.services.reader_evidence import READ_PASSAGES, ReaderEvidence
from planrag.services.reader_signals import (
    ANSWER_BUDGET,
    Candidate,
    ReadQuestion,
    across,
    confidence,
    model_match,
    rarity,
    renamed_title,
    sentence_key,
    support,
    weighted_share,
)
from planrag.services.readings import Reading, ReadSentence
from planrag.text.answer_slots import asked_kind, asked_particle, named_kind, particles_after
from planrag.text.answer_types import (
    AnswerType,
    Span,
    agents,
    answer_type,
    asked_by_word,
    asked_verb,
    asks_for_agent,
    model_codes,
    name_parts,
    named_again,
    typed_spans,
)
from planrag.text.asked_heads import asked_head
from planrag.text.entities import find_mentions
from planrag.text.korean import opening_subject, written_compounds
from planrag.text.korean_kinds import (
    asked_unit,
    asks_past,
    carries_unit,
    counted_in,
    plans_ahead,
    refined_kind,
)
from planrag.text.korean_synonyms import add_synonyms_held, synonym_patterns
from planrag.text.korean_terms import add_kinds_held, add_names_held, add_parts_held
from planrag.text.question_shapes import is_bridge

__all__ = ["Reader", "Reading", "ReadSentence", "read"]

MAX_SENTENCES = 60  # sentences scored
MIN_SENTENCE_CHARS = 8
SHORTLIST = 12  # sentences of the question's language scored with e5 (half as many of others)
SIMILARITY_WEIGHT = 1.0
TYPE_MISS = 1.5  # a sentence without anything of the asked type cannot answer
BRIDGE_WEIGHT = 0.75  # a sentence of a passage one hop from the question's entities
BRIDGED_WEIGHT = 2.0  # the same when the question describes its answer through a name
BRIDGED_ENTITIES = 0.5  # and naming the question's names there is the first hop, not the answer
AGENT_MATCH = 0.5  # an organisation answering "누가 …했": it can, a person more often does
SLOT_FILLED = 0.5  # a Korean answer span carrying the question word's particle (`answer_slots`)
NEW_NAME = 0.5  # an English what/which question: the sentence names something new
# An asked term its passage's title (English) or its section's heading holds counts this much for
# a sentence that does not name it: every sentence of "Safety audit of the Icheon plant" is about
# the audit, so the one holding "found" is not outdone by the one repeating "safety audit".
# The verb a "What did X find?" question ends in is what it asks: a sentence stating it.
VERB_WEIGHT = 1.0
TOPIC_WEIGHT = 0.5
# The words an English which/what question describes its answer with ("Which Victorian poet
# …"), kept for the second hop (a lead holding them all is the answer, not a first hop). They
# are no scoring signal: weighted 1.5 (session 12) they gained 5 leads on the HotpotQA-200 half
# they were fitted on and lost 2 of 124 held-out questions, pulling the lead to another page of
# the described class ("Which film …" → another film's defining sentence; session 13).
# The kind a Korean 어느/무슨 question asks which one of ("어느 학교"): a sentence naming
# something of that kind ("서울대학교") holds a candidate answer (session 13).
KIND_WEIGHT = 1.5
# A plan or the next occurrence ("다음 회의는 12월 9일에 열린다") for a question in the past
# ("회의 언제 했어?"): what happened is asked (session 15).
AHEAD_WEIGHT = 0.5
# A span in the counter a Korean 몇 asks in ("몇 살": "16세", not "300대"; session 14); a
# sentence whose numbers are all counted in other units gets no type credit (session 15).
UNIT_MATCH = 0.5
_HEADED = ("person", "place", "thing")
# Below this share of what is asked held by any sentence in the question's language, its words
# only name the subject ("Hanbit Robotics" in an English trade-fair note, asked for the CEO):
# the other language's sentences are read by e5 (`reader_signals.across`).
BLIND = 0.5
# A Korean sentence going on about the topic of the sentence before it (both open with it)
# holds that sentence's words this much: "박지은은 … CTO이다. 박지은은 서울대학교를
# 졸업했고 …" is the CTO's school, though it names neither CTO nor 학교.
CONTINUED = TOPIC_WEIGHT


class Reader(ReaderEvidence):
    """Reads passages for one knowledge base's user words, with its embedder when it is e5."""

    # ------------------------------------------------------------------ the question

    def question(self, question: str) -> ReadQuestion:
        """The question as the reader holds it: terms, names, model codes, answer type."""
        return self._question(question, _kind(question))

    def answers_type(self, q: ReadQuestion, sentence: str) -> bool:
        """Whether the sentence holds something of the asked type the question lacks (any
        sentence for a "what" question)."""
        return q.kind == "thing" or bool(self._answer_spans(q, sentence))

    def _question(self, question: str, kind: AnswerType, asked: str | None = None) -> ReadQuestion:
        codes = model_codes(question)
        entities = []
        for mention in find_mentions(question):
            if model_codes(mention.name) and mention.name.upper() in codes:
                continue
            terms = self.terms(mention.name)
            if terms:
                entities.append(terms)
        terms = self.terms(question)
        slot = asked_particle(asked or question) if is_korean(asked or question) else None
        verb = asked_verb(asked or question)
        return ReadQuestion(
            question, terms, entities, codes, kind, is_bridge(question), slot,
            self.terms(verb) & terms if verb else set(),
            self._head(asked or question, kind, terms),
            written_compounds(question) if is_korean(question) else {},
            asked_unit(asked or question) if is_korean(asked or question) else None,
            is_korean(asked or question) and asks_past(asked or question),
        )  # fmt: skip

    def _head(self, question: str, kind: AnswerType, terms: set[str]) -> set[str]:
        """What the question describes its answer as: an English wh-phrase's words, or the
        kind a Korean 어느/무슨 asks which one of ("어느 학교" → 학교)."""
        if is_korean(question):
            noun = asked_kind(question)
            return {noun} & terms if noun else set()
        head = asked_head(question) if kind in _HEADED else None
        return self.terms(head) & terms if head else set()

    # ------------------------------------------------------------------ reading

    def read(
        self,
        question: str,
        passages: Sequence[Passage],
        check: bool = True,
        search_text: str | None = None,
        kind: AnswerType | None = None,
    ) -> Reading:
        """The best sentence of the passages for the question; with `check`, nothing unless a
        passage passes the evidence check (on `search_text` when given: a plan's query). `kind`
        overrides the answer type the question's words give."""
        # Terms and names from the search text (a plan's query has no time words: "9월" is a
        # filter, not a topic); the answer type from the question's own words.
        q = self._question(search_text or question, kind or _kind(question), question)
        evident = self.evidence(search_text or question, passages) if check else None
        evidence = [p.n for p in passages] if evident is None else evident
        reading = Reading(question=question, answer_type=q.kind, evidence=evidence)
        if not evidence:
            return reading
        candidates = self._candidates(q, list(passages[:READ_PASSAGES]))
        if not candidates:
            return reading
        self._score(q, candidates)
        ranked = sorted(candidates, key=lambda c: -c.score)
        lead = ranked[0]
        by_n = {p.n: p for p in passages}
        reading.lead = ReadSentence(text=lead.text, n=lead.n, score=round(lead.score, 4))
        reading.passage = by_n[lead.n]
        reading.span = self._span(q, lead.text)
        reading.headline = self._headline(q, lead.text, by_n[lead.n])
        reading.confidence = confidence(q, lead)
        reading.support = support(q, lead, ranked[1:])
        return reading

    def _bridges(self, q: ReadQuestion, passages: list[Passage]) -> set[int]:
        """The passages one hop from the question's entities: their title, not itself one of
        the question's names, is named in a passage that names them ("the city Munsonville is
        in" → the passage titled "Nelson, New Hampshire", which Munsonville's passage names)."""
        if not q.entities:
            return set()
        named = set().union(*q.entities)
        held = {
            p.n: set(self._tokenizer.tokenize(f"{p.title or ''} {p.content}")) for p in passages
        }
        about = [p.n for p in passages if any(e <= held[p.n] for e in q.entities)]
        bridges = set()
        for p in passages:
            title = self.terms(p.title or "")
            if title and not title <= named and any(title <= held[n] for n in about if n != p.n):
                bridges.add(p.n)
        return bridges

    def _candidates(self, q: ReadQuestion, passages: list[Passage]) -> list[Candidate]:
        seen: set[str] = set()
        english = not is_korean(q.text)  # an English passage's title is its topic
        asks_person = english and q.kind == "person"
        found: list[Candidate] = []
        bridges = self._bridges(q, passages)
        korean = is_korean(q.text)
        for rank, passage in enumerate(passages):
            context = self.coverage(q.terms, passage, q.compounds, q.text) if q.terms else 0.0
            carried: set[str] = model_codes(passage.title or "")
            seen_terms = self.terms(passage.title or "")
            title_key = sentence_key(passage.title or "") or None  # a title line says nothing
            title = self.terms(passage.title or "") if english else set()
            headed = headed_sentences(passage.content)
            sentences = [sentence for sentence, _ in headed]
            term_lists = self.sentence_terms(sentences, q.compounds)
            if korean:
                add_synonyms_held(synonym_patterns(q.text, q.terms), sentences, term_lists)
                add_kinds_held(q.head, term_lists)
                add_parts_held(q.terms - q.verb, term_lists)  # 연구하나: not 연구소
                add_names_held(q.compounds, term_lists)
            headings = {h: self.terms(h) for h in {h for _, h in headed if h}}
            parts = name_parts(" ".join(sentences)) if asks_person else frozenset()
            before: set[str] = set()
            before_subject: str | None = None
            for position, (sentence, terms) in enumerate(zip(sentences, term_lists, strict=True)):
                topic = title | headings.get(headed[position][1], set())
                referent = set(before) if _PRONOUN.match(sentence) else set()
                subject = opening_subject(sentence) if korean else None
                continued = set(before) if subject and subject == before_subject else set()
                before, before_subject = terms, subject
                own = model_codes(sentence)
                carried = own or carried
                seen_terms = seen_terms | terms
                key = sentence_key(sentence)
                if len(sentence) < MIN_SENTENCE_CHARS or key in seen or key == title_key:
                    continue
                seen.add(key)
                found.append(
                    Candidate(
                        rank,
                        passage.n,
                        position,
                        sentence,
                        terms,
                        carried,
                        own,
                        seen_terms,
                        context,
                        passage.n in bridges,
                        topic=topic,
                        referent=referent,
                        continued=continued - terms,
                        name_parts=parts,
                    )  # fmt: skip
                )
                if len(found) >= MAX_SENTENCES:
                    return found
        return found

    def _score(self, q: ReadQuestion, candidates: list[Candidate]) -> None:
        """Every signal but e5 for all sentences; then e5 for a shortlist (the best of each
        language), and the shortlist scored again with it."""
        self._score_all(q, candidates)
        if self._embedder is None:
            return
        korean = is_korean(q.text)
        same = [c for c in candidates if is_korean(c.text) == korean]
        other = [c for c in candidates if is_korean(c.text) != korean]
        shortlist = sorted(same, key=lambda c: -c.score)[:SHORTLIST]
        shortlist += sorted(other, key=lambda c: -c.score)[: SHORTLIST // 2]
        sims = self._similarities(q.text, [c.text for c in shortlist])
        for candidate, sim in zip(shortlist, sims, strict=True):
            candidate.similarity = sim
        self._score_all(q, shortlist)
        if across(q, shortlist, BLIND):
            self._score_all(q, shortlist)
        for c in candidates:
            if all(c is not s for s in shortlist):
                c.score -= SIMILARITY_WEIGHT  # unread by e5: below any shortlisted equal

    def _score_all(self, q: ReadQuestion, candidates: list[Candidate]) -> None:
        english = not is_korean(q.text)
        kind = set() if english else q.head  # English wh-phrases only guide the second hop
        weights = rarity(q.asked | kind, candidates)
        low = min(c.similarity for c in candidates)
        high = max(c.similarity for c in candidates)
        for c in candidates:
            f = c.features
            implied = c.topic | c.continued  # both held at TOPIC_WEIGHT (CONTINUED)
            f["lexical"] = max(
                weighted_share(q.asked, c.terms, weights, implied, TOPIC_WEIGHT),
                c.across,
            )
            f["context"] = max(c.context, c.across)
            f["entities"] = (
                max(
                    sum(
                        1.0 if e <= c.terms | c.referent else 0.5 * (e <= c.seen)
                        for e in q.entities
                    )
                    / len(q.entities),
                    c.across,
                )
                if q.entities
                else 0.0
            )
            f["model"] = model_match(q.codes, c)
            f["type"] = self._type_match(q, c.text, c.name_parts)
            f["similarity"] = (c.similarity - low) / (high - low) if high > low else 0.0
            f["bridge"] = float(c.bridge)
            f["verb"] = float(bool(q.verb) and q.verb <= c.terms)
            f["kind"] = float(any(named_kind(t, k) for k in kind for t in c.terms))
            f["ahead"] = float(q.past and plans_ahead(c.text))
            c.score = (
                2.0 * f["lexical"]
                + 0.5 * f["context"]
                + (BRIDGED_ENTITIES if q.bridged else 1.5) * f["entities"]
                + f["model"]
                + f["type"]
                + SIMILARITY_WEIGHT * f["similarity"]
                + (BRIDGED_WEIGHT if q.bridged else BRIDGE_WEIGHT) * f["bridge"]
                + VERB_WEIGHT * f["verb"]
                + KIND_WEIGHT * f["kind"]
                - AHEAD_WEIGHT * f["ahead"]
                - 0.15 * c.rank
                - 0.02 * c.position
                - (0.3 if len(c.text) > ANSWER_BUDGET else 0.0)
            )

    def _type_match(
        self, q: ReadQuestion, sentence: str, parts: frozenset[str] = frozenset()
    ) -> float:
        if q.kind == "thing":  # Korean: most sentences end in a copula complement, no signal
            new = not is_korean(q.text) and self._answer_spans(q, sentence)
            return NEW_NAME if new else 0.0
        own = self._unnamed(q, typed_spans(sentence, q.kind))
        if q.kind == "person" and not own:  # "Priya will present …" after "Priya Nair (lead)"
            own = self._unnamed(q, named_again(sentence, parts))
        agent = q.kind == "person" and asks_for_agent(q.text)
        found = own + self._unnamed(q, agents(sentence)) if agent else own
        if not found:
            return -TYPE_MISS
        slot = SLOT_FILLED if self._slotted(q, sentence, found) else 0.0
        if q.unit is not None and not any(carries_unit(s.text, q.unit) for s in found):
            return slot  # counted in another unit: "300대" answers no "몇 살"
        return (1.0 if own else AGENT_MATCH) + slot + (UNIT_MATCH if q.unit else 0.0)

    def fills_slot(self, q: ReadQuestion, sentence: str) -> bool:
        """Whether the sentence holds a span of the asked type carrying the question word's
        particle (Korean; never without a slot)."""
        return bool(self._slot_spans(q, sentence))

    def _slot_spans(self, q: ReadQuestion, sentence: str) -> list[str]:
        """The answer spans carrying the question word's particle ("한빛로보틱스에" for "어디에
        투자했나요?"): the argument asked for, not a description of the subject."""
        return [span.text for span in self._slotted(q, sentence, self._found(q, sentence))]

    def _slotted(self, q: ReadQuestion, sentence: str, spans: list[Span]) -> list[Span]:
        if q.slot is None:
            return []
        after = particles_after(sentence)
        return [span for span in spans if after.get(span.end) == q.slot]

    def _answer_spans(self, q: ReadQuestion, sentence: str) -> list[str]:
        return [span.text for span in self._found(q, sentence)]

    def _found(self, q: ReadQuestion, sentence: str) -> list[Span]:
        """Spans of the expected type that the question does not already name (for a Korean
        "누가 …했" question, organisations too)."""
        found = typed_spans(sentence, q.kind)
        if q.kind == "person" and asks_for_agent(q.text):
            found = [*found, *agents(sentence)]
        return self._unnamed(q, found)

    def _unnamed(self, q: ReadQuestion, spans: list[Span]) -> list[Span]:
        """The spans the question does not already name."""
        kept = []
        for span in spans:
            if q.kind in ("date", "number"):
                if span.text.replace(" ", "") not in q.text.replace(" ", ""):
                    kept.append(span)
            elif (terms := self.terms(span.text)) and not terms <= q.terms:
                kept.append(span)
        return kept

    def headline(self, q: ReadQuestion, sentence: str, passage: Passage) -> str | None:
        return self._headline(q, sentence, passage)

    def span(self, q: ReadQuestion, sentence: str) -> str | None:
        return self._span(q, sentence)

    def _headline(self, q: ReadQuestion, sentence: str, passage: Passage) -> str | None:
        """The short answer to open with, where it is clear: the one span of the asked type
        the sentence holds (not at its start), or, for an English sentence opening with a
        pronoun, the passage's title when it is a name the question does not give ("He debuted
        in 2008 …" in the passage titled "Henry Lau")."""
        if q.kind == "thing" and is_korean(q.text):
            return None
        clear = q.kind != "thing" and asked_by_word(q.text)
        spans = {
            span
            for span in (self._answer_spans(q, sentence) if clear else [])
            if q.kind != "number" or not span.isdigit() or len(span) >= 3  # "제3의", "<표 21>"
        }
        title = (passage.title or "").strip()
        renamed = q.kind == "person" and renamed_title(title, sentence)
        if renamed and not self.terms(title) <= q.terms:
            return title  # "Chiwetel Umeadi Ejiofor, CBE (born …) is …" on "Chiwetel Ejiofor"
        slotted = set(self._slot_spans(q, sentence)) & spans
        kinds = {s for s in spans if any(named_kind(s, kind) for kind in q.head)}
        counted = {s for s in spans if q.unit is not None and counted_in(s, q.unit, sentence)}
        if len(spans) > 1 and len(slotted) == 1:
            spans = slotted  # "한빛로보틱스에 … 투자했고, 나머지 … 동해캐피털이 투자했다"
        elif len(spans) > 1 and len(kinds) == 1 and is_korean(q.text):
            spans = kinds  # "어느 학교": "박지은은 서울대학교 … 졸업했고, … 한빛로보틱스에"
        elif len(spans) > 1 and len(counted) == 1:
            spans = counted  # "몇 살": "씽씽E는 만 16세 이상만 …, 300대"
        if len(spans) == 1:
            span = spans.pop()
            named = q.kind != "person" or not re.search(rf"\bthe {re.escape(span)}", sentence)
            return span if named and not sentence.startswith(span) else None  # "the Time Quintet"
        if (
            q.kind != "date"
            and q.kind != "number"
            and not spans
            and _PRONOUN.match(sentence)
            and title[:1].isupper()
            and len(title.split()) <= 6
            and not self.terms(title) <= q.terms
        ):
            return title
        return None

    def _span(self, q: ReadQuestion, sentence: str) -> str | None:
        """The sentence's first span of the asked type; the one filling the question word's
        slot when one does ("박지은" of "윤서연 팀장은 박지은 CTO에게 보고한다" for "누구에게")."""
        found = self._found(q, sentence)
        slotted = self._slotted(q, sentence, found)
        spans = slotted if len(slotted) == 1 else found
        return spans[0].text if spans else None


_PRONOUN = re.compile(r"(?:He|She|It|They|His|Her|Its|Their|This|These)\b")


def _kind(question: str) -> AnswerType:
    """The answer type a question's words give (Korean: its counter and named noun too)."""
    kind = answer_type(question)
    return refined_kind(question, kind) if is_korean(question) else kind


def read(
    question: str,
    passages: Sequence[Passage],
    embedder: Embedder | None = None,
    user_words: Sequence[str] = (),
    floor: float = 0.5,
) -> Reading:
    """Read the passages for the question (see `Reader`); the one call a plan step needs."""
    return Reader(user_words, floor, embedder).read(question, passages)
