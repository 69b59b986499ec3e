"""The steps of one ask, as a stream of `step` events: a multi-step plan's steps in order, or the
adaptive second step after an ordinary search. Each step is one admitted search turn; the step
budget (`PLANRAG_PLANNER__MAX_STEPS`) and time budget (`PLANRAG_ASK__STEPS_TIME_BUDGET_S`) bound
them, and a step that cannot run says why (`StepStop`, in the `end` event)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from planrag.core.types import KnowledgeBase
from planrag.planner.schema import PlanStep, SearchPlan
from planrag.services.admission import StageAdmission
from planrag.services.answers import Passage
from planrag.services.ask_events import SearchStages, StepEvent, StepStop
from planrag.services.ownership import Restriction
from planrag.services.step_execution import Lookup, StepResult, StepRunner
from planrag.services.step_reader import StepReader


@dataclass
class StepsOutcome:
    """What the steps left: every step's result, the merged passages, why they stopped."""

    results: list[StepResult] = field(default_factory=list)
    stopped: StepStop | None = None
    passages: list[Passage] = field(default_factory=list)
    stages: SearchStages = field(default_factory=SearchStages)

    def answered(self, answer_from: str | None) -> bool:
        """Whether the step the answer comes from read an answer."""
        wanted = answer_from or (self.results[-1].record.id if self.results else None)
        return any(r.record.id == wanted and r.record.answer for r in self.results)


@dataclass
class StepsRequest:
    plan: SearchPlan
    kbs: dict[str, KnowledgeBase]
    restriction: Restriction
    reader: StepReader
    steps: list[PlanStep]
    first: StepResult | None = None  # the adaptive case: s1 is the search already run
    lookup: Lookup | None = None  # the adaptive step looks names up


class AskSteps:
    def __init__(
        self, runner: StepRunner, admission: StageAdmission, max_steps: int, budget_s: float
    ) -> None:
        self._runner = runner
        self._admission = admission
        self._max_steps = max_steps
        self._budget_s = budget_s

    async def run(self, request: StepsRequest, outcome: StepsOutcome) -> AsyncIterator[StepEvent]:
        deadline = time.monotonic() + self._budget_s
        answers: dict[str, str] = {}
        for step in request.steps[: self._max_steps]:
            if request.first is not None and step.id == "s1":
                result = request.first
            else:
                stop = _blocked(step, answers, outcome, deadline, self._budget_s)
                if stop is not None:
                    outcome.stopped = stop
                    break
                result = await self._admission.search(
                    lambda step=step: self._runner.run(  # type: ignore[misc]
                        request.plan,
                        step,
                        answers,
                        request.kbs,
                        request.restriction,
                        request.reader,
                        adaptive=request.first is not None,
                        lookup=request.lookup if step.id != "s1" else None,
                    )
                )
            outcome.results.append(result)
            if result.record.answer is not None:
                answers[step.id] = result.record.answer.text
            yield StepEvent.model_validate(result.record.model_dump())
        if outcome.stopped is None and len(request.steps) > self._max_steps:
            outcome.stopped = StepStop(
                step=request.steps[self._max_steps].id,
                reason=f"the step budget ({self._max_steps} steps) is spent",
            )
        outcome.passages = self._runner.merge(outcome.results)
        outcome.stages = _stages(outcome)


def _blocked(
    step: PlanStep,
    answers: dict[str, str],
    outcome: StepsOutcome,
    deadline: float,
    budget_s: float,
) -> StepStop | None:
    """Why a step cannot run: the time budget is spent, or a step it names found no answer."""
    if time.monotonic() >= deadline:
        return StepStop(step=step.id, reason=f"the time budget ({budget_s:g} s) is spent")
    for ref in step.references():
        if ref not in answers:
            earlier = next((r.record for r in outcome.results if r.record.id == ref), None)
            why = earlier.reason if earlier and earlier.reason else "it did not run"
            return StepStop(step=step.id, reason=f"step {ref} found no answer ({why})")
    return None


def _stages(outcome: StepsOutcome) -> SearchStages:
    retrieved: dict[str, int] = {}
    notes: list[str] = []
    graph: dict[str, dict[str, object]] = {}
    for result in outcome.results:
        stages = result.record.stages
        for kb, count in (stages.retrieved or {}).items():
            retrieved[kb] = retrieved.get(kb, 0) + count
        notes.extend(f"{result.record.id}: {note}" for note in stages.notes)
        graph.update(stages.graph or {})
    return SearchStages(
        retrieved=retrieved or None,
        merged=sum(r.record.stages.merged for r in outcome.results),
        passages=len(outcome.passages),
        notes=notes,
        graph=graph or None,  # type: ignore[arg-type]
    )
