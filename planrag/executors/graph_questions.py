"""What graph search reads from a question (spec 001 §3.8.2 "의미 기반 쿼리 분석"): its entities,
whether it chains relations and over how many hops, and its relation words.

- Rules (no LLM, and the fallback): Kiwi's proper nouns and capitalised spans plus the rule
  extractor's typed names (`question_names`), the multi-hop pattern and relation words
  (`analyse`).
- The LLM, when one is configured: a structured-output reading validated in two tiers — the
  schema, then the policy (an entity must be written in the question: the graph is searched for
  what the user named, not for what the LLM knows) — with one retry that feeds the error back.
  Its entities come first, the rules' follow (matching drops what the graph lacks); its hops
  widen the walk of a question it reads as multi-hop. Unreachable, slow (the planner's
  timeout), invalid twice or naming nothing of the question: the rules' reading, flagged
  `source="fallback"` with the reason.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field, ValidationError

from planrag.core.errors import PlanragError
from planrag.core.types import GraphAnalysis
from planrag.llm.chat import ChatClient
from planrag.prompts import render
from planrag.text.entities import find_mentions, normalize, question_pattern
from planrag.text.named_entities import DATE, MAYBE_PERSON, typed_names

log = logging.getLogger(__name__)

_EN_WORDS = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_KO_WORDS = re.compile(r"[가-힣]{2,}")
_QUESTION_WORDS = {
    *("what", "which", "who", "whom", "whose", "where", "when", "how", "the", "that", "this"),
    *("was", "were", "are", "did", "does", "for", "and", "from", "with", "name", "also"),
}
MAX_HINTS = 12
CACHED = 256  # questions whose LLM reading is kept (a question is read once per knowledge base)


def analyse(question: str, hops: int) -> GraphAnalysis:
    """Multi-hop pattern and relation words of a question (heuristic, no LLM)."""
    pattern = question_pattern(question)
    mentioned = {normalize(m.name) for m in find_mentions(question)}
    words = [w.casefold() for w in _EN_WORDS.findall(question)] + _KO_WORDS.findall(question)
    hints = [
        w
        for w in dict.fromkeys(words)
        if w not in _QUESTION_WORDS and normalize(w) not in mentioned
    ]
    return GraphAnalysis(
        multi_hop=pattern is not None, pattern=pattern, relation_hints=hints[:MAX_HINTS], hops=hops
    )


def question_names(question: str) -> list[str]:
    """The names a question gives: Kiwi's proper nouns and capitalised spans, and the typed
    names of the rule extractor (organisations by their endings: "해양로봇연구소", "자율주행팀";
    products with codes: "누리WMS"), dates left out."""
    found = [m.name for m in find_mentions(question)]
    found += [n.name for n in typed_names(question) if n.type not in ("", DATE, MAYBE_PERSON)]
    return list(dict.fromkeys(found))


@dataclass
class QuestionReading:
    names: list[str]  # the entity names to look up, best first
    analysis: GraphAnalysis


class QuestionReader(Protocol):
    def __call__(self, question: str, hops: int) -> QuestionReading: ...


def rule_reading(question: str, hops: int) -> QuestionReading:
    return QuestionReading(question_names(question), analyse(question, hops))


class LLMQuestion(BaseModel):
    entities: list[str] = Field(max_length=10)
    multi_hop: bool
    hops: int = Field(ge=1, le=5)
    relation_hints: list[str] = Field(max_length=MAX_HINTS)


def _schema() -> dict[str, object]:
    schema = LLMQuestion.model_json_schema()
    schema.pop("title", None)
    for prop in schema["properties"].values():
        prop.pop("title", None)
    schema["required"] = list(schema["properties"])
    schema["additionalProperties"] = False
    return schema


SCHEMA = _schema()


def _policy(reply: LLMQuestion, question: str) -> list[str]:
    """The reply's entities written in the question (by normalised key); none is an error."""
    said = normalize(question)
    named = [e.strip() for e in reply.entities if e.strip()]
    kept = [e for e in named if (key := normalize(e)) and key in said]
    if not kept:
        raise ValueError(f"entities must be names written in the question; none of {named[:5]} is")
    return list(dict.fromkeys(kept))


class LLMQuestionReader:
    """The LLM's reading of a question, the rules' when it fails (see the module docstring)."""

    def __init__(self, chat: ChatClient, timeout_s: float | None = None) -> None:
        self._chat = chat
        self._timeout_s = timeout_s
        self._cache: OrderedDict[tuple[str, int], QuestionReading] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, question: str, hops: int) -> QuestionReading:
        if not self._chat.configured:
            return rule_reading(question, hops)
        with self._lock:
            cached = self._cache.get((question, hops))
        if cached is not None:
            return cached
        reading = self._read(question, hops)
        if reading.analysis.source == "llm":
            with self._lock:
                self._cache[(question, hops)] = reading
                while len(self._cache) > CACHED:
                    self._cache.popitem(last=False)
        return reading

    def _read(self, question: str, hops: int) -> QuestionReading:
        rules = rule_reading(question, hops)
        try:
            reply, names = self._ask(question)
        except (PlanragError, ValidationError, ValueError) as exc:
            reason = exc.message if isinstance(exc, PlanragError) else str(exc)
            log.info("graph question analysis by rules: %s", reason[:200])
            rules.analysis.source = "fallback"
            rules.analysis.fallback_reason = reason[:300]
            return rules
        hints = [h.strip().casefold() for h in reply.relation_hints if h.strip()]
        hints += rules.analysis.relation_hints
        analysis = GraphAnalysis(
            multi_hop=reply.multi_hop or rules.analysis.multi_hop,
            pattern=rules.analysis.pattern,
            relation_hints=list(dict.fromkeys(hints))[:MAX_HINTS],
            hops=max(hops, reply.hops) if reply.multi_hop else hops,
            source="llm",
        )
        return QuestionReading(list(dict.fromkeys(names + rules.names)), analysis)

    def _ask(self, question: str) -> tuple[LLMQuestion, list[str]]:
        timeout = self._timeout_s or self._chat.settings.timeout_s
        messages = [
            {"role": "system", "content": render("graph_question_system")},
            {"role": "user", "content": question},
        ]
        for attempt in range(2):
            raw = self._chat.complete_json(messages, SCHEMA, "graph_question", timeout)
            try:
                reply = LLMQuestion.model_validate_json(raw)
                return reply, _policy(reply, question)
            except (ValidationError, ValueError) as exc:
                if attempt:
                    raise
                error = str(exc)[:1000]
                messages.append({"role": "assistant", "content": raw[:4000]})
                messages.append({"role": "user", "content": render("plan_retry", errors=error)})
        raise AssertionError("unreachable")
