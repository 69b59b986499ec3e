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
from planrag.text.entities import find_mentions, normalize
from planrag.text.korean import get_kiwi
from planrag.text.tokenizer import tokenizer_for

log = logging.getLogger(__name__)
READ_PASSAGES = 4
MAX_ANSWER_CHARS = 120
_HEAD_TAGS = ("NNG", "NNP", "SL")
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

    def read(self, query: str, passages: list[Passage]) -> StepAnswer | None:
        if self._chat is not None and self._chat.configured:
            read = self._llm_read(query, passages)
            if read is not None:
                return read
        return self.extract(query, passages)

    def extract(self, query: str, passages: list[Passage]) -> StepAnswer | None:
        """The name the best sentence adds to the query; None when no sentence holds one."""
        terms = self.terms(query)
        asked = _keys(query)
        head = head_noun(query)
        best: tuple[float, StepAnswer] | None = None
        for rank, passage in enumerate(passages[:READ_PASSAGES]):
            for position, sentence in enumerate(body_sentences(passage.content)):
                names = [
                    n
                    for n in candidates(sentence)
                    if len(n) >= 2 and n != head and not _asked(n, asked)
                ]
                if not names:
                    continue
                overlap = self._overlap(terms, sentence)
                if terms and overlap == 0:
                    continue
                typed = [n for n in names if head and head.casefold() in n.casefold()]
                score = overlap + (1.0 if typed else 0.0) - 0.3 * rank - 0.01 * position
                if best is None or score > best[0]:
                    answer = (typed or names)[0][:MAX_ANSWER_CHARS]
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
    if sentence.isascii():
        return [m.name for m in find_mentions(sentence)]
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


def head_noun(query: str) -> str | None:
    """The last content noun of the query, with the nouns glued to it ("…졸업한 대학교" →
    대학교, "투자한 벤처캐피털" → 벤처캐피털; "the state where X died" → state)."""
    lowered = query.strip().rstrip("?")
    if lowered.isascii():
        words = lowered.split()
        for marker in ("where", "which", "who", "that", "whose", "in which", "of"):
            if f" {marker} " in f" {lowered} ":
                before = lowered.split(f" {marker} ")[0].split()
                return before[-1] if before else None
        return words[-1] if words else None
    tokens = [t for t in get_kiwi().tokenize(lowered) if t.tag in _HEAD_TAGS]
    if not tokens:
        return None
    start, end = tokens[-1].start, tokens[-1].start + tokens[-1].len
    for token in reversed(tokens[:-1]):
        if token.start + token.len != start:
            break
        start = token.start
    return lowered[start:end]


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
