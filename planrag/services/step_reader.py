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
import re
from collections.abc import Sequence

from planrag.core.errors import PlanragError
from planrag.llm.chat import ChatClient
from planrag.planner.query_text import generic_terms
from planrag.prompts import render
from planrag.services.answers import Passage
from planrag.services.ask_events import StepAnswer
from planrag.services.passage_text import body_sentences
from planrag.text.answer_types import typed_spans
from planrag.text.entities import HANGUL, find_mentions, normalize
from planrag.text.korean import get_kiwi
from planrag.text.named_entities import MAYBE_PERSON, typed_names
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
_BACK_KO = frozenset(("이", "그", "해당", "동", "위", "이런", "그런"))
_BACK_EN = frozenset(
    ("this", "these", "that", "those", "its", "it", "he", "she", "they", "his", "her", "their")
)  # … and one naming the query's head noun ("대학교" → 한결대학교)
_NAME_TAGS = ("NNG", "NNP", "SL", "SN", "XSN")
_CODE = re.compile(r"[A-Za-z]{0,3}[0-9][A-Za-z0-9.-]*[.,]?")


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
        words = set() if HANGUL.search(query) else _plain_words(query)
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
                named += EARLIER_BONUS * any(e and e in sentence for e in earlier)
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
                    _ordered(typed, sentence, verb, words),
                    _ordered(names, sentence, verb, words),
                )
                headed = [n for n in [*typed, *names] if head and head.casefold() in n.casefold()]
                typed_headed = [n for n in typed if n in headed]
                # written right after the head noun: "광고 회사 새벽기획", "the company Acme"
                apposed = [n for n in [*typed, *names] if head and f"{head} {n}" in sentence]
                bonus = (TYPED_BONUS if typed else 0.0) + (
                    HEADED_BONUS if headed or apposed else 0.0
                )
                if head and head in sentence:  # "…의 대표이사는 김도윤이다" for "… 대표이사"
                    bonus += HEAD_WORD_BONUS
                score = overlap + named + bonus - 0.3 * rank - 0.01 * position
                if best is None or score > best[0]:
                    chosen = typed_headed or apposed or typed or headed or names
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


def candidates(sentence: str) -> list[str]:
    """Names a sentence holds, best first: Latin capitalised spans; Korean words whose nouns
    Kiwi finds, particles cut at Kiwi's morpheme boundary ("박지은 CTO가" → 박지은,
    "한결대학교 컴퓨터공학과를" → 한결대학교, 컴퓨터공학과), with a following model code
    ("누리봇 S2"); proper nouns and predicate nominals ("대표는 이서준이다": Kiwi may not know
    the name) first, then compounds ("자율주행팀"); another lone common noun is no name."""
    if not HANGUL.search(sentence):  # a possessive is not part of the name ("Clement Attlee's")
        return [re.sub(r"['’]s$", "", m.name) for m in find_mentions(sentence)]
    proper: list[str] = []
    compound: list[str] = []
    tokens = get_kiwi().tokenize(sentence)
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\s()\[\]{}<>「」『』\"“”]+", sentence)]
    for k, (start, end) in enumerate(words):
        inside = [t for t in tokens if start <= t.start < end]
        nouns = [t for t in inside if t.tag in _NAME_TAGS]
        if not nouns:
            continue
        stop = max(t.start + t.len for t in nouns)
        if any(t.tag in _NAME_TAGS for t in inside[1:]) or inside[0].tag in _NAME_TAGS:
            name = sentence[start:stop]
            if k + 1 < len(words) and _CODE.fullmatch(sentence[slice(*words[k + 1])]):
                name += " " + sentence[slice(*words[k + 1])].rstrip(".,")
            if name.replace(",", "").isdigit():
                continue
            predicate = any(t.tag == "VCP" for t in inside)  # "대표는 이서준이다"
            if predicate or any(t.tag in ("NNP", "SL") for t in nouns):
                proper.append(name)
            elif len(nouns) > 1 or len(inside) > len(nouns) and inside[0].tag not in _NAME_TAGS:
                compound.append(name)
    return list(dict.fromkeys([*proper, *compound]))


def added_names(query: str, sentence: str) -> list[str]:
    """The names a sentence holds that the query does not, in order."""
    asked = _keys(query)
    return [n for n in candidates(sentence) if len(n) >= 2 and not _asked(n, asked)]


