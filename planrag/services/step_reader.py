"""Reading one step's answer: the bridge entity the next step's query is filled with.

A small adapter over what exists (the sentence reader's Markdown-to-text and Kiwi sentences,
the entity mention finder): the best sentence of the step's top passages by the query's content
terms, then the name in it that the query does not already hold, preferring one that carries the
query's head noun ("대학교" → 한결대학교, "university" → Moscow State University). With an LLM
configured the LLM reads instead (a short span or NONE). Also tells whether the passages cover the
question (the adaptive step: a bridge found, the answer not).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from planrag.core.errors import PlanragError
from planrag.llm.chat import ChatClient
from planrag.planner.query_text import generic_terms
from planrag.prompts import render
from planrag.services.answers import Passage
from planrag.services.ask_events import StepAnswer
from planrag.services.passage_text import body_sentences
from planrag.text.answer_slots import carries, slot_of
from planrag.text.answer_types import typed_spans
from planrag.text.english_kinds import english_kind
from planrag.text.entities import HANGUL, find_mentions, normalize
from planrag.text.korean import get_kiwi
from planrag.text.named_entities import MAYBE_PERSON, typed_names
from planrag.text.sentence_names import (
    candidates,
    clause_verb,
    introduced,
    ordered_names,
    plain_words,
    refers_back,
)
from planrag.text.step_types import (
    ANY,
    DATE,
    NUMBER,
    ORG,
    PERSON,
    PLACE,
    StepType,
    expected_type,
    head_noun,
)
from planrag.text.tokenizer import tokenizer_for

log = logging.getLogger(__name__)
READ_PASSAGES = 4
MAX_ANSWER_CHARS = 120
TYPED_BONUS = 1.5  # a sentence holding a name of the asked type over one holding more words
NAMED_BONUS = 0.5  # per name of the query the sentence holds (Kiwi may split it in the terms)
HEADED_BONUS = 1.0
HEAD_WORD_BONUS = 0.5  # the sentence writes the query's head noun (a role: "대표이사는")
EARLIER_BONUS = 1.0  # a sentence about the earlier step's answer the query was filled with
CONTEXT_WEIGHT = 0.5  # the previous sentence's terms, for a sentence that refers back to it
SLOT_BONUS = 0.5  # a name carrying the particle of the slot the query asks for (`answer_slots`)


class StepReader:
    """Reads a step's answer from its passages: the LLM when configured, else extractively."""

    def __init__(
        self, chat: ChatClient | None = None, user_words: Sequence[str] = (), timeout_s: float = 8
    ) -> None:
        self._chat = chat
        self._tokenizer = tokenizer_for(user_words)
        self._generic = generic_terms(self._tokenizer)
        self._timeout_s = timeout_s

    def terms(self, text: str) -> set[str]:
        return {t for t in self._tokenizer.tokenize(text) if t not in self._generic}

    def read(
        self,
        query: str,
        passages: list[Passage],
        bridge: bool = False,
        earlier: Sequence[str] = (),
    ) -> StepAnswer | None:
        """`bridge`: the query is the whole question and a name on the way to its answer is
        wanted (the adaptive step), so any name, not one of the type the question asks for.
        `earlier`: the earlier steps' answers filled into the query (the sentence about them
        is the one to read)."""
        if self._chat is not None and self._chat.configured:
            read = self._llm_read(query, passages)
            if read is not None:
                return read
        return self.extract(query, passages, bridge, earlier)

    def extract(
        self,
        query: str,
        passages: list[Passage],
        bridge: bool = False,
        earlier: Sequence[str] = (),
    ) -> StepAnswer | None:
        """The name the best sentence adds to the query, preferring one of the type the query
        asks for (`text/step_types.py`); None when no sentence holds one."""
        head = head_noun(query)
        # The head noun counts through the head bonus only: Kiwi splits "대학" off "한결대학교"
        # in one sentence and keeps "서울대학교" whole in another.
        terms = self.terms(query) - (self.terms(head) if head else set())
        asked = _keys(query)
        expected = ANY if bridge else expected_type(query)
        anchors = _name_keys(query)
        verb = clause_verb(query)
        words = set() if HANGUL.search(query) else plain_words(query)
        slot = slot_of(query) if HANGUL.search(query) else None
        best: tuple[float, StepAnswer] | None = None
        for rank, passage in enumerate(passages[:READ_PASSAGES]):
            previous = 0
            for position, sentence in enumerate(body_sentences(passage.content)):
                own = self._overlap(terms, sentence)
                overlap = float(own)
                if refers_back(sentence):  # "이 투자는 푸른벤처스가 주도했다": the one before
                    overlap += CONTEXT_WEIGHT * previous
                previous = own
                if terms and overlap == 0:
                    continue
                named = NAMED_BONUS * len(anchors & _name_keys(sentence))  # the query's names
                about = [e for e in earlier if e and names_earlier(e, sentence, passage.content)]
                named += EARLIER_BONUS * bool(about)
                overlap += any(e not in sentence for e in about)  # "김 대표" holds "김도윤"
                typed = [
                    _with_head(n, head, sentence) if expected.kind in (ORG, PLACE) else n
                    for n in typed_answers(sentence, expected)
                    if not _asked(n, asked)
                ]
                names = [
                    n
                    for n in candidates(sentence)
                    if len(n) >= 2 and n != head and not _asked(n, asked)
                ]
                if not typed and not names:
                    continue
                typed, names = (
                    ordered_names(typed, sentence, verb, words),
                    ordered_names(names, sentence, verb, words),
                )
                headed = [n for n in [*typed, *names] if head and head.casefold() in n.casefold()]
                typed_headed = [n for n in typed if n in headed]
                # written right after the head noun: "광고 회사 새벽기획", "the company Acme"
                # or after its verb: "a film directed by Ilse Brandt" for "the director of …"
                apposed = [
                    n
                    for n in [*typed, *names]
                    if head and (f"{head} {n}" in sentence or introduced(n, sentence, head))
                ]
                bonus = (TYPED_BONUS if typed else 0.0) + (
                    HEADED_BONUS if headed or apposed else 0.0
                )
                if head and head in sentence:  # "…의 대표이사는 김도윤이다" for "… 대표이사"
                    bonus += HEAD_WORD_BONUS
                # the argument asked for: "…을 투자한 회사" → "동해캐피털이 투자했다"
                # (of the asked type when the sentence has one: "최민호 수석연구원이" is 최민호)
                slotted = [n for n in typed or names if slot and carries(sentence, n, slot)]
                bonus += SLOT_BONUS if slotted else 0.0
                score = overlap + named + bonus - 0.3 * rank - 0.01 * position
                if best is None or score > best[0]:
                    chosen = typed_headed or slotted[:1] or apposed or typed or headed or names
                    answer = chosen[0][:MAX_ANSWER_CHARS]
                    best = (score, StepAnswer(text=answer, sentence=sentence, passage=passage.n))
        return best[1] if best else None

    def _overlap(self, terms: set[str], sentence: str) -> int:
        """The query terms the sentence holds: a token, or a token's leading morphemes (Kiwi
        may keep "누리테크의" whole in one context and split it in another)."""
        tokens = set(self._tokenizer.tokenize(sentence))
        return sum(1 for t in terms if t in tokens or any(w.startswith(t) for w in tokens))

    def covers(self, question: str, passages: list[Passage], share: float = 1.0) -> bool:
        """Whether one top passage holds `share` of the question's content terms."""
        terms = self.terms(question)
        if not terms:
            return True
        for passage in passages[:READ_PASSAGES]:
            held = terms & set(self._tokenizer.tokenize(passage.content))
            if len(held) >= share * len(terms):
                return True
        return False

    def missing(self, question: str, passages: list[Passage]) -> list[str]:
        """The question's content words no top passage holds, as the question spells them."""
        held: set[str] = set()
        for passage in passages[:READ_PASSAGES]:
            held |= set(self._tokenizer.tokenize(passage.content))
        words = []
        for word in question.split():
            tokens = self.terms(word)
            if tokens and not tokens & held:
                words.append(word.strip("?.!,\"'“”"))
        return [w for w in words if w]

    def _llm_read(self, query: str, passages: list[Passage]) -> StepAnswer | None:
        assert self._chat is not None
        listing = "\n\n".join(f"[{p.n}] {p.content[:1200]}" for p in passages[:READ_PASSAGES])
        messages = [
            {"role": "system", "content": render("step_answer_system")},
            {"role": "user", "content": f"Passages:\n{listing}\n\nQuestion: {query}"},
        ]
        try:
            reply = self._chat.complete(messages, self._timeout_s)
        except PlanragError as exc:
            log.warning("LLM step reading failed (%s); reading extractively", exc.message)
            return None
        text = " ".join(reply.split()).strip(" .\"'")[:MAX_ANSWER_CHARS]
        if not text or text.upper().startswith("NONE"):
            return None
        holder = next((p for p in passages if text.casefold() in p.content.casefold()), None)
        if holder is None:  # an answer no passage holds is not read from the passages
            return None
        return StepAnswer(text=text, sentence=text, passage=holder.n, source="llm")


