"""The adaptive step (DESIGN.md "Steps"): a second search after an ordinary one, only when it can
add something the first search's passages lack.

- **A comparison or a yes/no question** ("Which is older, A or B?", "Are A and B both …?"): its
  evidence is its subjects' passages. All present: no step. One missing on a KB of entity pages:
  that subject is looked up by name (no read needed).
- **A KB of entity pages** (an encyclopedia: a top hit's heading is a name the question holds),
  IRCoT-like: the bridge the reader names, and the names the best sentence of the question's
  entity's own page adds, whose own pages are not among the hits, are looked up by name in one
  search and their own pages join the merged passages — unless one passage already holds every
  content word of the question (the answer is there: nothing to add).
- **A question shaped like a chain** (any KB): its passages miss a few of the question's content
  words, searched with the bridge the reader names (session 8's rule).

Everything that decides before the first read is cheap (no LLM): a question that cannot gain
costs no step read.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass

from planrag.planner.schema import PlanStep, SearchPlan
from planrag.services.answers import Passage
from planrag.services.ask_events import SearchStages, StepAnswer
from planrag.services.passage_text import body_sentences
from planrag.services.step_execution import StepResult, step_result
from planrag.services.step_reader import MAX_ANSWER_CHARS, StepReader, added_names
from planrag.text.entities import find_mentions, normalize, without_qualifier
from planrag.text.question_shapes import comparison, shared, yes_no

ENTITY_PAGE_DEPTH = 3  # a page of the question's entity among the first search's best hits
ADAPTIVE_MISSING_MAX = 4  # more missing words: the first search missed, it found no bridge
LOOKUP_NAMES = 3  # names of the first hop's sentence looked up in one search
LOOKUP_SEPARATOR = "; "  # between the names of a lookup step's query


@dataclass(frozen=True)
class AdaptiveStep:
    step: PlanStep
    lookup: bool  # names looked up: only their own pages are kept


@dataclass(frozen=True)
class Adaptive:
    """What the adaptive step needs: the first search as step s1 (with its read), the second."""

    step: PlanStep  # s1: the search already run
    first: StepResult
    second: AdaptiveStep


def heading(passage: Passage) -> str:
    """A passage's first line without Markdown marks, HTML entities ("Hustle &amp; Flow") or a
    trailing qualifier ("Double Agent (1987 film)" → "Double Agent"): an entity page's name."""
    lines = passage.content.strip().splitlines()
    first = lines[0].strip().lstrip("#").strip() if lines else ""
    return without_qualifier(html.unescape(first))


def own_passage(name: str, passage: Passage) -> bool:
    """The passage is the entity's own page: its heading is the name, or the name's leading
    words ("Jeff Meldrum" for "Jeff Meldrum of Idaho State University"), or the name of two
    words or more is the heading's start (the mention finder cut "John C. Bogle" at "C.")."""
    key, head = normalize(name), normalize(heading(passage))
    if not key or not head:
        return False
    return (
        head == key
        or ("_" in head and key.startswith(head + "_"))
        or ("_" in key and head.startswith(key + "_"))
    )


def looked_up(query: str, passages: list[Passage]) -> list[Passage]:
    """Entities searched by name: their own pages, not the names' other mentions (an entity
    without a page adds nothing: the first search's passages keep the merged budget)."""
    names = [n for n in query.split(LOOKUP_SEPARATOR) if n.strip()]
    return [p for p in passages if any(own_passage(n, p) for n in names)][:LOOKUP_NAMES]


def lookup(query: str, passages: list[Passage]) -> tuple[list[Passage], StepAnswer | None]:
    """A lookup step's passages and what it read: the pages found, by their headings (no step
    read, so no LLM call: the names were read by the step before)."""
    own = looked_up(query, passages)
    if not own:
        return [], None
    text = LOOKUP_SEPARATOR.join(dict.fromkeys(heading(p) for p in own))[:MAX_ANSWER_CHARS]
    title = own[0].content.strip().splitlines()[0].strip()
    body = [s for s in body_sentences(own[0].content) if s.strip() != title]
    return own, StepAnswer(text=text, sentence=body[0] if body else text, passage=own[0].n)


def _page_of_question(question: str, names: list[str], passage: Passage) -> bool:
    head = heading(passage)
    key = normalize(head)
    if len(key) < 4:
        return False
    if any(f"_{key}_" in name for name in names):
        return True
    # written in the question as it is titled, not at its start ("In regards to Value premium
    # an expert …"): a name, though the mention finder splits it; "What equipment …" is not
    found = re.search(rf"(?<=\s){re.escape(head)}\b", question)
    return bool(found) and head[:1].isupper()


