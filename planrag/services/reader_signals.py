"""The extractive reader's material: a candidate sentence with its signals, the question as
the reader holds it, and the signals and choices computed from them alone (term rarity, the
model-number match, the lead's confidence, the supporting sentences)."""

from __future__ import annotations

import math
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from planrag.services.answers import is_korean
from planrag.services.readings import ReadSentence
from planrag.text.answer_types import AnswerType

MAX_SUPPORT = 2
ANSWER_BUDGET = 300  # characters the lead and its support aim to stay within
ACROSS_SPAN = 0.1  # e5 cosine below the best other-language sentence where its stand-in ends
# e5 scores a sentence of the question's language higher than an equally relevant one of the
# other: on our cross-lingual fixtures the best of the other language was up to 0.09 below the
# best of the question's. Further below, the other language's best is about something else
# ("The X100's LED is rated for 20,000 hours." for "개발자 몇 명 뽑아?", 0.16 below the Korean
# sentence that answers in other words): its stand-in fades out over `ACROSS_SPAN / 2`.
LANGUAGE_GAP = 0.1
# English function words the search's stop list (Lucene's, shared with the index) keeps: an
# auxiliary or an adverb says nothing of what is asked ("What actor … also had a role …"), and
# counted as a question term it holds the evidence check's share down. As the tokenizer stems.
# Korean nouns of relative time say when against something else, not what about: "전에 어디서
# 일했어?" is answered by "이전에는 네이버에서 …", which holds no 전.
FUNCTION_WORDS = frozenset(
    ("had", "have", "done", "also", "still", "ever", "even", "just", "onc", "thus", "howev",
     "whose", "whatev", "yet", "전", "후", "때", "중")
)  # fmt: skip


@dataclass
class Candidate:
    rank: int
    n: int
    position: int
    text: str
    terms: set[str]
    carried_codes: set[str]  # model codes of the sentence, or of the last one naming any
    own_codes: set[str]
    seen: set[str]  # terms of the passage's title and sentences up to this one (its topic)
    context: float = 0.0  # the passage's share of the question terms
    bridge: bool = False  # the passage is one hop from the question's entities
    similarity: float = 0.0
    across: float = 0.0  # another language's sentence: its e5 standing in for words (0 if not)
    topic: set[str] = field(default_factory=set)  # the title's (English) and heading's terms
    # a sentence opening with a pronoun ("Its manager is David Lim."): the terms of the sentence
    # before it, which the pronoun stands for
    referent: set[str] = field(default_factory=set)
    # a Korean sentence opening with the topic the sentence before it opened with: the words
    # of that sentence it does not repeat
    continued: set[str] = field(default_factory=set)
    # the words of the people's full names its passage gives (`answer_types.name_parts`)
    name_parts: frozenset[str] = frozenset()
    features: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


@dataclass(frozen=True)
class ReadQuestion:
    text: str
    terms: set[str]
    entities: list[set[str]]
    codes: set[str]
    kind: AnswerType
    bridged: bool = False  # the answer is one hop from the question's names
    slot: str | None = None  # the case particle the question word carries ("어디에" → 에)
    verb: set[str] = field(default_factory=set)  # the asked verb's terms ("find": "… find?")
    head: set[str] = field(default_factory=set)  # the wh-phrase's terms (`text/asked_heads.py`)
    # compounds written as one word ("연구단지": 연구 + 단지), found inside a sentence's names
    compounds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unit: str | None = None  # the counter a Korean 몇 asks in ("몇 살" → 살: `korean_kinds`)
    past: bool = False  # a Korean question in the past tense ("언제 했어?": `korean_kinds`)

    @property
    def asked(self) -> set[str]:
        """The terms saying what is asked about the entities (all terms if nothing else)."""
        named = set().union(*self.entities) if self.entities else set()
        return (self.terms - named) or self.terms


def sentence_key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def rarity(terms: set[str], candidates: list[Candidate]) -> dict[str, float]:
    """Each question term's weight: rarer among the sentences read, heavier (a smoothed idf),
    so "매출" outweighs the company name every sentence repeats."""
    total = len(candidates)
    return {
        t: math.log(1 + (total + 1) / (1 + sum(t in c.terms for c in candidates))) for t in terms
    }