def added_names(query: str, sentence: str) -> list[str]:
    """The names a sentence holds that the query does not, in order."""
    asked = _keys(query)
    return [n for n in candidates(sentence) if len(n) >= 2 and not _asked(n, asked)]


def names_earlier(name: str, sentence: str, page: str) -> bool:
    """The sentence names an earlier step's answer: in full, or a Korean person by surname and
    title on a page naming them in full ("김 대표는 창업 전 …" after "김도윤 대표는 …")."""
    if name in sentence:
        return True
    if not (2 <= len(name) <= 4 and all(HANGUL.match(c) for c in name) and name in page):
        return False
    tokens = get_kiwi().tokenize(sentence)
    return any(
        a.form == name[0] and b.form in _KO_TITLES and a.start + a.len <= b.start
        for a, b in zip(tokens, tokens[1:], strict=False)
    )


# Titles written after a Korean surname in a short reference ("김 대표", "최 수석").
_KO_TITLES = frozenset(
    ("대표", "대표이사", "사장", "회장", "이사", "부장", "팀장", "수석", "교수", "박사", "실장",
     "본부장", "상무", "전무", "과장", "차장", "소장", "총장", "CTO", "CEO", "연구원", "위원")
)  # fmt: skip


def typed_answers(sentence: str, expected: StepType) -> list[str]:
    """The sentence's names (dates, numbers) of the expected type, in order; [] for ANY."""
    if expected.kind == DATE:
        return [s.text for s in typed_spans(sentence, "date")]
    if expected.kind == NUMBER:
        return [s.text for s in typed_spans(sentence, "number")]
    if not expected.kind:
        return []
    latin = not HANGUL.search(sentence)
    kinds = [
        (n, english_kind(n.name, n.type, sentence) if latin else n.type)
        for n in typed_names(sentence)
    ]
    names = [
        n.name
        for n, kind in kinds
        if (kind in expected.accepts or (kind == MAYBE_PERSON and expected.kind == PERSON))
        and not n.surname
    ]
    if expected.kind == PERSON:
        names += [s.text for s in typed_spans(sentence, "person")]
    return [n for n in dict.fromkeys(names) if len(n) >= 2]


