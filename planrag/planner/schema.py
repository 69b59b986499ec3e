"""The SearchPlan (version 1; version 2 with `steps`) and the envelope that travels with it.

The JSON Schema sent to the LLM as a strict structured-output format is generated from these
models (`llm_json_schema`), exported to `search_plan.schema.json` beside this module (a test keeps
it current), and checked with `jsonschema` before pydantic sees the LLM's output.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planrag.core.filters import RetrieveFilters
from planrag.core.strategies import StrategyName
from planrag.text.korean import particle_for

Mode = Literal["rag", "direct", "document"]
Sort = Literal["relevance", "newest", "oldest"]
Source = Literal["llm", "heuristic", "fallback", "fixed"]
ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
SCHEMA_FILE = Path(__file__).resolve().parent / "search_plan.schema.json"

MAX_TOP_K = 50
MAX_SEARCH_CHARS = 2000  # a plan's search text (the retrieval query's own limit)
MAX_LIMIT = 20
MAX_HOPS = 5
MAX_STEPS = 4
STEP_ID = r"^s[1-4]$"
# `{{s1.answer}}`: the only template a step's query may hold (an earlier step's answer).
STEP_REFERENCE = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\.answer\s*\}\}")
_FILLED = re.compile(STEP_REFERENCE.pattern + r"(?:(으로|이|가|은|는|을|를|과|와|로)(?![가-힣]))?")
_TEMPLATE = re.compile(r"\{\{|\}\}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TimeFilter(_Strict):
    """An inclusive date range in Asia/Seoul; either end may be open."""

    from_: str | None = Field(default=None, alias="from", pattern=ISO_DATE)
    to: str | None = Field(default=None, pattern=ISO_DATE)
    expression: str | None = Field(
        default=None,
        max_length=200,
        description="the time words as the user wrote them, e.g. '지난주', 'since October 15'",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @classmethod
    def of(cls, start: str | None, end: str | None, expression: str | None) -> TimeFilter:
        return cls.model_validate({"from": start, "to": end, "expression": expression})

    @model_validator(mode="after")
    def _ordered(self) -> TimeFilter:
        if self.from_ and self.to and self.from_ > self.to:
            raise ValueError("time.from must not be after time.to")
        return self


class Filters(_Strict):
    time: TimeFilter | None = None
    authors: list[str] = Field(default_factory=list, max_length=20)
    domains: list[str] = Field(default_factory=list, max_length=20)
    doc_ids: list[str] = Field(default_factory=list, max_length=100)
    title_contains: str | None = Field(default=None, max_length=200)
    tags: list[str] = Field(default_factory=list, max_length=20)

    def to_retrieve(self) -> RetrieveFilters:
        """The plan's filters as the retrieval filters every store applies (one mapping, used
        by plan execution and by the planner's relax check)."""
        return RetrieveFilters(
            doc_ids=self.doc_ids or None,
            authors=self.authors or None,
            domains=self.domains or None,
            date_from=self.time.from_ if self.time else None,
            date_to=self.time.to if self.time else None,
            title_contains=self.title_contains or None,
            tags=self.tags or None,
        )

    def is_empty(self) -> bool:
        return not (
            self.time
            or self.authors
            or self.domains
            or self.doc_ids
            or self.title_contains
            or self.tags
        )


class Weights(_Strict):
    """How much the chunk text and the document title count in dense scores; sum to 1."""

    chunk: float = Field(default=1.0, ge=0.0, le=1.0)
    title: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _sum_to_one(self) -> Weights:
        if abs(self.chunk + self.title - 1.0) > 1e-6:
            raise ValueError("weights.chunk + weights.title must be 1")
        return self


class RerankPlan(_Strict):
    enabled: bool = False
    top_k: int = Field(default=5, ge=1, le=MAX_LIMIT)
    threshold: float = Field(default=0.0, ge=0.0, le=1.0)


class GraphPlan(_Strict):
    enabled: bool = False
    hops: int = Field(default=2, ge=1, le=MAX_HOPS)


