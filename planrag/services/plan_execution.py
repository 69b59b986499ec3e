"""Running a validated plan: each chosen knowledge base through the retrieval service (the
whitelisted executors, filters as typed trees), merged, sorted, limited and numbered as the
passages an answer may cite."""

from __future__ import annotations

import logging
from typing import Any

from planrag.core.errors import ModelUnavailable, StoreUnavailable
from planrag.core.strategies import strategy_info
from planrag.core.types import Hit, KnowledgeBase
from planrag.planner.schema import SearchPlan
from planrag.services.answers import Passage
from planrag.services.document_listing import DocumentListing
from planrag.services.retrieval import (
    RetrievalService,
    RetrieveFilters,
    RetrieveRequest,
)

log = logging.getLogger(__name__)

# With sort newest/oldest, candidates below this fraction of the best score are dropped first.
SORT_RELEVANCE_FLOOR = 0.5


class PlanExecutor:
    def __init__(
        self, retrieval: RetrievalService, max_passages: int, listing: DocumentListing
    ) -> None:
        self._retrieval = retrieval
        self._max_passages = max_passages
        self._listing = listing

    def execute(
        self, plan: SearchPlan, question: str, kbs: dict[str, KnowledgeBase]
    ) -> tuple[list[Passage], dict[str, Any]]:
        """Runs the plan on each chosen KB; merges, sorts and limits; numbers the passages."""
        if plan.listing:
            listed, stages = self._listing.run(plan, kbs, self._max_passages)
            return _numbered(listed), stages
        found: list[tuple[str, Hit]] = []
        per_kb: dict[str, int] = {}
        notes: list[str] = []
        failures: list[Exception] = []
        graph: dict[str, Any] = {}  # knowledge base → what graph search did there
        for name in plan.knowledge_bases:
            try:
                hits = self._retrieve(kbs[name], plan, question, notes)
            except Exception as exc:  # one broken KB must not sink the others' answer
                log.warning("search of knowledge base %s failed: %s", name, exc)
                notes.append(f"{name}: search failed ({type(exc).__name__}: {str(exc)[:200]})")
                failures.append(exc)
                continue
            per_kb[name] = len(hits)
            found.extend((name, h) for h in hits)
            if hits and hits[0].graph_metadata is not None:
                graph[name] = hits[0].graph_metadata.model_dump(mode="json")
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
        if graph:
            stages["graph"] = graph
        if notes:
            stages["notes"] = notes
        return passages, stages

    def _retrieve(
        self, kb: KnowledgeBase, plan: SearchPlan, question: str, notes: list[str]
    ) -> list[Hit]:
        f = plan.filters
        request = RetrieveRequest(
            query=(plan.query or question)[:2000],
            strategy=plan.strategy,
            top_k=plan.top_k,
            score_threshold=plan.threshold,
            hybrid_mode=plan.hybrid_mode,
            filters=RetrieveFilters(
                doc_ids=f.doc_ids or None,
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
            enable_graph_search=plan.graph.enabled and kb.graph_backend != "none",
            graph_hops=plan.graph.hops,
        )
        if request.enable_graph_search:
            try:
                return self._retrieval.retrieve(kb.id, request)
            except StoreUnavailable as exc:  # the graph server is down: the text still answers
                notes.append(
                    f"{kb.name}: graph search unavailable, searched without ({exc.message})"
                )
                request = request.model_copy(update={"enable_graph_search": False})
        try:
            skipped: list[str] = []
            hits = self._retrieval.retrieve(kb.id, request, skipped)
            notes.extend(f"{kb.name}: {note}" for note in skipped)
            return hits
        except ModelUnavailable as exc:
            if not request.use_reranker:  # 2-stage runs its first stage and notes the skip
                raise
            notes.append(f"{kb.name}: reranker unavailable, searched with hybrid ({exc.message})")
            fallback = request.model_copy(update={"use_reranker": False, "strategy": "hybrid"})
            return self._retrieval.retrieve(kb.id, fallback)


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
