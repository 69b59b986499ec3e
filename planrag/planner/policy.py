"""Validation of an LLM's plan, in tiers: JSON → JSON Schema (bounds clamped) → pydantic → policy.

Policy: only knowledge bases the caller may read, only strategies the registry allows, facet
values grounded in the catalog, graph only where a KB has one, document mode only with a document,
dates computed by our calendar module from the expression the LLM extracted (the LLM's own dates
only when the expression cannot be parsed), top_k at least what `limit` needs. Multi-step plans:
each step under the same rules, at most `max_steps` steps and `max_searches` searches (steps ×
knowledge bases).
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import jsonschema
from pydantic import ValidationError

from planrag.core.strategies import strategy_names
from planrag.planner import document_scope, time_range
from planrag.planner.schema import (
    MAX_STEPS,
    MAX_TOP_K,
    Filters,
    PlanStep,
    SearchPlan,
    TimeFilter,
    plan_json_schema,
)
from planrag.planner.scope import PlanScope


class PlanRejected(Exception):
    """The plan cannot be used as is; the message is fed back to the LLM for its one retry."""


@lru_cache(maxsize=4)
def _validator(strategies: tuple[str, ...]) -> jsonschema.Draft202012Validator:
    """The plan schema's validator, for the strategies declared when it is asked for."""
    return jsonschema.Draft202012Validator(plan_json_schema())


BOUNDS = ("maximum", "minimum", "maxLength", "maxItems")


