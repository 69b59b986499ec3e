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
- **An alternative question** ("… a university that is public or private?", `text/
  alternatives.py`): the sentence best matching the rest of the question (what the value is
  said of) answers it when it holds one of the values; otherwise the names that sentence adds
  are looked up (a KB of entity pages), else its name is searched with the two values.
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

from planrag.planner.schema import MAX_TOP_K, PlanStep, SearchPlan
from planrag.services.answers import Passage
from planrag.services.ask_events import SearchStages, StepAnswer
from planrag.services.passage_text import body_sentences
from planrag.services.step_execution import StepResult, step_result
from planrag.services.step_reader import MAX_ANSWER_CHARS, StepReader, added_names
from planrag.text.alternatives import Alternative, alternative
from planrag.text.entities import find_mentions, normalize, without_qualifier
from planrag.text.question_shapes import comparison, shared, yes_no
from planrag.text.step_types import PERSON, expected_type

ENTITY_PAGE_DEPTH = 3  # a page of the question's entity among the first search's best hits
ADAPTIVE_MISSING_MAX = 4  # more missing words: the first search missed, it found no bridge
LOOKUP_NAMES = 3  # own pages a lookup keeps: the bridge's, then the best by the question
LOOKUP_CANDIDATES = 12  # names of the first hop's page searched in one lookup
DESCRIBED_TITLE_WORDS = 6  # a described page's title: a name, not a sentence
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
        or _short_given_name(key.split("_"), head.split("_"))
    )


def _short_given_name(name: list[str], head: list[str]) -> bool:
    """A person's page under a longer or shorter given name: "Jeff Meldrum of Idaho State
    University" → "Jeffrey Meldrum" (the same surname; one given name begins the other)."""
    if len(head) != 2 or len(name) < 2 or name[1] != head[1] or name[0] == head[0]:
        return False
    short, full = sorted((name[0], head[0]), key=len)
    return len(short) >= 3 and full.startswith(short)


def looked_up(
    query: str, passages: list[Passage], question: str = "", reader: StepReader | None = None
) -> list[Passage]:
    """Entities searched by name: their own pages, not the names' other mentions (an entity
    without a page adds nothing: the first search's passages keep the merged budget). One
    page per entity; the first name's (the bridge read) first, then the pages holding most of
    the `question`'s words (with a `reader`: of a dozen names on the first hop's page, the one
    "born in 1965" for "the British actor born in 1965 …"), in the search's order on a tie."""
    names = [n for n in query.split(LOOKUP_SEPARATOR) if n.strip()]
    found: dict[str, tuple[bool, int, Passage]] = {}
    for at, passage in enumerate(passages):
        owner = next((i for i, n in enumerate(names) if own_passage(n, passage)), None)
        key = normalize(heading(passage))
        if owner is not None and key not in found:
            found[key] = (owner == 0, at, passage)
    terms = reader.terms(question) if reader is not None and question else set()

    def order(item: tuple[bool, int, Passage]) -> tuple[bool, int, int]:
        bridge, at, passage = item
        held = len(terms & reader.terms(passage.content)) if reader is not None else 0
        return (not bridge, -held, at)

    return [p for *_, p in sorted(found.values(), key=order)][:LOOKUP_NAMES]


def lookup(
    query: str, passages: list[Passage], question: str = "", reader: StepReader | None = None
) -> tuple[list[Passage], StepAnswer | None]:
    """A lookup step's passages and what it read: the pages found, by their headings (no step
    read, so no LLM call: the names were read by the step before)."""
    own = looked_up(query, passages, question, reader)
    if not own:
        return [], None
    text = LOOKUP_SEPARATOR.join(dict.fromkeys(heading(p) for p in own))[:MAX_ANSWER_CHARS]
    title = own[0].content.strip().splitlines()[0].strip()
    body = [s for s in body_sentences(own[0].content) if s.strip() != title]
    return own, StepAnswer(text=text, sentence=body[0] if body else text, passage=own[0].n)


def lookup_step(names: list[str]) -> PlanStep:
    """One search for several names (whole names only, within the query's 500 characters),
    deep enough for each name's own page."""
    kept: list[str] = []
    for name in names:
        if len(LOOKUP_SEPARATOR.join([*kept, name])) > 500:
            break
        kept.append(name)
    top_k = min(MAX_TOP_K, max(10, 2 * len(kept)))
    return PlanStep(id="s2", query=LOOKUP_SEPARATOR.join(kept), top_k=top_k)


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


def described_page(passage: Passage) -> bool:
    """An encyclopedia's page about a name, though the question describes it instead of
    naming it ("the fast-food restaurant specializing in seafood" → "Long John Silver's"): a
    title of two or more capitalised words (not a Markdown section, "## Equipment"), which
    its first sentence opens with ("Long John Silver's LLC is an American …"); the title of a
    page in a script without capitals (Korean) is never one."""
    lines = passage.content.strip().splitlines()
    if not lines or lines[0].lstrip().startswith("##"):
        return False
    words = heading(passage).split()
    if not 2 <= len(words) <= DESCRIBED_TITLE_WORDS or not words[0][:1].isupper():
        return False
    if not all(w[:1].isupper() or w[:1].isdigit() or w.islower() and len(w) <= 3 for w in words):
        return False
    body = [s for s in body_sentences(passage.content) if s.strip() != lines[0].strip()]
    return bool(body) and body[0].split()[: len(words)] == words