class PlanStep(_Strict):
    """One search of a multi-step plan: an ordinary search whose query may name an earlier
    step's answer (`{{s1.answer}}`); null fields take the plan's own."""

    id: str = Field(pattern=STEP_ID, description="s1, s2, … in order")
    query: str = Field(
        min_length=1,
        max_length=500,
        description="the search text; may contain {{sN.answer}} for an earlier step's answer",
    )
    strategy: StrategyName | None = Field(default=None, description="null: the plan's")
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K, description="null: the plan's")
    filters: Filters | None = Field(default=None, description="null: the plan's")
    graph: GraphPlan | None = Field(default=None, description="null: the plan's")

    def references(self) -> list[str]:
        """The step ids this step's query names, in order."""
        return STEP_REFERENCE.findall(self.query)

    def filled(self, answers: dict[str, str]) -> str:
        """The query with each `{{sN.answer}}` replaced by that step's answer, a particle
        right after it in the answer's form ("{{s1.answer}}가" → "이서준이")."""

        def fill(match: re.Match[str]) -> str:
            answer = answers.get(match.group(1), "")
            particle = match.group(2) or ""
            return answer + (particle_for(answer, particle) if answer else particle)

        return " ".join(_FILLED.sub(fill, self.query).split())


class SearchPlan(_Strict):
    """What to search, where and how; produced by a planner, validated, then executed."""

    version: Literal[1, 2] = Field(default=1, description="2 when the plan has steps")
    mode: Mode = "rag"
    strategy: StrategyName = "hybrid"
    knowledge_bases: list[str] = Field(default_factory=list, max_length=20)
    query: str | None = Field(
        default=None,
        max_length=MAX_SEARCH_CHARS,
        description="the search text (the question without time/sort/count words); "
        "null means the question itself",
    )
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="null means each knowledge base's own"
    )
    weights: Weights = Weights()
    hybrid_mode: Literal["sequential", "parallel"] = "sequential"
    rerank: RerankPlan = RerankPlan()
    graph: GraphPlan = GraphPlan()
    filters: Filters = Filters()
    world_time: TimeFilter | None = Field(
        default=None,
        description="a date the question names about the world, kept in the search text "
        "('1989년 6월 30일 … 파견된 인물은?'): it filters nothing; passages of documents dated "
        "then may be added after the others, none removed. Null without one",
    )
    sort: Sort = "relevance"
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    listing: bool = Field(
        default=False,
        description="list the documents the filters leave by date (oldest first when sort is "
        "'oldest', else newest first), `limit` of them, instead of searching text: for "
        "questions that name a period or author but no topic ('어제 나온 기사 알려줘')",
    )
    steps: list[PlanStep] = Field(
        default_factory=list,
        max_length=MAX_STEPS,
        description="multi-step plans only (each search needs an earlier one's answer): "
        "2–4 searches in order; [] for one search",
    )
    answer_from: str | None = Field(
        default=None,
        pattern=STEP_ID,
        description="the step whose answer answers the question (null: the last step)",
    )
    rationale: str = Field(default="", max_length=1000)

    @model_validator(mode="before")
    @classmethod
    def _spec_mode_names(cls, data: Any) -> Any:
        """Spec 002 calls document mode `post`: accepted as `document`."""
        if isinstance(data, dict) and data.get("mode") == "post":
            return {**data, "mode": "document"}
        return data

    @model_validator(mode="after")
    def _chain(self) -> SearchPlan:
        """Steps in order, each naming only earlier steps (so no cycles); one step is an
        ordinary plan; version 2 exactly when steps remain."""
        check_steps(self.steps, self.answer_from)
        if len(self.steps) == 1:
            return _one_step(self)
        version = 2 if self.steps else 1
        if self.version != version:
            return self.model_copy(update={"version": version})
        return self

    def step_plan(self, step: PlanStep, query: str) -> SearchPlan:
        """The step as an ordinary one-search plan: what the executors run."""
        return self.model_copy(
            update={
                "version": 1,
                "steps": [],
                "answer_from": None,
                "query": query,
                "strategy": step.strategy or self.strategy,
                "top_k": step.top_k or self.top_k,
                "filters": step.filters if step.filters is not None else self.filters,
                "graph": step.graph if step.graph is not None else self.graph,
                "listing": False,
                "limit": None,
                "sort": "relevance",
            }
        )


