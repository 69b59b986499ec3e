"""Running a validated plan: each chosen knowledge base through the retrieval service (the
whitelisted executors, filters as typed trees), merged, sorted, limited and numbered as the
passages an answer may cite."""

from __future__ import annotations

import logging
from typing import Any

from planrag.core.errors import InvalidInput, ModelUnavailable
from planrag.core.strategies import strategy_info
from planrag.core.types import Hit, KnowledgeBase
from planrag.planner.schema import SearchPlan
from planrag.services.answers import Passage
from planrag.services.document_listing import DocumentListing
from planrag.services.ownership import Restriction
from planrag.services.retrieval import (
    RetrievalService,
    RetrieveFilters,
    RetrieveRequest,
)

log = logging.getLogger(__name__)

# With sort newest/oldest, candidates below this fraction of the best score are dropped first.
SORT_RELEVANCE_FLOOR = 0.5
MAX_RESTRICTED_IDS = 1000  # RetrieveFilters.doc_ids' bound


class PlanExecutor:
    def __init__(
        self, retrieval: RetrievalService, max_passages: int, listing: DocumentListing
    ) -> None:
        self._retrieval = retrieval
        self._max_passages = max_passages
        self._listing = listing

    def execute(
        self,
        plan: SearchPlan,
        question: str,
        kbs: dict[str, KnowledgeBase],
        restriction: Restriction | None = None,
    ) -> tuple[list[Passage], dict[str, Any]]:
        """Runs the plan on each chosen KB; merges, sorts and limits; numbers the passages.
        `restriction` (kb id → document ids) narrows a KB to those documents (per-user KBs,
        category tags)."""
        restriction = restriction or {}
        if plan.listing:
            listed, stages = self._listing.run(plan, kbs, self._max_passages, restriction)
            return _numbered(listed), stages
        found: list[tuple[str, Hit]] = []
        per_kb: dict[str, int] = {}
        notes: list[str] = []
        failures: list[Exception] = []
        for name in plan.knowledge_bases:
            try:
                hits = self._retrieve(kbs[name], plan, question, notes, restriction)
            except Exception as exc:  # one broken KB must not sink the others' answer
                log.warning("search of knowledge base %s failed: %s", name, exc)
                notes.append(f"{name}: search failed ({type(exc).__name__}: {str(exc)[:200]})")
                failures.append(exc)
                continue
            per_kb[name] = len(hits)
            found.extend((name, h) for h in hits)
        if failures and len(failures) == len(plan.knowledge_bases):
            raise failures[0]
        found.sort(key=lambda item: -item[1].score)
        merged = len(found)
        if plan.limit:  # `limit` counts documents: keep each one's best passage
            best: dict[str, tuple[str, Hit]] = {}
            for item in found:
                best.setdefault(item[1].doc_id, item)
            found = list(best.values())
        if plan.sort != "relevance":
            # Date order among the relevant only: a weak match must not win by being recent.
            if found:
                floor = found[0][1].score * SORT_RELEVANCE_FLOOR
                found = [x for x in found if x[1].score >= floor]
            newest = plan.sort == "newest"
            dated = [x for x in found if x[1].metadata.date]
            undated = [x for x in found if not x[1].metadata.date]
            dated.sort(key=lambda x: x[1].metadata.date or "", reverse=newest)
            found = dated + undated
        if plan.limit:
            found = found[: plan.limit]
        passages = _numbered(found[: self._max_passages])
        stages = {"retrieved": per_kb, "merged": merged, "passages": len(passages)}
        if notes:
            stages["notes"] = notes
        return passages, stages

    def _retrieve(
        self,
        kb: KnowledgeBase,
        plan: SearchPlan,
        question: str,
        notes: list[str],
        restriction: Restriction,
    ) -> list[Hit]:
        f = plan.filters
        doc_ids = restricted_ids(f.doc_ids, restriction.get(kb.id))
        if doc_ids == []:
            return []  # nothing this caller may search here
        request = RetrieveRequest(
            query=(plan.query or question)[:2000],
            strategy=plan.strategy,
            top_k=plan.top_k,
            score_threshold=plan.threshold,
            hybrid_mode=plan.hybrid_mode,
            filters=RetrieveFilters(
                doc_ids=doc_ids,
                authors=f.authors or None,
                domains=f.domains or None,
                date_from=f.time.from_ if f.time else None,
                date_to=f.time.to if f.time else None,
                title_contains=f.title_contains,
            ),
            weights=(plan.weights if plan.weights.title > 0 else None),
            use_reranker=plan.rerank.enabled and not strategy_info(plan.strategy).reranks,
            reranker_top_k=plan.rerank.top_k,
            reranker_threshold=plan.rerank.threshold,
        )
        try:
            return self._retrieval.retrieve(kb.id, request)
        except ModelUnavailable as exc:
            if not (request.use_reranker or strategy_info(request.strategy).reranks):
                raise
            notes.append(f"{kb.name}: reranker unavailable, searched with hybrid ({exc.message})")
            fallback = request.model_copy(update={"use_reranker": False, "strategy": "hybrid"})
            return self._retrieval.retrieve(kb.id, fallback)


def restricted_ids(wanted: list[str], allowed: frozenset[str] | None) -> list[str] | None:
    """The doc-id filter: the plan's ids, narrowed to the allowed ones (None: no filter, []:
    nothing may be searched)."""
    if allowed is None:
        return wanted or None
    ids = [d for d in wanted if d in allowed] if wanted else sorted(allowed)
    if len(ids) > MAX_RESTRICTED_IDS:
        raise InvalidInput(
            f"this ask may search {len(ids)} documents of one per-user or category-filtered "
            f"knowledge base; at most {MAX_RESTRICTED_IDS} are supported"
        )
    return ids


def _numbered(found: list[tuple[str, Hit]]) -> list[Passage]:
    return [
        Passage(
            n=i,
            chunk_id=hit.chunk_id,
            doc_id=hit.doc_id,
            knowledge_base=name,
            title=hit.metadata.title,
            date=hit.metadata.date,
            score=round(hit.score, 4),
            content=hit.content,
        )
        for i, (name, hit) in enumerate(found, start=1)
    ]
