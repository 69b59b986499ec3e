"""The planner: the LLM when one is configured (validate → one retry with the error → timeout),
else or on failure the heuristic plan (flagged `fallback` with the reason), and spec 002's fixed
pipeline as the last resort. Filters that match no document are relaxed one at a time, the least
certain first (relaxation.py), and each step is said."""

from __future__ import annotations

import json
import logging
import time
from zoneinfo import ZoneInfo

from planrag.core.errors import LLMUnavailable
from planrag.core.settings import LLMSettings, PlannerSettings
from planrag.llm.chat import ChatClient, Message
from planrag.planner import chains
from planrag.planner.heuristic import HeuristicPlanner
from planrag.planner.policy import PlanRejected, apply_policy, parse_plan, policy_notes
from planrag.planner.relaxation import DocumentCounter, relax
from planrag.planner.schema import Filters, PlanEnvelope, SearchPlan, llm_json_schema
from planrag.planner.scope import PlanScope
from planrag.prompts import render

log = logging.getLogger(__name__)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# DocumentCounter (relaxation.py) counts the documents a plan's filters leave; it is injected:
# the planner does not read stores.
__all__ = ["DocumentCounter", "LLMPlanner", "Planner", "PlanningFailed"]


class PlanningFailed(Exception):
    def __init__(self, reason: str, raw: str | None, errors: list[str]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw
        self.errors = errors


class LLMPlanner:
    def __init__(self, chat: ChatClient, planner: PlannerSettings, llm: LLMSettings) -> None:
        self._chat = chat
        self._settings = planner
        self._llm = llm
        self._tz = ZoneInfo(planner.timezone)
        self._schema = llm_json_schema()

    def messages(self, question: str, scope: PlanScope) -> list[Message]:
        now = scope.now.astimezone(self._tz)
        catalog = [
            {
                "name": kb.name,
                "description": kb.description[:300],
                "documents": kb.facets.documents,
                "authors": kb.facets.authors[:30],
                "domains": kb.facets.domains[:30],
                "dates": [kb.facets.date_from, kb.facets.date_to],
                "graph": kb.has_graph,
            }
            for kb in scope.knowledge_bases
        ]
        system = render("plan_system", strategies=", ".join(scope.strategies))
        user = render(
            "plan_user",
            now=now.isoformat(timespec="minutes"),
            weekday=WEEKDAYS[now.weekday()],
            timezone=self._settings.timezone,
            doc_id=scope.doc_id or "none",
            catalog=json.dumps(catalog, ensure_ascii=False),
            question=question,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def plan(
        self, question: str, scope: PlanScope, model: str | None = None
    ) -> tuple[SearchPlan, str, list[str]]:
        """The validated plan, the raw reply it came from, and notes; or PlanningFailed."""
        deadline = time.monotonic() + self._llm.timeout_s
        messages = self.messages(question, scope)
        errors: list[str] = []
        raw: str | None = None
        for _attempt in range(1 + self._settings.retries):
            remaining = deadline - time.monotonic()
            if remaining <= 0.05:
                raise PlanningFailed(f"timeout after {self._llm.timeout_s:g} s", raw, errors)
            try:
                raw = self._chat.complete_json(
                    messages, self._schema, "search_plan", remaining, model
                )
            except LLMUnavailable as exc:
                timed_out = (
                    exc.details.get("kind") == "timeout" or time.monotonic() >= deadline - 0.05
                )
                reason = f"timeout after {self._llm.timeout_s:g} s" if timed_out else str(exc)
                raise PlanningFailed(reason, raw, errors) from exc
            notes: list[str] = []
            try:
                parsed = parse_plan(raw, notes)
                plan = apply_policy(
                    parsed,
                    scope,
                    self._tz,
                    self._settings.max_steps,
                    self._settings.max_searches,
                    question=question,
                )
            except PlanRejected as exc:
                errors.append(str(exc))
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw[:4000]},
                    {"role": "user", "content": render("plan_retry", errors=str(exc))},
                ]
                continue
            return plan, raw, errors + notes + policy_notes(parsed, plan)
        raise PlanningFailed(
            f"invalid plan after {len(errors)} attempts: {errors[-1]}", raw, errors
        )