def first_hops(question: str, passages: list[Passage]) -> list[Passage]:
    """The question's entities' own pages among the best hits: a KB of entity pages."""
    names = [f"_{normalize(m.name)}_" for m in find_mentions(question)]
    return [p for p in passages[:ENTITY_PAGE_DEPTH] if _page_of_question(question, names, p)]


def entity_pages(question: str, passages: list[Passage]) -> bool:
    """The KB keeps a page per entity (an encyclopedia): a hit's heading is a name the
    question holds ("The Scarlet Letter" for "… film The Scarlet Letter …"). A name, not any
    words: a section heading "Equipment" is no entity page for "What equipment does …?"."""
    return bool(first_hops(question, passages))


def subjects(question: str) -> tuple[str, ...]:
    """The named subjects a comparison, a yes/no or an in-common question is about."""
    choice = comparison(question)
    if choice is not None:
        return choice.alternatives
    common = shared(question)
    if common is not None:
        return common.subjects
    verdict = yes_no(question)
    return verdict.subjects if verdict is not None else ()


def subject_present(reader: StepReader, name: str, passages: list[Passage]) -> bool:
    """A subject has its passage: its own page, or one naming every word of it."""
    return any(own_passage(name, p) for p in passages) or any(
        reader.covers(name, [p]) for p in passages
    )


def plan_adaptive(
    question: str,
    reader: StepReader,
    plan: SearchPlan,
    found: tuple[list[Passage], SearchStages],
    chain_shaped: bool,
) -> Adaptive | None:
    """The adaptive step after the first search, or None when a second search cannot add."""
    started = time.perf_counter()
    passages, stages = found
    first_step = PlanStep(id="s1", query=plan.query or question)
    if not passages:
        return None
    hops = first_hops(question, passages)
    named = subjects(question)
    if named:  # a comparison or a verdict: its subjects' passages are its evidence
        missing = [n for n in named if not subject_present(reader, n, passages)]
        if not missing or not hops:  # all there, or no entity pages to look one up by
            return None
        first = step_result(first_step, first_step.query, plan, passages, stages, None, started)
        lookup = PlanStep(id="s2", query=LOOKUP_SEPARATOR.join(missing)[:500])
        return Adaptive(first_step, first, AdaptiveStep(lookup, lookup=True))
    if not (chain_shaped or hops) or reader.covers(question, passages):
        return None  # no chain, no entity page, or one passage holds every word asked
    answer = reader.read(first_step.query, passages, bridge=True)
    first = step_result(first_step, first_step.query, plan, passages, stages, answer, started)
    second = adaptive_step(question, reader, first, chain_shaped)
    return Adaptive(first_step, first, second) if second is not None else None


def adaptive_step(
    question: str, reader: StepReader, first: StepResult, chain_shaped: bool = True
) -> AdaptiveStep | None:
    """A second search when the first found a bridge but not the answer.

    On a KB of entity pages: the names the bridge's sentence adds whose own pages are not
    among the hits, looked up by name. Otherwise, for a question shaped like a chain
    (`chain_shaped`): its passages miss a few of the question's content words, searched with
    the bridge. Conservative: a first search holding every word, or missing most of them,
    gets no second step."""
    if first.record.answer is None or not first.passages:
        return None
    answer = first.record.answer
    hops = first_hops(question, first.passages)
    if hops:  # the bridge, the names of its sentence and of the question's own page's
        hop = reader.extract(question, hops, bridge=True)
        names = [answer.text, *added_names(question, hop.sentence if hop else "")]
        names += added_names(question, answer.sentence)
        missing = [
            n for n in dict.fromkeys(names) if not any(own_passage(n, p) for p in first.passages)
        ][:LOOKUP_NAMES]
        if not missing:
            return None
        query = LOOKUP_SEPARATOR.join(missing)[:500]
        return AdaptiveStep(PlanStep(id="s2", query=query), lookup=True)
    if not chain_shaped or reader.covers(question, first.passages):
        return None
    missing_words = reader.missing(question, first.passages)
    if not missing_words or len(missing_words) > ADAPTIVE_MISSING_MAX:
        return None
    query = f"{{{{s1.answer}}}} {' '.join(missing_words)}"[:500]
    return AdaptiveStep(PlanStep(id="s2", query=query), lookup=False)
