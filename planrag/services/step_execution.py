"""Running a multi-step plan's steps (DESIGN.md "Steps"): each step is an ordinary one-search plan
run by the same PlanExecutor (same whitelisted executors, filters, post-processing); its answer is
read from its passages and fills the later steps' `{{sN.answer}}`. Also the merge of every
step's passages into the numbered passages the final answer cites (the adaptive step, when to
add one, is `adaptive_steps.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel

from planrag.core.types import KnowledgeBase
from planrag.planner.schema import PlanStep, SearchPlan
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
from planrag.text.step_types import expected_type

Lookup = Callable[[str, list[Passage]], tuple[list[Passage], StepAnswer | None]]


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
        lookup: Lookup | None = None,
    ) -> StepResult:
        """One step: fill its query, search as an ordinary plan, read its answer. `lookup`:
        the step looks entities up by name, and keeps what it says of the passages found."""
        started = time.perf_counter()
        query = step.filled(answers)
        step_plan = plan.step_plan(step, query)
        passages, stages = self._executor.execute(step_plan, query, kbs, restriction)
        answer = None
        if lookup is not None:  # entities looked up by name: their own pages, already read
            passages, answer = lookup(query, passages)
        elif self._graph is not None:
            chosen = [kbs[name] for name in step_plan.knowledge_bases if name in kbs]
            graphed = self._graph.read(query, chosen, passages, restriction)
            if graphed is not None:
                answer, passages = graphed
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