def _name_keys(text: str) -> set[str]:
    """The names of a text, normalised: Kiwi's typed names and capitalised spans."""
    found = {normalize(n.name) for n in typed_names(text) if n.type not in ("DATE", "")}
    return {k for k in found | {normalize(m.name) for m in find_mentions(text)} if len(k) >= 2}


def _with_head(name: str, head: str | None, sentence: str) -> str:
    """The name with the query's head noun when the sentence writes it next ("이천" + "공장"
    → "이천 공장" for "…생산하는 공장")."""
    if not head or head.casefold() in name.casefold():
        return name
    for joined in (f"{name} {head}", f"{name}{head}"):
        if joined in sentence:
            return joined
    return name


def _keys(text: str) -> set[str]:
    return {normalize(m.name) for m in find_mentions(text)} | {normalize(w) for w in text.split()}


def _asked(name: str, asked: set[str]) -> bool:
    """The query already names it (up to a particle: "누리테크가"; every word: "누리봇 S2")."""

    def named(key: str) -> bool:
        return any(
            key == a
            or (key.startswith(a) and len(a) >= 2 and len(key) - len(a) <= 2)
            or (a.startswith(key) and len(key) >= 2 and len(a) - len(key) <= 2)
            for a in asked
        )

    return named(normalize(name)) or all(named(normalize(w)) for w in name.split())