def first_hops(question: str, passages: list[Passage]) -> list[Passage]:
    """The question's entities' own pages among the best hits: a KB of entity pages; else the
    best hit when it is a page about what the question describes (`described_page`)."""
    names = [f"_{normalize(m.name)}_" for m in find_mentions(question)]
    named = [p for p in passages[:ENTITY_PAGE_DEPTH] if _page_of_question(question, names, p)]
    if named or not passages:
        return named
    return passages[:1] if described_page(passages[0]) else []


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
    choice = alternative(question)
    if choice is not None:  # "… a university that is public or private?"
        return _alternative_step(question, choice, reader, plan, found, bool(hops), started)
    named = subjects(question)
    if named:  # a comparison or a verdict: its subjects' passages are its evidence
        missing = [n for n in named if not subject_present(reader, n, passages)]
        if not missing or not hops:  # all there, or no entity pages to look one up by
            return None
        first = step_result(first_step, first_step.query, plan, passages, stages, None, started)
        return Adaptive(first_step, first, AdaptiveStep(lookup_step(missing), lookup=True))
    if not (chain_shaped or hops):
        return None  # no chain, no entity page
    if reader.covers(question, passages):  # one passage holds every word asked
        return _answer_page(question, reader, plan, found, bool(hops), started)
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
        names += added_names(question, answer.sentence) + added_names(question, hops[0].content)
        missing = [
            n
            for n in dict.fromkeys(names)
            if len(n) >= 3 and not any(own_passage(n, p) for p in first.passages)
        ][:LOOKUP_CANDIDATES]
        if not missing:
            return None
        return AdaptiveStep(lookup_step(missing), lookup=True)
    if not chain_shaped or reader.covers(question, first.passages):
        return None
    missing_words = reader.missing(question, first.passages)
    if not missing_words or len(missing_words) > ADAPTIVE_MISSING_MAX:
        return None
    query = f"{{{{s1.answer}}}} {' '.join(missing_words)}"[:500]
    return AdaptiveStep(PlanStep(id="s2", query=query), lookup=False)


def _answer_page(
    question: str,
    reader: StepReader,
    plan: SearchPlan,
    found: tuple[list[Passage], SearchStages],
    entity_pages: bool,
    started: float,
) -> Adaptive | None:
    """A question a passage holds whole needs no bridge; but when it asks for a person on a
    KB of entity pages ("who was the anthropologist who …"), the person the passage names is
    looked up for their own page (read extractively: no LLM call)."""
    passages, stages = found
    if not entity_pages or expected_type(question).kind != PERSON:
        return None
    answer = reader.extract(question, passages)
    if answer is None or any(own_passage(answer.text, p) for p in passages):
        return None
    first_step = PlanStep(id="s1", query=plan.query or question)
    first = step_result(first_step, first_step.query, plan, passages, stages, None, started)
    return Adaptive(first_step, first, AdaptiveStep(lookup_step([answer.text]), lookup=True))


def _alternative_step(
    question: str,
    choice: Alternative,
    reader: StepReader,
    plan: SearchPlan,
    found: tuple[list[Passage], SearchStages],
    entity_pages: bool,
    started: float,
) -> Adaptive | None:
    """A choice between two values of one subject the question describes: no step when the
    sentence about the subject holds a value ("City University is an accredited private
    university"); else that sentence is the bridge ("… Professor A. Selvanathan, who served …
    as Professor of Southern Cross University"): the names it adds are the subject's
    candidates, looked up for their own pages, or its name searched with the values."""
    passages, stages = found
    answer = reader.read(choice.rest, passages, bridge=True)
    if answer is None or holds_value(reader, choice, answer.sentence):
        return None
    first_step = PlanStep(id="s1", query=plan.query or question)
    first = step_result(first_step, first_step.query, plan, passages, stages, answer, started)
    if not entity_pages and not any(described_page(p) for p in passages[:ENTITY_PAGE_DEPTH]):
        query = f"{{{{s1.answer}}}} {' '.join(choice.values)}"[:500]
        return Adaptive(first_step, first, AdaptiveStep(PlanStep(id="s2", query=query), False))
    names = [answer.text, *added_names(choice.rest, answer.sentence)]
    missing = [
        n
        for n in dict.fromkeys(names)
        if len(n) >= 3 and not any(own_passage(n, p) for p in passages)
    ][:LOOKUP_CANDIDATES]
    if not missing:
        return None
    return Adaptive(first_step, first, AdaptiveStep(lookup_step(missing), lookup=True))


def holds_value(reader: StepReader, choice: Alternative, sentence: str) -> bool:
    """The sentence says one of the alternative's values (all of its words; a number as
    written: "2015년")."""
    held = reader.terms(sentence)
    return any(
        ((terms := reader.terms(v)) and terms <= held) or v in sentence for v in choice.values
    )