class Planner:
    def __init__(
        self,
        settings: PlannerSettings,
        llm_settings: LLMSettings,
        chat: ChatClient,
        count_documents: DocumentCounter | None = None,
    ) -> None:
        self._settings = settings
        self._tz = ZoneInfo(settings.timezone)
        self._chat = chat
        self._llm = LLMPlanner(chat, settings, llm_settings)
        self._heuristic = HeuristicPlanner(settings)
        self._count = count_documents

    def plan(
        self, question: str, scope: PlanScope, model: str | None = None, use_llm: bool = True
    ) -> PlanEnvelope:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        fallback_reason: str | None = None
        raw: str | None = None
        errors: list[str] = []
        if use_llm and self._chat.configured:
            try:
                plan, raw, errors = self._llm.plan(question, scope, model)
                timings["llm"] = _ms(started)
                return self._finish(
                    PlanEnvelope(plan=plan, source="llm", raw=raw, errors=errors, now=_iso(scope)),
                    scope,
                    timings,
                    started,
                )
            except PlanningFailed as failed:
                timings["llm"] = _ms(started)
                fallback_reason, raw, errors = failed.reason, failed.raw, failed.errors
                log.warning("LLM planning failed, using the heuristic plan: %s", failed.reason)
        heuristic_started = time.perf_counter()
        try:
            s = self._settings
            ruled = chains.with_steps(  # chain questions get steps (planner/chains.py)
                self._heuristic.plan(question, scope), question, scope, s.max_steps, s.max_searches
            )
            plan = apply_policy(ruled, scope, self._tz, s.max_steps, s.max_searches)
            source = "fallback" if fallback_reason else "heuristic"
        except Exception as exc:  # the last resort must not fail
            log.exception("heuristic planning failed; using the fixed pipeline")
            plan = self.fixed_plan(scope)
            fallback_reason = f"{fallback_reason + '; ' if fallback_reason else ''}heuristic: {exc}"
            source = "fallback"
        timings["heuristic"] = _ms(heuristic_started)
        envelope = PlanEnvelope(
            plan=plan,
            source=source,  # type: ignore[arg-type]
            fallback_reason=fallback_reason,
            raw=raw,
            errors=errors,
            now=_iso(scope),
        )
        return self._finish(envelope, scope, timings, started)

    def fixed(self, scope: PlanScope) -> PlanEnvelope:
        """Spec 002's v1 pipeline as an envelope (`POST /ai/v1/ask`): no planner, no relaxing."""
        started = time.perf_counter()
        envelope = PlanEnvelope(plan=self.fixed_plan(scope), source="fixed", now=_iso(scope))
        envelope.timings_ms = {"total": _ms(started)}
        return envelope

    def fixed_plan(self, scope: PlanScope) -> SearchPlan:
        """Spec 002's v1 pipeline: fixed strategy, top_k and threshold, no filters."""
        s = self._settings
        return SearchPlan(
            mode="document" if scope.doc_id else "rag",
            strategy=s.fallback_strategy,
            knowledge_bases=scope.names(),
            top_k=s.fallback_top_k,
            threshold=s.fallback_threshold,
            filters=Filters(doc_ids=[scope.doc_id] if scope.doc_id else []),
            rationale="fixed pipeline (spec 002 v1)",
        )

    def _finish(
        self,
        envelope: PlanEnvelope,
        scope: PlanScope,
        timings: dict[str, float],
        started: float,
    ) -> PlanEnvelope:
        plan = envelope.plan
        documents = sum(
            kb.facets.documents for kb in scope.knowledge_bases if kb.name in plan.knowledge_bases
        )
        if (
            self._count is not None
            and plan.mode != "direct"
            and documents > 0  # an empty KB has nothing to relax towards
            and not _only_scope(plan.filters)
        ):
            counted = time.perf_counter()
            envelope.plan, envelope.relaxed = relax(plan, scope, self._count)
            timings["filter_check"] = _ms(counted)
        timings["total"] = _ms(started)
        envelope.timings_ms = timings
        return envelope


def _only_scope(filters: Filters) -> bool:
    """Nothing to relax: no filters, or only the document of document mode."""
    return filters.model_copy(update={"doc_ids": []}).is_empty()


def _iso(scope: PlanScope) -> str:
    return scope.now.isoformat()


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
