"""The ask stream's events, one pydantic model each, and the typed trace record of an ask.

Order (DESIGN.md): search_plan → step* (multi-step plans) → search_result → exist_in_post_status →
context → answer* → end;
a failure after the stream started is an `error` event. A model's fields are the event's `data`;
its `event` class variable is the SSE event name. The ask service, the SSE router, the CLI and
the one-body dialects (spec 004) all read these models; nothing on the ask path passes dicts.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, model_serializer

from planrag.core.errors import error_for_code
from planrag.core.messages import Param
from planrag.planner.schema import PlanEnvelope, SearchPlan
from planrag.services.answers import Citation, Passage, UnsupportedCitation
from planrag.services.spec002_plan import Spec002Plan, UserScope


class SearchStages(BaseModel):
    """Counts per stage of a plan's execution."""

    retrieved: dict[str, int] | None = Field(default=None, description="hits per knowledge base")
    listed: bool | None = Field(default=None, description="a listing plan: documents by date")
    in_range: int | None = Field(default=None, description="listing: documents the filters leave")
    merged: int = 0
    passages: int = 0
    notes: list[str] = Field(default_factory=list, description="failed KBs, fallbacks")
    graph: dict[str, dict[str, Any]] | None = Field(
        default=None, description="what graph search did, per knowledge base"
    )
    fusion: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="how hybrid search weighted its legs (weights, confidence, why), per "
        "knowledge base",
    )

    @model_serializer(mode="wrap")
    def _only_what_applies(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("retrieved", "listed", "in_range", "graph", "fusion"):
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("notes"):
            data.pop("notes", None)
        return data


class ResultHit(BaseModel):
    n: int
    chunk_id: str
    doc_id: str
    knowledge_base: str
    title: str | None = None
    date: str | None = None
    score: float

    @classmethod
    def of(cls, passage: Passage) -> ResultHit:
        return cls.model_validate(passage.model_dump(exclude={"content"}))


StepStatus = Literal["ok", "empty", "no_answer"]


class StepAnswer(BaseModel):
    """What a step read: the answer, the sentence it came from and that passage (its `n` in the
    step's own hits)."""

    text: str = Field(description="the answer, e.g. a bridge entity")
    sentence: str
    passage: int = Field(ge=1)
    source: Literal["extractive", "llm", "graph"] = "extractive"


class StepRecord(BaseModel):
    """One step as run: the `step` event's data and the trace's record of it."""

    id: str
    query: str = Field(description="the query searched, references filled in")
    planned: str = Field(description="the query as planned, with its {{sN.answer}}")
    expected_type: str | None = Field(
        default=None,
        description="the type of answer the step's query asks for (PERSON, ORGANIZATION, "
        "PLACE, PRODUCT, DATE, NUMBER); null when it names none",
    )
    plan: SearchPlan = Field(description="the one-search plan the executors ran")
    hits: list[ResultHit]
    stages: SearchStages
    answer: StepAnswer | None = Field(default=None, description="the answer read (bridge)")
    status: StepStatus
    reason: str | None = Field(default=None, description="why the step found nothing")
    adaptive: bool = Field(default=False, description="added at run time, not planned")
    elapsed_ms: float = 0.0


class StepStop(BaseModel):
    """Why the steps stopped before the last one (the `end` event's `steps_stopped`)."""

    step: str = Field(description="the step that did not run, or found nothing")
    reason: str


class StepEvent(StepRecord):
    event: ClassVar[str] = "step"


class SearchPlanEvent(PlanEnvelope):
    event: ClassVar[str] = "search_plan"

    spec002: Spec002Plan | None = Field(
        default=None, description="the plan in spec 002's names (mode post, filters.post_id …)"
    )
    user_scope: UserScope | None = Field(
        default=None, description="which knowledge bases user_id narrowed, and the rule"
    )


class SearchResultEvent(BaseModel):
    event: ClassVar[str] = "search_result"

    total: int
    stages: SearchStages
    relaxed: bool
    graph: dict[str, dict[str, Any]] | None = Field(
        default=None, description="graph search per knowledge base (entities, triples, queries)"
    )
    hits: list[ResultHit]


class ExistInPostStatusEvent(BaseModel):
    event: ClassVar[str] = "exist_in_post_status"

    exists: bool
    count: int
    threshold: float | None


class ContextEvent(BaseModel):
    event: ClassVar[str] = "context"

    passages: list[Passage]


class AnswerEvent(BaseModel):
    event: ClassVar[str] = "answer"

    delta: str


class EndEvent(BaseModel):
    event: ClassVar[str] = "end"

    trace_id: str
    answer_source: str
    citations: list[Citation]
    timings_ms: dict[str, float]
    speech_tone: str | None = Field(default=None, description="the register asked for")
    conversation_id: str | None = Field(default=None, description="when the ask is a turn")
    unsupported_citations: list[UnsupportedCitation] | None = Field(
        default=None,
        description="an LLM answer's citations its passage does not support, checked after "
        "generation and left out of `citations` ([] when all hold; absent without an LLM answer)",
    )
    steps_stopped: StepStop | None = Field(
        default=None, description="a multi-step plan stopped early: which step, why"
    )

    @model_serializer(mode="wrap")
    def _only_what_applies(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("speech_tone", "conversation_id", "unsupported_citations", "steps_stopped"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class ErrorEvent(BaseModel):
    event: ClassVar[str] = "error"

    code: str
    message: str
    params: dict[str, Param] = Field(
        default_factory=dict, description="what fills in the code's text (core/messages.py)"
    )
    trace_id: str | None = None

    def to_exception(self) -> Exception:
        """The domain error this event reports (its code keeps the HTTP status: 404, 503…)."""
        return error_for_code(self.code, self.message)


AskEvent = (
    SearchPlanEvent
    | StepEvent
    | SearchResultEvent
    | ExistInPostStatusEvent
    | ContextEvent
    | AnswerEvent
    | EndEvent
    | ErrorEvent
)


def event_data(event: AskEvent) -> dict[str, Any]:
    """An event's `data` as JSON-ready values (plan fields by alias: `from`)."""
    return event.model_dump(mode="json", by_alias=True)


class TraceError(BaseModel):
    code: str
    message: str


class AskTrace(BaseModel):
    """What a stored trace records of one ask (`Trace.data`); parts not reached stay unset."""

    envelope: PlanEnvelope | None = None
    steps: list[StepRecord] | None = None
    steps_stopped: StepStop | None = None
    stages: SearchStages | None = None
    hits: list[ResultHit] | None = None
    answer: str | None = None
    answer_source: str | None = None
    citations: list[Citation] | None = None
    unsupported_citations: list[UnsupportedCitation] | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    error: TraceError | None = None

    def to_data(self) -> dict[str, Any]:
        dumped = self.model_dump(mode="json", by_alias=True)
        return {key: value for key, value in dumped.items() if value is not None}
