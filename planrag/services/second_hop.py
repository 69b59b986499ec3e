"""The second hop of a bridge question: the answer is in the passage about a name the first hop
names, not in the sentence naming the question's own entities.

"In what year was the university where Sergei Tokarev was a professor founded?": the first hop
is the sentence naming Tokarev ("… was a professor at Moscow State University"); the bridge is a
name it holds that the question does not and that another passage is about (its title, or its
first sentence names it); the answer is the sentence of that passage holding the question's
remaining words ("founded", "year" — those the first hop did not hold) and the asked type ("…
was founded in 1755"). The answer leads with it and cites both hops.

Conservative: the pair must hold more of what the question asks than the ordinary lead alone
and the second sentence some of what the first hop lacks, of the asked type; otherwise the
ordinary reading stands (a one-hop question's lead already holds most of its words).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planrag.services.answers import Passage, is_korean
from planrag.services.passage_text import body_sentences
from planrag.services.reader import Reader
from planrag.services.reader_signals import ReadQuestion, sentence_key
from planrag.services.readings import Reading, ReadSentence
from planrag.text.entities import find_mentions, normalize

__all__ = ["second_hop"]

HOP_PASSAGES = 8  # passages read for the two hops (the ordinary reader reads 5)
FIRST_HOPS = 3  # first-hop sentences tried, best first
REST_MIN = 0.3  # share of the words the first hop lacks the second sentence (half) and its
# passage (half) must hold
GAIN_MIN = 0.1  # how much more of the question the pair must hold than the ordinary lead
# Words asking for the answer's form, not its content ("What type of television show …", "the
# title of the memoir"): the second sentence states the answer without them ("… is a 2015
# mystery-drama television series"), so they are not what it must add to the first hop.
FORM_WORDS = "type kind sort title"


@dataclass
class _Sentence:
    n: int
    text: str
    terms: set[str]


@dataclass
class _Hop:
    first: _Sentence
    second: _Sentence
    score: float


def second_hop(
    reader: Reader, question: str, passages: Sequence[Passage], reading: Reading
) -> Reading | None:
    """The two-hop reading (second hop leading, first hop supporting), or None when the
    ordinary reading is as good (see the module)."""
    if reading.lead is None or reading.headline in ("Yes", "No", "예", "아니요"):
        return None
    q = reader.question(question)
    # a lead holding the asked argument stands ("새벽기획에서 … 일한" for "어디서 일했어?")
    if not q.entities or reader.fills_slot(q, reading.lead.text):
        return None
    pool = list(passages[:HOP_PASSAGES])
    read = {p.n: _sentences(reader, p, q.compounds) for p in pool}
    titles = {p.n: reader.terms(p.title or "") for p in pool}
    all_terms = [s.terms for ss in read.values() for s in ss]
    weights = reader.term_weights(q.asked, all_terms)
    lead_terms = reader.sentence_terms([reading.lead.text], q.compounds, content=True)[0]
    lead_share = _share(q.asked, lead_terms, weights)
    # A lead from a passage naming none of the question's names ("Turkish people …" for "the
    # ethnic group which Torstein Ellingsen was its drummer") matches the asked words only:
    # it is no reading of the question to keep against a pair whose first hop names them.
    if reading.passage is not None and not _names_any(reader, q, reading.passage):
        lead_share = 0.0
    # The lead holds what a which/what question describes its answer with ("Which Victorian
    # poet …" → "…, born Charlotte Carnegie, was a Victorian poet …"): it is the answer, not a
    # first hop, unless the second sentence holds that description too.
    described = bool(q.head) and q.head <= lead_terms
    by_n = {p.n: p for p in pool}
    best: _Hop | None = None
    form = reader.terms(FORM_WORDS)
    for first in _first_hops(q, read, titles, weights):
        rest = q.asked - first.terms - titles[first.n] - form
        if not rest:
            continue
        for n in _bridged(reader, q, first, pool, titles):
            topic = reader.terms(f"{by_n[n].title or ''} {by_n[n].content}")
            for second in _best(reader, question, by_n[n], read[n], rest):
                # the sentence's own words, and its passage's ("It is composed of 40 members"
                # follows "The X Senate is the upper house …")
                held = (_share(rest, second.terms, weights) + _share(rest, topic, weights)) / 2
                if held < REST_MIN or not reader.answers_type(q, second.text):
                    continue
                if described and not q.head <= second.terms:
                    continue
                both = first.terms | titles[first.n]
                pair = (
                    _share(q.asked, both | second.terms, weights)
                    + _share(q.asked, both | topic, weights)
                ) / 2
                if pair < lead_share + GAIN_MIN:
                    continue
                score = pair + held
                if best is None or score > best.score:
                    best = _Hop(first, second, score)
    if best is None or sentence_key(best.second.text) == sentence_key(reading.lead.text):
        return None
    second, first = best.second, best.first
    return Reading(
        question=question,
        answer_type=q.kind,
        lead=ReadSentence(text=second.text, n=second.n, score=round(best.score, 4)),
        passage=by_n[second.n],
        span=reader.span(q, second.text),
        headline=reader.headline(q, second.text, by_n[second.n]),
        confidence=reading.confidence,
        support=[ReadSentence(text=first.text, n=first.n, score=0.0)],
        evidence=reading.evidence,
    )


def _sentences(
    reader: Reader, passage: Passage, compounds: dict[str, tuple[str, ...]]
) -> list[_Sentence]:
    """The passage's sentences with their terms (a compound of the question inside a word
    Kiwi reads whole counts: `Reader.sentence_terms`)."""
    title = sentence_key(passage.title or "")
    kept = [s for s in body_sentences(passage.content) if len(s) >= 8 and sentence_key(s) != title]
    terms = reader.sentence_terms(kept, compounds, content=True)
    return [_Sentence(passage.n, s, held) for s, held in zip(kept, terms, strict=True)]


def _best(
    reader: Reader, question: str, passage: Passage, sentences: list[_Sentence], rest: set[str]
) -> list[_Sentence]:
    """The bridge passage's sentences that may answer: the reader's best for the question,
    alone, and for an English question those holding a word the first hop lacks (the reader's
    best is often the passage's defining sentence, "Logar is one of the 34 provinces …", where
    the question's rest, "capital", is in a later one; on ko_company this lost a lead)."""
    lead = reader.read(question, [passage], check=False).lead
    found = [] if lead is None else [_Sentence(passage.n, lead.text, reader.terms(lead.text))]
    if is_korean(question):  # a Korean bridge passage's best sentence is its answer (ko_company)
        return found
    return found + [s for s in sentences if s.terms & rest and all(s.text != f.text for f in found)]


def _first_hops(
    q: ReadQuestion,
    read: dict[int, list[_Sentence]],
    titles: dict[int, set[str]],
    weights: dict[str, float],
) -> list[_Sentence]:
    """The sentences naming one of the question's entities (in the sentence, or as the title of
    its passage), most of the question's words first."""
    found = [
        s
        for n, sentences in read.items()
        for s in sentences
        if any(e <= s.terms | titles[n] for e in q.entities)
    ]
    found.sort(key=lambda s: -_share(q.terms, s.terms | titles[s.n], weights))
    return found[:FIRST_HOPS]


def _bridged(
    reader: Reader,
    q: ReadQuestion,
    first: _Sentence,
    pool: list[Passage],
    titles: dict[int, set[str]],
) -> list[int]:
    """The passages about a name the first hop holds and the question does not: titled by it,
    or opening with it (names compared by their normalised spelling too, since Kiwi may read
    "한결대학교" whole in one sentence and as 대학교 in another)."""
    named = set().union(*q.entities) | q.terms
    asked = normalize(q.text)
    written = normalize(first.text)
    names = [
        key
        for key in (normalize(m.name) for m in find_mentions(first.text))
        if len(key) >= 2 and key not in asked
    ]
    found = []
    for p in pool:
        if p.n == first.n:
            continue
        title, key = titles[p.n], normalize(p.title or "")
        if (title and title <= first.terms and not title <= named) or (
            len(key) >= 2 and key in written and key not in asked
        ):
            found.append(p.n)
            continue
        opening = normalize(next(iter(body_sentences(p.content)), "")[:200])
        if any(k in opening for k in names):
            found.append(p.n)
    return found


def _names_any(reader: Reader, q: ReadQuestion, passage: Passage) -> bool:
    """Whether the passage (title and text) holds one of the question's names."""
    held = reader.terms(f"{passage.title or ''} {passage.content}")
    return any(e <= held for e in q.entities)


def _share(terms: set[str], held: set[str], weights: dict[str, float]) -> float:
    whole = sum(weights.get(t, 1.0) for t in terms)
    return sum(weights.get(t, 1.0) for t in terms & held) / whole if whole else 0.0
