"""Running a multi-step plan's steps (DESIGN.md "Steps"): each step is an ordinary one-search plan
run by the same PlanExecutor (same whitelisted executors, filters, post-processing); its answer is
read from its passages and fills the later steps' `{{sN.answer}}`. Also the adaptive step (a
one-search plan whose reader found a bridge entity but not the answer gets a second search) and
the merge of every step's passages into the numbered passages the final answer cites.
"""

from __future__ import annotations

import time

from pydantic import BaseModel

from planrag.core.types import KnowledgeBase
from planrag.planner.schema import STEP_REFERENCE, PlanStep, SearchPlan
from planrag.services.answers import Passage
from planrag.services.ask_events import (
    ResultHit,
    SearchStages,
    StepAnswer,
    StepRecord,
    StepStatus,
)
from planrag.services.graph_steps import GraphStepReader
from planrag.services.ownership import Restriction
from planrag.services.plan_execution import PlanExecutor
from planrag.services.step_reader import StepReader
from planrag.text.entities import find_mentions, normalize, without_qualifier
from planrag.text.step_types import expected_type

ENTITY_PAGE_DEPTH = 3  # a page of the question's entity among the first search's best hits
ADAPTIVE_MISSING_MAX = 4  # more missing words: the first search missed, it found no bridge


class StepResult(BaseModel):
    record: StepRecord
    passages: list[Passage]


class StepRunner:
    def __init__(
        self, executor: PlanExecutor, max_passages: int, graph: GraphStepReader | None = None
    ) -> None:
        self._executor = executor
        self._max_passages = max_passages
        self._graph = graph  # answers a step off the KB's typed relations, when it has a graph

    def run(
        self,
        plan: SearchPlan,
        step: PlanStep,
        answers: dict[str, str],
        kbs: dict[str, KnowledgeBase],
        restriction: Restriction,
        reader: StepReader,
        adaptive: bool = False,
    ) -> StepResult:
        """One step: fill its query, search as an ordinary plan, read its answer."""
        started = time.perf_counter()
        query = step.filled(answers)
        step_plan = plan.step_plan(step, query)
        passages, stages = self._executor.execute(step_plan, query, kbs, restriction)
        answer = None
        if self._graph is not None:
            chosen = [kbs[name] for name in step_plan.knowledge_bases if name in kbs]
            graphed = self._graph.read(query, chosen, passages, restriction)
            if graphed is not None:
                answer, passages = graphed
        if adaptive and STEP_REFERENCE.fullmatch(step.query.strip()) and passages:
            # an entity looked up by name: its own passage, not the name's other mentions
            passages = looked_up(query, passages)
        if answer is None and passages:
            earlier = [answers[ref] for ref in step.references() if ref in answers]
            answer = reader.read(query, passages, earlier=earlier)
        return step_result(step, query, step_plan, passages, stages, answer, started, adaptive)

    def merge(self, results: list[StepResult]) -> list[Passage]:
        """Every step's passages, interleaved (each step's best first, the latest step leading),
        each chunk once, renumbered 1… up to the passage budget: the answer cites all steps."""
        queues = [list(r.passages) for r in reversed(results)]
        merged: list[Passage] = []
        seen: set[str] = set()
        while any(queues) and len(merged) < self._max_passages:
            for queue in queues:
                while queue and queue[0].chunk_id in seen:
                    queue.pop(0)
                if queue and len(merged) < self._max_passages:
                    passage = queue.pop(0)
                    seen.add(passage.chunk_id)
                    merged.append(passage.model_copy(update={"n": len(merged) + 1}))
        return merged


