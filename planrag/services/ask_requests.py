"""What an ask or plan request carries, and how it shapes the plan before the search.

`PlanRequest` (POST /ai/v2/plan) and `AskRequest` (POST /ai/v2/ask, spec 002's fields accepted
under their own names), the LLM a request may choose, and the request's spec-002 overrides of a
plan (`category_ids` → tags, `top_k`) with the `search_plan` event that shows them.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planrag.core.errors import InvalidInput
from planrag.core.settings import LLMSettings
from planrag.planner.schema import MAX_TOP_K, PlanEnvelope
from planrag.planner.scope import PlanScope
from planrag.services.answers import Passage
from planrag.services.ask_events import ErrorEvent, SearchPlanEvent
from planrag.services.spec002_plan import SPEC002_MAX_TOP_K, spec002_plan, user_scope


class LLMChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")

    provider: str | None = Field(default=None, max_length=50, examples=["openai"])
    model: str | None = Field(default=None, max_length=200)


TONES = {-1: "casual", 0: "neutral", 1: "formal"}
TONE_NAMES = {-1: "반말 / casual", 0: "해요체 / neutral", 1: "합쇼체 / formal"}


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(
        min_length=1,
        max_length=20000,  # the schema says PLANRAG_ASK__MAX_QUESTION_CHARS (app/openapi.py)
        pattern=r"\S",  # not blank
        examples=["9월 글 2개만 보여줘"],
    )
    now: datetime | None = Field(
        default=None, description="resolve time words against this moment (default: now)"
    )
    knowledge_bases: list[str] | None = Field(
        default=None, max_length=20, description="names or ids; default: every readable one"
    )


class AskRequest(PlanRequest):
    model_config = ConfigDict(extra="ignore")  # spec 002 bodies carry user_id, speech_tone…

    llm: LLMChoice | None = None
    doc_id: str | None = Field(default=None, description="document mode: answer from it only")
    post_id: str | None = Field(
        default=None,
        max_length=200,
        description="spec 002's name for `doc_id` (post mode): the same document mode; an "
        "unknown id is a 404",
    )
    speech_tone: int | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="the answer's register (spec 002): -1 casual (반말), 0 neutral (해요체), "
        "1 formal (합쇼체); default: the model's own",
    )
    user_id: str | None = Field(
        default=None,
        max_length=200,
        description="spec 002: whose documents a per-user knowledge base searches (with auth "
        "on, the authenticated principal; another user's id is refused)",
    )
    category_ids: list[str | int] | None = Field(
        default=None,
        max_length=20,
        description="spec 002: only documents tagged with one of these (the plan's `tags`)",
    )
    top_k: int | None = Field(
        default=None,
        ge=1,
        le=SPEC002_MAX_TOP_K,
        description="spec 002: chunk candidates per knowledge base, 1..10 (the spec's range); "
        "overrides the planner's, raised to cover the plan's `limit` (docs/spec_mapping.md)",
    )

    @model_validator(mode="after")
    def _post_is_document_mode(self) -> AskRequest:
        """Spec 002's `post_id` is our `doc_id`: one field downstream, never silently dropped."""
        if self.post_id is None:
            return self
        if self.doc_id is not None and self.doc_id != self.post_id:
            raise ValueError("post_id and doc_id name different documents; send one")
        self.doc_id, self.post_id = self.post_id, None
        return self


def check_llm_choice(choice: LLMChoice, settings: LLMSettings) -> None:
    """A request may pick this endpoint's provider and its allowed models; anything else is a
    clear 400 (never a silent default). Without an LLM the choice is moot: the answer is
    extractive and the `end` event says so."""
    if not settings.configured:
        return
    if choice.provider and choice.provider.lower() != settings.provider.lower():
        raise InvalidInput(
            f"llm.provider '{choice.provider}' is not configured; this server's is "
            f"'{settings.provider}' (PLANRAG_LLM__PROVIDER)",
            provider=choice.provider,
        )
    allowed = [settings.model, *settings.allowed_models]
    if choice.model and choice.model not in allowed:
        raise InvalidInput(
            f"llm.model '{choice.model}' is not allowed; choose one of {allowed} "
            "(PLANRAG_LLM__ALLOWED_MODELS)",
            model=choice.model,
        )


class AskOutcome(BaseModel):
    envelope: PlanEnvelope | None = None
    passages: list[Passage] = Field(default_factory=list)
    answer: str = ""
    answer_source: str | None = None
    trace_id: str | None = None
    error: ErrorEvent | None = None


def plan_event(envelope: PlanEnvelope, scope: PlanScope, request: AskRequest) -> SearchPlanEvent:
    """The `search_plan` event: the envelope, and the plan in spec 002's names."""
    categories = [str(c) for c in request.category_ids] if request.category_ids else None
    return SearchPlanEvent.model_validate(
        {
            **envelope.model_dump(by_alias=True),
            "spec002": spec002_plan(envelope.plan, scope, request.user_id, categories),
            "user_scope": user_scope(envelope.plan, scope, request.user_id),
        }
    )


def with_categories(envelope: PlanEnvelope, categories: list[str | int] | None) -> PlanEnvelope:
    """Spec 002 `category_ids` are the plan's `tags` filter (shown in `search_plan`)."""
    if not categories:
        return envelope
    tags = list(dict.fromkeys([*envelope.plan.filters.tags, *(str(c) for c in categories)]))
    filters = envelope.plan.filters.model_copy(update={"tags": tags})
    plan = envelope.plan.model_copy(update={"filters": filters})
    return envelope.model_copy(update={"plan": plan})


def with_top_k(envelope: PlanEnvelope, top_k: int | None) -> PlanEnvelope:
    """A spec 002 client's `top_k` (1..10) is the plan's candidate width, raised as the
    policy raises any plan's to cover a relevance-sorted `limit` (up to 20)."""
    if top_k is None:
        return envelope
    plan = envelope.plan
    if plan.limit and plan.sort == "relevance":
        top_k = min(MAX_TOP_K, max(top_k, plan.limit))
    return envelope.model_copy(update={"plan": plan.model_copy(update={"top_k": top_k})})