def check_steps(steps: list[PlanStep], answer_from: str | None) -> None:
    """Raises ValueError unless the steps are numbered s1, s2, … and each query names only
    earlier steps' answers (a step naming itself or a later step would loop)."""
    if not steps:
        if answer_from is not None:
            raise ValueError("answer_from needs steps")
        return
    ids = [step.id for step in steps]
    if ids != [f"s{i}" for i in range(1, len(steps) + 1)]:
        raise ValueError(f"steps must be numbered s1, s2, … in order (got {ids})")
    for position, step in enumerate(steps):
        earlier = ids[:position]
        for ref in step.references():
            if ref not in earlier:
                where = "itself" if ref == step.id else ("a later step" if ref in ids else "")
                raise ValueError(
                    f"step {step.id} names {{{{{ref}.answer}}}}"
                    + (f", {where}: a cycle" if where else ", which is no step")
                    + f"; a step may name only earlier steps ({earlier or 'none'})"
                )
        if _TEMPLATE.search(STEP_REFERENCE.sub("", step.query)):
            raise ValueError(
                f"step {step.id}: the only template a query may hold is {{{{sN.answer}}}}"
            )
    if answer_from is not None and answer_from not in ids:
        raise ValueError(f"answer_from {answer_from!r} is not a step ({ids})")


def _one_step(plan: SearchPlan) -> SearchPlan:
    """A one-step plan is today's plan: its search becomes the plan's own."""
    step = plan.steps[0]
    merged = plan.step_plan(step, step.query)
    return merged.model_copy(
        update={"limit": plan.limit, "sort": plan.sort, "listing": plan.listing}
    )


class RelaxStep(BaseModel):
    """One filter dropped, and how many documents the filters left after it."""

    filter: str = Field(description="time | title_contains | tags | domains | authors")
    value: str = Field(description="what was dropped, as text")
    documents: int


class Relaxation(BaseModel):
    """Filters dropped because they matched no document (never a silent empty answer): one at
    a time, the least certain first, until a document remains."""

    dropped: Filters
    steps: list[RelaxStep] = Field(default_factory=list)
    reason: str


class FollowUp(BaseModel):
    """The question to plan, and what was taken from the conversation to make it."""

    question: str = Field(description="the question as asked")
    standalone: str = Field(description="the question the plan is made from")
    knowledge_bases: list[str] = Field(default_factory=list, description="carried KBs (if any)")
    doc_id: str | None = Field(default=None, description="a source the question points at")
    carried: list[str] = Field(
        default_factory=list, description="topic | time | document | entity | knowledge_bases"
    )
    source: Literal["none", "rules", "llm", "fallback"] = "none"
    reason: str | None = None


class PlanEnvelope(BaseModel):
    """The plan and how it came to be: dry-run response, SSE `search_plan` data, stored trace."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "plan": {"mode": "rag", "strategy": "hybrid", "knowledge_bases": ["news"],
                             "top_k": 10, "sort": "relevance", "limit": 2,
                             "filters": {"time": {"from": "2025-11-10", "to": "2025-11-16",
                                                  "expression": "지난주"}}},
                    "source": "heuristic",
                    "fallback_reason": None,
                    "raw": None,
                    "errors": [],
                    "timings_ms": {"heuristic": 0.2, "total": 0.9},
                    "relaxed": None,
                    "now": "2025-11-21T10:00:00+09:00",
                }
            ]
        }
    )  # fmt: skip

    plan: SearchPlan
    source: Source
    fallback_reason: str | None = None
    raw: str | None = Field(default=None, description="the LLM's raw output, when an LLM planned")
    errors: list[str] = Field(default_factory=list, description="validation errors on the way")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    relaxed: Relaxation | None = None
    followup: FollowUp | None = Field(
        default=None, description="a follow-up question: the standalone question planned"
    )
    now: str = Field(description="the moment time expressions were resolved against (ISO)")


def plan_json_schema() -> dict[str, Any]:
    """The SearchPlan's JSON Schema as pydantic generates it (by alias: `from`)."""
    return SearchPlan.model_json_schema(by_alias=True)


def llm_json_schema() -> dict[str, Any]:
    """The same schema in the shape strict structured outputs accept: every property required
    (optional ones are nullable), no defaults, closed objects."""
    schema = copy.deepcopy(plan_json_schema())
    _strictify(schema)
    for definition in schema.get("$defs", {}).values():
        _strictify(definition)
    return schema


def _strictify(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("default", None)
        node.pop("title", None)
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
        for value in node.values():
            _strictify(value)
    elif isinstance(node, list):
        for item in node:
            _strictify(item)


def export_schema(path: Path = SCHEMA_FILE) -> str:
    text = json.dumps(llm_json_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    path.write_text(text, encoding="utf-8")
    return text