def step_result(
    step: PlanStep,
    query: str,
    plan: SearchPlan,
    passages: list[Passage],
    stages: SearchStages,
    answer: StepAnswer | None,
    started: float,
    adaptive: bool = False,
) -> StepResult:
    """A step's record: what it searched, found and read, or why it found nothing."""
    status: StepStatus = "ok" if answer else ("no_answer" if passages else "empty")
    reason = None
    if status == "empty":
        reason = f"no passage matched {query!r}"
    elif status == "no_answer":
        reason = f"{len(passages)} passages, none of which names an answer to {query!r}"
    record = StepRecord(
        id=step.id,
        query=query,
        planned=step.query,
        expected_type=expected_type(query).kind or None,
        plan=plan,
        hits=[ResultHit.of(p) for p in passages],
        stages=stages,
        answer=answer,
        status=status,
        reason=reason,
        adaptive=adaptive,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
    )
    return StepResult(record=record, passages=passages)


def heading(passage: Passage) -> str:
    """A passage's first line without Markdown marks or a trailing qualifier ("Double Agent
    (1987 film)" → "Double Agent"): the name of an entity page."""
    lines = passage.content.strip().splitlines()
    first = lines[0].strip().lstrip("#").strip() if lines else ""
    return without_qualifier(first)


def own_passage(name: str, passage: Passage) -> bool:
    """The passage is the entity's own page: its heading is the name."""
    key = normalize(name)
    return bool(key) and normalize(heading(passage)) == key


def looked_up(name: str, passages: list[Passage]) -> list[Passage]:
    """An entity searched by name: its own page (the others only mention it), else the best
    hit; the first search's passages keep the rest of the merged budget."""
    return [p for p in passages if own_passage(name, p)] or passages[:1]


def entity_pages(question: str, passages: list[Passage]) -> bool:
    """The KB keeps a page per entity (an encyclopedia): a hit's heading is a name the
    question holds ("The Scarlet Letter" for "… film The Scarlet Letter …"). A name, not any
    words: a section heading "Equipment" is no entity page for "What equipment does …?"."""
    names = [f"_{normalize(m.name)}_" for m in find_mentions(question)]
    return any(
        len(h := normalize(heading(p))) >= 4 and any(f"_{h}_" in name for name in names)
        for p in passages[:ENTITY_PAGE_DEPTH]
    )


def adaptive_step(
    question: str, reader: StepReader, first: StepResult, chain_shaped: bool = True
) -> PlanStep | None:
    """A second search when the first found a bridge but not the answer.

    IRCoT-like, on a KB of entity pages: the first search's reader names an entity the
    question does not, and that entity's own page is not among the hits: look it up by name
    (its own passage joins the first search's). Otherwise, for a question shaped like a chain
    (`chain_shaped`): its passages miss a few of the question's content words, searched with
    the bridge. Conservative: a first search holding every word, or missing most of them,
    gets no second step."""
    if first.record.answer is None or not first.passages:
        return None
    bridge = first.record.answer.text
    if entity_pages(question, first.passages) and not any(
        own_passage(bridge, p) for p in first.passages
    ):
        return PlanStep(id="s2", query="{{s1.answer}}")
    if not chain_shaped or reader.covers(question, first.passages):
        return None
    missing = reader.missing(question, first.passages)
    if not missing or len(missing) > ADAPTIVE_MISSING_MAX:
        return None
    return PlanStep(id="s2", query=f"{{{{s1.answer}}}} {' '.join(missing)}"[:500])


def step_answer_text(results: list[StepResult], merged: list[Passage], written: str = "") -> str:
    """The extractive answer of a chain: each step's sentence, cited with its merged number,
    unless `written` (the answer's text so far) or an earlier step holds it already."""
    number = {p.chunk_id: p.n for p in merged}
    parts: list[str] = [written] if written else []
    for result in results:
        answer = result.record.answer
        if answer is None:
            continue
        chunk = next((p.chunk_id for p in result.passages if p.n == answer.passage), None)
        n = number.get(chunk or "")
        if n is not None and answer.sentence not in " ".join(parts):
            parts.append(f"{answer.sentence} [{n}]")
    return " ".join(parts[1:] if written else parts)