def weighted_share(
    terms: set[str],
    held: set[str],
    weights: dict[str, float],
    implied: AbstractSet[str] = frozenset(),
    implied_weight: float = 0.0,
) -> float:
    """The weighted share of `terms` in `held`; a term only `implied` (the passage's title
    holds it: the sentence is about it without naming it) counts `implied_weight`."""
    whole = sum(weights.get(t, 1.0) for t in terms)
    if not whole:
        return 0.0
    own = sum(weights.get(t, 1.0) for t in terms & held)
    topic = sum(weights.get(t, 1.0) for t in (terms & implied) - held)
    return (own + implied_weight * topic) / whole


def model_match(codes: set[str], c: Candidate) -> float:
    """+1 naming an asked model; -2 naming only others; ±0.5 in a paragraph about one."""
    if not codes:
        return 0.0
    if c.own_codes:
        return 1.0 if c.own_codes & codes else -2.0
    if c.carried_codes:
        return 0.5 if c.carried_codes & codes else -1.0
    return 0.0


def confidence(q: ReadQuestion, lead: Candidate) -> float:
    f = lead.features
    entities = f["entities"] if q.entities else 1.0
    typed = 1.0 if q.kind == "thing" else float(f["type"] > 0)
    model = 1.0 if f["model"] >= 0 else 0.0
    value = 0.4 * f["lexical"] + 0.25 * entities + 0.2 * typed + 0.15 * model
    return round(min(max(value, 0.0), 1.0), 3)


def support(q: ReadQuestion, lead: Candidate, rest: list[Candidate]) -> list[ReadSentence]:
    """At most two sentences from passages other than the lead's (one each), close to the
    lead's score, that hold question terms the lead lacks, within the answer budget."""
    chosen: list[ReadSentence] = []
    used_n = {lead.n}
    covered = q.terms & lead.terms
    length = len(lead.text)
    for c in rest:
        if len(chosen) == MAX_SUPPORT or c.score < lead.score - 1.0:
            break
        new = (q.terms & c.terms) - covered
        if c.n in used_n or not new or c.features["model"] < 0:
            continue
        if length + len(c.text) > ANSWER_BUDGET:
            continue
        chosen.append(ReadSentence(text=c.text, n=c.n, score=round(c.score, 4)))
        used_n.add(c.n)
        covered |= new
        length += len(c.text)
    return chosen


def across(q: ReadQuestion, shortlist: list[Candidate], blind: float) -> bool:
    """Whether the other language's sentences stand in for words: when no sentence of the
    question's language holds what is asked (less than `blind` of it; the names alone are
    no evidence), a sentence of the other language, which can share no word, gets for the
    words and names it cannot hold its e5 similarity's closeness to the best of its own
    language's (1 at the best, 0 at `ACROSS_SPAN` below it), scaled by how little the
    question's language held. e5 scores a same-language sentence higher than an equally
    relevant one of another language, so the two languages' similarities are compared only
    beyond that gap (`LANGUAGE_GAP`): an other-language best far below the question's
    language's best stands in for nothing. The other signals (answer type, e5 rank) still
    choose among the sentences."""
    korean = is_korean(q.text)
    same = [c for c in shortlist if is_korean(c.text) == korean]
    other = [c for c in shortlist if is_korean(c.text) != korean]
    if not same or not other or not q.asked:
        return False  # one language only: its sentences compete on the same signals
    held = max(c.features["lexical"] for c in same)
    if held >= blind:
        return False
    high = max(c.similarity for c in other)
    gap = max(c.similarity for c in same) - high
    apart = _unit(1.0 - (gap - LANGUAGE_GAP) / (ACROSS_SPAN / 2))
    if apart == 0.0:
        return False
    for c in other:
        c.across = _unit(1.0 - (high - c.similarity) / ACROSS_SPAN) * apart * (1.0 - held)
    return True


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def renamed_title(title: str, sentence: str) -> bool:
    """Whether an English sentence opens by naming its passage's title, a person's name, as
    written otherwise ("Roseann O'Donnell (born …)" on the page "Rosie O'Donnell"): its first
    words hold the title's last word but the sentence does not start with the title."""
    words = title.split()
    if not 2 <= len(words) <= 4 or not all(w[:1].isupper() for w in words) or "(" in title:
        return False
    if is_korean(title) or sentence.startswith(title):
        return False
    return words[-1] in re.findall(r"[\w'.-]+", sentence)[:5]