def typed_answers(sentence: str, expected: StepType) -> list[str]:
    """The sentence's names (dates, numbers) of the expected type, in order; [] for ANY."""
    if expected.kind == DATE:
        return [s.text for s in typed_spans(sentence, "date")]
    if expected.kind == NUMBER:
        return [s.text for s in typed_spans(sentence, "number")]
    if not expected.kind:
        return []
    names = [
        n.name
        for n in typed_names(sentence)
        if (n.type in expected.accepts or (n.type == MAYBE_PERSON and expected.kind == PERSON))
        and not n.surname
    ]
    if expected.kind == PERSON:
        names += [s.text for s in typed_spans(sentence, "person")]
    return [n for n in dict.fromkeys(names) if len(n) >= 2]


def clause_verb(query: str) -> str | None:
    """The verb of the relative clause a Korean query ends in ("…창업 전에 일한 회사" → 일,
    "…세운 회사" → 세우); None for English or a query without one."""
    if not HANGUL.search(query):
        return None
    tokens = get_kiwi().tokenize(query)
    for k in range(len(tokens) - 1, 0, -1):
        if tokens[k].tag != "ETM":
            continue
        before = tokens[k - 1]
        if before.tag in ("XSV", "XSA") and k >= 2 and tokens[k - 2].tag == "NNG":
            return str(tokens[k - 2].form)
        return str(before.form) if before.tag.startswith(("VV", "VA")) else None
    return None


def by_verb(names: list[str], sentence: str, verb: str) -> list[str]:
    """The names ordered by how closely they precede the verb in the sentence (a Korean
    argument comes before its verb: "누리테크를 창업하기 전 한빛로보틱스에서 … 일했다" →
    한빛로보틱스 first for "일한"); unchanged when the sentence lacks the verb."""
    if len(names) < 2:
        return names
    at = [
        t.start
        for t in get_kiwi().tokenize(sentence)
        if t.form == verb and t.tag.startswith(("VV", "VA", "NNG"))
    ]
    if not at:
        return names

    def gap(name: str) -> int:
        start = sentence.find(name)
        if start < 0:
            return 10**6
        gaps = [v - start - len(name) for v in at if v >= start + len(name)]
        return min(gaps) if gaps else 10**5

    return sorted(names, key=gap)


def _ordered(names: list[str], sentence: str, verb: str | None, words: set[str]) -> list[str]:
    """ "…에서 일한 회사": the name arguing the clause's verb first; "… part of a series": the
    name right after a query word first ("… and part of the Time Quintet")."""
    if verb:
        return by_verb(names, sentence, verb)
    return by_anchor(names, sentence, words) if words else names


def _plain_words(query: str) -> set[str]:
    """An English query's lower-case content words (not names: "part", "series", "led")."""
    return {w for w in re.findall(r"\b[a-z]{3,}\b", query) if w not in _EN_STOP}


_EN_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "how",
        "was",
        "were",
        "are",
        "is",
        "has",
        "have",
        "had",
        "that",
        "this",
        "from",
        "into",
        "his",
        "her",
        "its",
        "their",
        "been",
        "did",
        "does",
    ]
)


def by_anchor(names: list[str], sentence: str, words: set[str]) -> list[str]:
    """The names ordered by how closely a word of the query precedes them in the sentence
    ("It is a companion book to "A Wrinkle in Time", and part of the Time Quintet" → Time
    Quintet first for "… is part of a series"); unchanged when no query word is there."""
    if len(names) < 2:
        return names
    ends = [m.end() for m in re.finditer(r"\b[a-z]{3,}\b", sentence) if m.group() in words]
    if not ends:
        return names

    def gap(name: str) -> int:
        start = sentence.find(name)
        gaps = [start - e for e in ends if 0 <= e <= start]
        return min(gaps) if start >= 0 and gaps else 10**5

    return sorted(names, key=gap)


def refers_back(sentence: str) -> bool:
    """The sentence opens with a demonstrative or a pronoun ("이 투자는", "Its chief …"): its
    subject is named in the sentence before."""
    words = sentence.split()
    if not words:
        return False
    if not HANGUL.search(sentence):
        return words[0].casefold() in _BACK_EN
    first = get_kiwi().tokenize(sentence)[:1]
    return bool(first) and first[0].tag == "MM" and first[0].form in _BACK_KO


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