def parse_plan(raw: str, notes: list[str]) -> SearchPlan:
    """JSON → schema → pydantic. Out-of-range numbers, over-long strings and lists are clamped
    (and noted); any other schema or model error rejects the plan."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise PlanRejected(f"not valid JSON ({exc.msg} at position {exc.pos})") from exc
    if not isinstance(data, dict):
        raise PlanRejected("the plan must be a JSON object")
    _normalise_weights(data, notes)
    if data.get("mode") == "post":  # spec 002's name for document mode
        data["mode"] = "document"
        notes.append("mode 'post' (spec 002's name) read as 'document'")
    for error in sorted(
        _validator(strategy_names()).iter_errors(data), key=lambda e: -len(e.absolute_path)
    ):
        if not _clamp(data, error, notes):
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            raise PlanRejected(f"schema: {where}: {error.message[:300]}")
    try:
        return SearchPlan.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'/'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise PlanRejected(f"model: {problems}") from exc


def _normalise_weights(data: dict[str, Any], notes: list[str]) -> None:
    weights = data.get("weights")
    if not isinstance(weights, dict):
        return
    chunk, title = weights.get("chunk"), weights.get("title")
    if not all(isinstance(v, int | float) and v >= 0 for v in (chunk, title)):
        return
    total = float(chunk) + float(title)  # type: ignore[arg-type]
    if total > 0 and abs(total - 1.0) > 1e-6:
        weights["chunk"], weights["title"] = chunk / total, title / total  # type: ignore[operator]
        notes.append(f"weights rescaled to sum to 1 (were {chunk} + {title})")


def _clamp(data: dict[str, Any], error: jsonschema.ValidationError, notes: list[str]) -> bool:
    """Bring a value inside its schema bound; False when the error is of another kind."""
    path = list(error.absolute_path)
    if error.validator in ("anyOf", "oneOf"):  # a nullable field: the non-null branch's bound
        bounded = [e for e in error.context or () if e.validator in BOUNDS and not e.relative_path]
        if not bounded:
            return False
        error = bounded[0]
    if not path or error.validator not in BOUNDS:
        return False
    if path == ["steps"]:  # dropping steps would leave a chain without its end: a new plan
        return False
    parent: Any = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    bound = error.validator_value
    if error.validator in ("maximum", "minimum"):
        parent[key] = type(value)(bound) if isinstance(value, int) else float(bound)
    else:
        parent[key] = value[:bound]
    shown = str(value)[:40]
    notes.append(f"{'/'.join(map(str, path))} clamped to {error.validator} {bound} (was {shown})")
    return True


def apply_policy(
    plan: SearchPlan,
    scope: PlanScope,
    tz: ZoneInfo,
    max_steps: int = MAX_STEPS,
    max_searches: int = 2 * MAX_STEPS,
    question: str | None = None,
) -> SearchPlan:
    """The plan as it will run. Raises PlanRejected for what only a new plan can fix. With the
    `question`, a time filter on a date the question asks about the world ("1989년 … 파견된
    인물은?") is dropped and its words go back into the search text (docs/planner.md)."""
    names = scope.names()
    refused = [name for name in plan.knowledge_bases if name not in names]
    if refused:
        raise PlanRejected(
            f"knowledge bases {refused} are not readable here; choose from {names} or []"
        )
    for strategy in dict.fromkeys([plan.strategy, *(s.strategy for s in plan.steps)]):
        if strategy is not None and strategy not in scope.strategies:
            raise PlanRejected(
                f"strategy {strategy!r} is not allowed; use one of {scope.strategies}"
            )
    if plan.steps:
        _check_budget(plan, len(plan.knowledge_bases or names), max_steps, max_searches)
    grounded = _ground(plan, scope, tz)
    if question:
        grounded = _world_time(grounded, question, scope, tz)
    return _soft_date(grounded, scope)


WORLD_TIME = "dates the world, not the documents: no time filter (policy)"


def _world_time(plan: SearchPlan, question: str, scope: PlanScope, tz: ZoneInfo) -> SearchPlan:
    """The plan without a time filter the rules read as world time; unchanged when the rules
    see no time words at all (the LLM may know a phrase they do not)."""
    from planrag.planner.heuristic import read_question  # the rules' reading of the question

    if plan.filters.time is None or scope.doc_id:
        return plan
    found = time_range.resolve(question, scope.now, tz)
    if found is None or read_question(question, scope.now, tz).time is not None:
        return plan
    query = plan.query
    if query and found.expression not in query:
        query = f"{found.expression} {query}"
    soft = None
    if not document_scope.relative(found.expression):
        start, end = found.iso()
        soft = TimeFilter.of(start, end, found.expression)
    return plan.model_copy(
        update={
            "filters": plan.filters.model_copy(update={"time": None}),
            "world_time": soft,
            "query": query,
            "listing": False,
            "rationale": f"{plan.rationale}; '{found.expression}' {WORLD_TIME}".lstrip("; "),
        }
    )


def _soft_date(plan: SearchPlan, scope: PlanScope) -> SearchPlan:
    """The plan's date of the world kept only where it can add something: one search without a
    time filter or listing, over a knowledge base holding documents dated in that range (their
    facets); the rationale says so."""
    soft = plan.world_time
    if soft is None:
        return plan
    chosen = [kb for kb in scope.knowledge_bases if kb.name in plan.knowledge_bases]
    dated = any(_overlaps(kb.facets.date_from, kb.facets.date_to, soft) for kb in chosen)
    if plan.filters.time or plan.listing or plan.steps or plan.mode != "rag" or not dated:
        return plan.model_copy(update={"world_time": None})
    note = f"documents dated '{soft.expression or soft.from_}' may add passages (none removed)"
    return plan.model_copy(update={"rationale": f"{plan.rationale}; {note}"[:1000].lstrip("; ")})


def _overlaps(first: str | None, last: str | None, soft: TimeFilter) -> bool:
    if not first or not last:
        return False
    return (soft.from_ or first) <= last and (soft.to or last) >= first


def _check_budget(plan: SearchPlan, kbs: int, max_steps: int, max_searches: int) -> None:
    if plan.mode != "rag" or plan.listing:
        raise PlanRejected("steps need mode 'rag' without listing; use one search otherwise")
    if len(plan.steps) > max_steps:
        raise PlanRejected(f"{len(plan.steps)} steps; at most {max_steps} are allowed")
    if len(plan.steps) * kbs > max_searches:
        raise PlanRejected(
            f"{len(plan.steps)} steps over {kbs} knowledge bases are {len(plan.steps) * kbs} "
            f"searches; the budget is {max_searches}: fewer steps or knowledge bases"
        )


def _ground(plan: SearchPlan, scope: PlanScope, tz: ZoneInfo) -> SearchPlan:
    filters = _ground_filters(plan.filters, scope, tz)
    kbs = plan.knowledge_bases or scope.names()
    has_graph = any(kb.has_graph for kb in scope.knowledge_bases if kb.name in kbs)
    graph = plan.graph
    if graph.enabled and not has_graph:
        graph = graph.model_copy(update={"enabled": False})
    steps = [_ground_step(step, scope, tz, has_graph) for step in plan.steps]
    mode = plan.mode
    if scope.doc_id:
        mode = "document"
    elif mode == "document":
        mode = "rag"
    top_k = plan.top_k
    listing = plan.listing and mode == "rag"  # document mode answers from its document
    if plan.limit and plan.sort == "relevance":
        top_k = min(MAX_TOP_K, max(top_k, plan.limit))
    return plan.model_copy(
        update={
            "knowledge_bases": kbs,
            "filters": filters,
            "graph": graph,
            "mode": mode,
            "top_k": top_k,
            "listing": listing,
            "steps": steps,
        }
    )


def _ground_filters(filters: Filters, scope: PlanScope, tz: ZoneInfo) -> Filters:
    return filters.model_copy(
        update={
            "authors": [a for a in filters.authors if a in scope.authors()],
            "domains": [d for d in filters.domains if d in scope.domains()],
            "doc_ids": [scope.doc_id] if scope.doc_id else [],
            "time": resolve_time(filters.time, scope.now, tz),
        }
    )


def _ground_step(step: PlanStep, scope: PlanScope, tz: ZoneInfo, has_graph: bool) -> PlanStep:
    """A step under the plan's rules: catalog facets, document mode's document, graph only
    where a knowledge base has one."""
    update: dict[str, object] = {}
    if step.filters is not None:
        update["filters"] = _ground_filters(step.filters, scope, tz)
    if step.graph is not None and step.graph.enabled and not has_graph:
        update["graph"] = step.graph.model_copy(update={"enabled": False})
    return step.model_copy(update=update) if update else step


def resolve_time(time: TimeFilter | None, now: datetime, tz: ZoneInfo) -> TimeFilter | None:
    """Dates from our calendar module when the expression parses; the given dates otherwise."""
    if time is None:
        return None
    if time.expression:
        found = time_range.resolve(time.expression, now, tz) or time_range.parse_absolute(
            time.expression, now, tz
        )
        if found is not None:
            start, end = found.iso()
            return TimeFilter.of(start, end, time.expression)
    if time.from_ is None and time.to is None:
        return None
    return time


def policy_notes(before: SearchPlan, after: SearchPlan) -> list[str]:
    """What the policy changed, for the envelope's `errors` (observability)."""
    notes = []
    b, a = before.filters, after.filters
    if set(b.authors) - set(a.authors):
        notes.append(
            f"authors not in the catalog dropped: {sorted(set(b.authors) - set(a.authors))}"
        )
    if set(b.domains) - set(a.domains):
        notes.append(
            f"domains not in the catalog dropped: {sorted(set(b.domains) - set(a.domains))}"
        )
    if b.doc_ids != a.doc_ids:
        notes.append("doc_ids are set by document mode only")
    if b.time != a.time and b.time is not None:
        if a.time is None and WORLD_TIME in after.rationale:
            notes.append(f"time filter {b.time.expression!r} dropped: it {WORLD_TIME}")
        elif a.time is None:
            notes.append("time filter without dates or a parsable expression dropped")
        elif (b.time.from_, b.time.to) != (a.time.from_, a.time.to):
            notes.append(
                f"time {b.time.expression!r}: dates computed as {a.time.from_}..{a.time.to} "
                f"(the LLM said {b.time.from_}..{b.time.to})"
            )
    if before.graph.enabled and not after.graph.enabled:
        notes.append("graph search disabled: no selected knowledge base has a graph")
    if before.mode != after.mode:
        notes.append(f"mode {before.mode!r} → {after.mode!r}")
    if before.top_k != after.top_k:
        notes.append(f"top_k raised to {after.top_k} to cover limit {after.limit}")
    return notes
