"""One ask in progress: its timings, trace record and closing `end` event, and the evidence
events (search_result → exist_in_post_status → context) every answer path sends."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

from planrag.core.messages import Param
from planrag.planner.schema import PlanEnvelope
from planrag.services import answers
from planrag.services.answers import Passage, UnsupportedCitation
from planrag.services.ask_events import (
    AskEvent,
    AskTrace,
    ContextEvent,
    EndEvent,
    ErrorEvent,
    ExistInPostStatusEvent,
    ResultHit,
    SearchResultEvent,
    SearchStages,
    TraceError,
)
from planrag.services.ask_requests import TONE_NAMES, AskRequest
from planrag.services.ask_steps import StepsRequest
from planrag.services.citation_check import cited_sentences
from planrag.services.fusion_feedback import Evidence
from planrag.stores.traces import Trace


def elapsed_ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


class AskRun:
    """One ask in progress: its trace and the typed record the trace stores."""

    def __init__(self, request: AskRequest, principal: str | None) -> None:
        self.request = request
        self.started = time.perf_counter()
        self.recorded = False
        self.extractive: str | None = None  # the extractive answer, made with the search
        self.unsupported: list[UnsupportedCitation] | None = None  # an LLM answer's, checked
        self.chain: StepsRequest | None = None  # steps to run: planned, or the adaptive one
        self.chained: tuple[list[Passage], bool] = ([], False)  # their passages, evidence
        self.evidence: list[Evidence] = []  # what its cited passages teach the fusion weights
        self.record = AskTrace()
        self.trace = Trace(
            id=str(uuid.uuid4()),
            created_at=datetime.now(UTC),
            question=request.question,
            principal=principal,
            source="none",
            status="error",
        )

    def end(self, passages: list[Passage]) -> EndEvent:
        self.record.timings_ms["total"] = elapsed_ms(self.started)
        cited = answers.citations(self.record.answer or "", passages)
        if self.unsupported:  # a passage stays cited while one of its citations holds
            held = {n for _, ns in cited_sentences(self.record.answer or "") for n in ns}
            dropped = {u.n for u in self.unsupported} - _supported_numbers(
                self.record.answer or "", self.unsupported, held
            )
            cited = [c for c in cited if c.n not in dropped]
        self.record.citations = cited
        self.record.unsupported_citations = self.unsupported
        self.trace.status = "ok"
        tone = self.request.speech_tone
        return EndEvent(
            trace_id=self.trace.id,
            answer_source=self.record.answer_source or "none",
            citations=self.record.citations,
            timings_ms=self.record.timings_ms,
            speech_tone=TONE_NAMES[tone] if tone is not None else None,
            unsupported_citations=self.unsupported,
            steps_stopped=self.record.steps_stopped,
        )

    def fail(self, code: str, message: str, params: dict[str, Param] | None = None) -> ErrorEvent:
        self.record.error = TraceError(code=code, message=message)
        return ErrorEvent(code=code, message=message, params=params or {}, trace_id=self.trace.id)


def evidence_events(
    passages: list[Passage], exists: bool, stages: SearchStages | None, envelope: PlanEnvelope
) -> list[AskEvent]:
    """search_result → exist_in_post_status → context."""
    return [
        SearchResultEvent(
            total=len(passages),
            stages=stages or SearchStages(),
            relaxed=envelope.relaxed is not None,
            graph=stages.graph if stages else None,
            hits=[ResultHit.of(p) for p in passages],
        ),
        ExistInPostStatusEvent(
            exists=exists, count=len(passages), threshold=envelope.plan.threshold
        ),
        ContextEvent(passages=passages),
    ]


def _supported_numbers(
    answer: str, unsupported: list[UnsupportedCitation], cited: set[int]
) -> set[int]:
    """The passages some sentence cites without its citation being unsupported."""
    bad = {(u.sentence, u.n) for u in unsupported}
    return {
        n for sentence, numbers in cited_sentences(answer) for n in numbers
        if n in cited and (sentence, n) not in bad
    }  # fmt: skip
