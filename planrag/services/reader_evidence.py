"""The reader's evidence check: whether the passages hold anything to answer from.

The evidence check (`Reader.evidence`) decides whether there is anything to answer from: a
passage passes when it holds enough of the question's content terms (the relevance floor; a
Korean term Kiwi read differently in the passage is looked for again with the question's terms
given to Kiwi as words, since Kiwi splits "내선 2040으로" into 내 + 서 without them), or,
when question and passage are in different languages (an English question over Korean
documents), when its e5 similarity to the question reaches `cross_lingual_min` — words cannot
overlap across languages, so they are not asked to. A passage in the other language is judged
by its best sentence against its knowledge base's calibrated sentence floor for that direction
(`cross_floors`: what unrelated questions of the question's script reach among the KB's
sentences; issue 25, session 12: by the whole passage, Korean questions sat near every English
abstract of a KB about their topic and passed whether it answered them or not), by the whole
passage against the KB's passage floor where no sentence floor was measured, and against
`cross_lingual_min` where a KB has none. When no passage passes on words, one in the question's
language passes with an e5 similarity of at least `SAME_LANGUAGE_MIN` (Kiwi can read one name
two ways). Term overlap weighs each question term by its rarity among the sentences read (a
smoothed idf). The e5 vectors of the question and of the texts compared are kept for the
reader's own use (`Reader._score` reads the same sentences): nothing is embedded twice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from planrag.core.types import CrossFloors
from planrag.executors.sentence_floors import EVIDENCE_CHARS, evidence_sentences
from planrag.llm.e5 import is_e5
from planrag.llm.embedders import Embedder
from planrag.planner.query_text import generic_terms
from planrag.services.answers import Passage, is_korean
from planrag.services.passage_text import plain_text
from planrag.services.reader_signals import FUNCTION_WORDS
from planrag.text.answer_types import model_codes
from planrag.text.code_spans import code_pattern
from planrag.text.korean import splits_into, written_compounds
from planrag.text.korean_synonyms import add_synonyms_held, synonym_patterns
from planrag.text.tokenizer import LexicalTokenizer, tokenizer_for

__all__ = ["CROSS_LINGUAL_MIN", "READ_PASSAGES", "SAME_LANGUAGE_MIN", "ReaderEvidence"]

READ_PASSAGES = 5  # passages whose sentences are read
CROSS_LINGUAL_MIN = 0.77  # e5 similarity a passage in another language needs to be evidence
# The same in one language, where words failed (Kiwi reads "한결대학교" in a question as 학교
# and in a passage as 대학교): a high bar, irrelevant Korean questions reach 0.81 on ko_company.
SAME_LANGUAGE_MIN = 0.87
_CODE_TERM = re.compile(code_pattern(""))  # a model code Kiwi kept whole ("dk250")
KEPT_VECTORS = 4096  # e5 vectors a reader keeps (an ask reads a few hundred texts at most)


class ReaderEvidence:
    """A knowledge base's question terms, evidence check and e5 similarities (`Reader`'s base)."""

    def __init__(
        self,
        user_words: Sequence[str] = (),
        floor: float = 0.5,
        embedder: Embedder | None = None,
        cross_lingual_min: float = CROSS_LINGUAL_MIN,
        cross_floors: Mapping[str, CrossFloors] | None = None,
    ) -> None:
        self._tokenizer: LexicalTokenizer = tokenizer_for(user_words)
        self._generic = generic_terms(self._tokenizer) | FUNCTION_WORDS
        self._floor = floor
        self._embedder = embedder if embedder is not None and is_e5(embedder.name) else None
        self._cross_min = cross_lingual_min
        self._cross_floors = cross_floors or {}
        self._vectors: dict[tuple[bool, str], np.ndarray] = {}  # (as a query, text) → e5

    # ------------------------------------------------------------------ terms

    def terms(self, text: str) -> set[str]:
        """The content terms of a question (generic request words left out)."""
        return {t for t in self._tokenizer.tokenize(text) if t not in self._generic}

    def terms_many(self, texts: Sequence[str]) -> list[set[str]]:
        """`terms` of each text, Kiwi reading them in one batch."""
        return [
            {t for t in tokens if t not in self._generic}
            for tokens in self._tokenizer.tokenize_many(texts)
        ]

    def term_weights(self, terms: set[str], sentences: list[set[str]]) -> dict[str, float]:
        """Each term's rarity among the sentences' terms (a smoothed idf, as in scoring)."""
        total = len(sentences)
        return {t: math.log(1 + (total + 1) / (1 + sum(t in s for s in sentences))) for t in terms}

    # ------------------------------------------------------------------ evidence

    def coverage(
        self,
        terms: set[str],
        passage: Passage,
        compounds: Mapping[str, tuple[str, ...]] | None = None,
        question: str | None = None,
    ) -> float:
        """The share of the terms the passage (its title too) holds; 1 without terms."""
        if not terms:
            return 1.0
        text = f"{passage.title or ''}\n{plain_text(passage.content)}"
        return len(self.held(terms, [text], compounds=compounds, question=question)[0]) / len(terms)

    def held(
        self,
        terms: set[str],
        texts: Sequence[str],
        read: Sequence[set[str]] | None = None,
        compounds: Mapping[str, tuple[str, ...]] | None = None,
        question: str | None = None,
    ) -> list[set[str]]:
        """The terms each text holds (`read`: the texts' tokens when the caller has them). A
        Korean term Kiwi read differently in a text is looked for again with the terms given to
        Kiwi as words ("내선 2040으로" reads as 내 + 서 + ㄴ, "동해캐피털" as 동해 + 캐피털 in
        one sentence and whole in another); a text reading whole a compound the question's
        Kiwi split (`compounds`: "온콜" as 온 + 콜) holds its parts; a text writing a Korean
        term another way holds it (`korean_synonyms`: 급여일 holds 월급날; the question's own
        words, when given, add its phrases: "쉬는 날" is held by 휴관일)."""
        tokens = list(read if read is not None else map(set, self._tokenizer.tokenize_many(texts)))
        found = [terms & (t | _parts_of_whole(t, compounds)) for t in tokens]
        add_synonyms_held(synonym_patterns(question or " ".join(terms), terms), texts, found)
        codes = {t for t in terms if _CODE_TERM.fullmatch(t)}  # "dk250" of "DK250 언제 나왔어?"
        if codes:  # held by a text writing it "DK-250" or "DK 250" (Kiwi: dk + 250)
            found = [
                h | {c for c in codes - h if c.upper() in model_codes(text)}
                for h, text in zip(found, texts, strict=True)
            ]
        missing = [{t for t in terms - held if len(t) >= 2 and is_korean(t)} for held in found]
        unread = set().union(*missing)
        if not unread:
            return found
        again = LexicalTokenizer((*self._tokenizer.user_words, *sorted(unread)))
        return [
            held | (gone & set(again.tokenize(text))) if gone else held
            for held, gone, text in zip(found, missing, texts, strict=True)
        ]

    def sentence_terms(
        self,
        sentences: Sequence[str],
        compounds: Mapping[str, tuple[str, ...]] | None = None,
        content: bool = False,
    ) -> list[set[str]]:
        """Each sentence's tokens (`content`: its content terms), and the nouns of a compound
        the question writes as one word (`korean.written_compounds`) where a sentence's word
        holds it: Kiwi reads "대덕연구단지" as one proper noun and the question's "연구단지" as
        연구 + 단지, and one of its other readings of the name is 대덕 + 연구 + 단지."""
        read = [set(t) for t in self._tokenizer.tokenize_many(sentences)]
        read = [r | _parts_of_whole(r, compounds) for r in read]
        if content:
            read = [r - self._generic for r in read]
        for surface, parts in (compounds or {}).items():
            for terms in read:
                if not set(parts) <= terms and any(
                    surface in word and word != surface and splits_into(word, parts)
                    for word in terms
                ):
                    terms |= set(parts)
        return read

    def evidence(self, question: str, passages: Sequence[Passage]) -> list[int]:
        """The numbers of the passages that pass the evidence check."""
        terms, compounds = self.terms(question), written_compounds(question)
        shown = list(passages[:READ_PASSAGES])
        passed = [p.n for p in shown if self.coverage(terms, p, compounds, question) >= self._floor]
        if passed or self._embedder is None or self._floor <= 0:  # e5 only when words fail
            return passed
        return [p.n for p, near in zip(shown, self.near(question, shown), strict=True) if near]

    def near(self, question: str, passages: Sequence[Passage]) -> list[bool]:
        """Whether e5 puts each passage near enough the question to be evidence: one in the
        other language by its best sentence against its KB's sentence floor for the direction
        (by its text against the passage floor where the KB has no sentence floor), one in
        the question's language by its text against SAME_LANGUAGE_MIN. All False without e5."""
        if self._embedder is None:
            return [False] * len(passages)
        pieces = [self._pieces(question, p) for p in passages]
        sims = self._similarities(question, [t for texts, _ in pieces for t in texts])
        out, at = [], 0
        for texts, floor in pieces:
            out.append(max(sims[at : at + len(texts)]) >= floor)
            at += len(texts)
        return out

    def _pieces(self, question: str, passage: Passage) -> tuple[list[str], float]:
        """What of the passage is compared with the question, and the similarity it needs."""
        whole = [plain_text(passage.content)[:EVIDENCE_CHARS]]
        if not _crosses(question, passage):
            return whole, SAME_LANGUAGE_MIN
        direction = f"{_script(question)}>{_script(passage.content[:2000])}"
        floors = self._cross_floors.get(passage.knowledge_base, CrossFloors())
        passage_floor = floors.passage.get(direction, self._cross_min)
        if direction in floors.sentence:  # never under the passage floor: on a KB of a few
            # short passages unrelated questions' best sentence can fall below their best
            # passage (8 abstracts: 0.7509 against 0.7564), the sample too small to say more
            return evidence_sentences(passage.content), max(
                floors.sentence[direction], passage_floor
            )
        return whole, passage_floor

    @property
    def has_e5(self) -> bool:
        return self._embedder is not None

    def similarities(self, question: str, texts: list[str]) -> list[float]:
        """e5 cosine of the question (as a query) to each text; [] without e5."""
        return self._similarities(question, texts) if self._embedder is not None else []

    def _similarities(self, question: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        query = self._embedded([question], query=True)[0]
        return [float(v) for v in self._embedded(texts, query=False) @ query]

    def _embedded(self, texts: list[str], query: bool) -> np.ndarray:
        """The texts' e5 vectors, each embedded once by this reader (a question as a query)."""
        assert self._embedder is not None
        missing = [t for t in dict.fromkeys(texts) if (query, t) not in self._vectors]
        if missing:
            embed = self._embedder.embed_queries if query else self._embedder.embed
            if len(self._vectors) + len(missing) > KEPT_VECTORS:
                self._vectors.clear()
            vectors = np.asarray(embed(missing), dtype=np.float32)
            self._vectors.update(zip([(query, t) for t in missing], vectors, strict=True))
        return np.stack([self._vectors[(query, t)] for t in texts])


def _crosses(question: str, passage: Passage) -> bool:
    """Whether question and passage are written in different languages (Hangul or not)."""
    return is_korean(question) != is_korean(passage.content[:2000])


def _script(text: str) -> str:
    """The calibration's name for the text's script (`FusionCalibration.evidence_floor`)."""
    return "hangul" if is_korean(text) else "latin"


def _parts_of_whole(tokens: set[str], compounds: Mapping[str, tuple[str, ...]] | None) -> set[str]:
    """The parts of each compound a text's tokens hold whole: Kiwi reads "온콜은" as 온 + 콜 in
    a question and "온콜 당번은" as 온콜 in the document."""
    if not compounds:
        return set()
    return {part for surface, parts in compounds.items() if surface in tokens for part in parts}
