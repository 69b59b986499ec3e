"""The plan as spec 002 spells it, carried by the `search_plan` event beside planrag's own.

Spec 002's plan has `mode` rag | post, `filters{user_id, category_ids?, post_id?, time?}`;
planrag's says `document` for post mode, names documents by `doc_ids` and categories by
`tags`. `spec002` gives a client of the spec its own names, and `user_scope` says which
knowledge bases `user_id` narrowed: the rule is the knowledge base's `per_user` setting
(docs/spec_mapping.md, "user_id").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from planrag.planner.schema import SearchPlan, TimeFilter, Weights
from planrag.planner.scope import PlanScope

SPEC002_MAX_TOP_K = 10  # spec 002's range for top_k (1..10); planrag's plan allows 1..50
USER_RULE = (
    "user_id narrows per-user knowledge bases (per_user: true) to that user's documents; "
    "other knowledge bases are shared and searched whole, whoever owns their documents"
)


class Spec002Filters(BaseModel):
    user_id: str | None = None
    category_ids: list[str] | None = None
    post_id: str | None = None
    time: TimeFilter | None = None


class Spec002Plan(BaseModel):
    """Spec 002's plan fields, with its names (`post` for document mode)."""

    mode: Literal["rag", "post", "direct"]
    top_k: int = Field(ge=1, le=SPEC002_MAX_TOP_K, description="within the spec's 1..10")
    candidates: int = Field(
        description="extension: the chunk candidates actually fetched per knowledge base (the "
        "plan's top_k; above 10 when a listing's `limit` needs more)"
    )
    threshold: float | None
    weights: Weights
    filters: Spec002Filters
    sort: str
    limit: int | None


class UserScope(BaseModel):
    """Whose documents this ask searched, per knowledge base."""

    user_id: str | None
    filtered: list[str] = Field(
        default_factory=list, description="per-user knowledge bases: only the user's documents"
    )
    shared: list[str] = Field(
        default_factory=list, description="knowledge bases searched whole (not per-user)"
    )
    rule: str = USER_RULE


def spec002_plan(
    plan: SearchPlan, scope: PlanScope, user_id: str | None, category_ids: list[str] | None
) -> Spec002Plan:
    post_id = scope.doc_id if plan.mode == "document" else None
    mode: Literal["rag", "post", "direct"] = (
        "post" if plan.mode == "document" else "direct" if plan.mode == "direct" else "rag"
    )
    return Spec002Plan(
        mode=mode,
        top_k=min(plan.top_k, SPEC002_MAX_TOP_K),
        candidates=plan.top_k,
        threshold=plan.threshold,
        weights=plan.weights,
        filters=Spec002Filters(
            user_id=user_id,
            category_ids=category_ids or (plan.filters.tags or None),
            post_id=post_id,
            time=plan.filters.time,
        ),
        sort=plan.sort,
        limit=plan.limit,
    )


def user_scope(plan: SearchPlan, scope: PlanScope, user_id: str | None) -> UserScope:
    searched = [kb for kb in scope.knowledge_bases if kb.name in plan.knowledge_bases]
    return UserScope(
        user_id=user_id,
        filtered=[kb.name for kb in searched if kb.documents is not None],
        shared=[kb.name for kb in searched if kb.documents is None],
    )
