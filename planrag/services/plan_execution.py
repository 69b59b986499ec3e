"""Running a validated plan: each chosen knowledge base through the retrieval service (the
whitelisted executors, filters as typed trees), merged, sorted, limited and numbered as the
passages an answer may cite."""

from __future__ import annotations

import logging
from typing import Any

from planrag.core.errors import ModelUnavailable, StoreUnavailable
from planrag.core.strategies import strategy_info
from planrag.core.types import Hit, KnowledgeBase
from planrag.executors.pipeline import sort_and_limit
from planrag.planner.schema import SearchPlan
from planrag.services.answers import LegRanks, Passage
from planrag.services.ask_events import SearchStages
from planrag.services.document_listing import DocumentListing
from planrag.services.ownership import Restriction, restricted_ids
from planrag.services.retrieval import (
    RetrievalService,
    RetrieveRequest,
)

log = logging.getLogger(__name__)


class PlanExecutor:
    def __init__(
        self,
        retrieval: RetrievalService,
        max_passages: int,
        listing: DocumentListing,
        world_date_passages: int = 0,
    ) -> None:
        self._retrieval = retrieval
        self._max_passages = max_passages
        self._listing = listing
        self._world_date_passages = world_date_passages

    def execute(
        self,
        plan: SearchPlan,
        question: str,
        kbs: dict[str, KnowledgeBase],
        restriction: Restriction | None = None,
    ) -> tuple[list[Passage], SearchStages]:
        """Runs the plan on each chosen KB; merges, sorts and limits; numbers the passages.
        `restriction` (kb id → document ids) narrows a KB to those documents (per-user KBs)."""
        restriction = restriction or {}
        if plan.listing:
            listed, stages = self._listing.run(plan, kbs, self._max_passages, restriction)
            return _numbered(listed), stages
        found: list[tuple[str, Hit]] = []
        per_kb: dict[str, int] = {}
        notes: list[str] = []
        failures: list[Exception] = []
        graph: dict[str, Any] = {}  # knowledge base → what graph search did there
        fusion: dict[str, Any] = {}  # knowledge base → how hybrid weighted its legs there
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
            if hits and hits[0].graph_metadata is not None:
                graph[name] = hits[0].graph_metadata.model_dump(mode="json")
            if hits and hits[0].metadata.fusion is not None:
                fusion[name] = hits[0].metadata.fusion.model_dump(mode="json")
        if failures and len(failures) == len(plan.knowledge_bases):
            raise failures[0]
        merged = len(found)
        found = sort_and_limit(
            found,
            plan.sort,
            plan.limit,
            score=lambda item: item[1].score,
            date=lambda item: item[1].metadata.date,
            doc=lambda item: item[1].doc_id,
        )
        shown = found[: self._max_passages]
        shown += self._dated(plan, question, kbs, restriction, shown, notes)
        passages = _numbered(shown)
        stages = SearchStages(
            retrieved=per_kb,
            merged=merged,
            passages=len(passages),
            notes=notes,
            graph=graph or None,
            fusion=fusion or None,
        )
        return passages, stages

    def _dated(
        self,
        plan: SearchPlan,
        question: str,
        kbs: dict[str, KnowledgeBase],
        restriction: Restriction,
        shown: list[tuple[str, Hit]],
        notes: list[str],
    ) -> list[tuple[str, Hit]]:
        """The soft signal of a date the question names about the world (`plan.world_time`):
        the same search filtered to that date, whose best passages of documents not shown yet
        are added after the others — up to `world_date_passages`, nothing removed or reordered."""
        soft, room = plan.world_time, self._world_date_passages
        if soft is None or not room or plan.filters.time or plan.listing or plan.limit:
            return []
        dated_plan = plan.model_copy(
            update={"filters": plan.filters.model_copy(update={"time": soft}), "world_time": None}
        )
        seen = {hit.doc_id for _, hit in shown}
        extra: list[tuple[str, Hit]] = []
        for name in plan.knowledge_bases:
            try:
                hits = self._retrieve(kbs[name], dated_plan, question, [], restriction)
            except Exception as exc:  # a soft signal: the answer stands without it
                log.warning("dated search of knowledge base %s failed: %s", name, exc)
                continue
            extra.extend((name, h) for h in hits if h.doc_id not in seen)
        best: dict[str, tuple[str, Hit]] = {}  # a document's best passage
        for item in sorted(extra, key=lambda item: -item[1].score):
            best.setdefault(item[1].doc_id, item)
        added = list(best.values())[:room]
        if added:
            notes.append(
                f"{len(added)} passage(s) dated '{soft.expression or soft.from_}' added after "
                "the others (a date of the world: nothing removed)"
            )
        return added

    def _retrieve(
        self,
        kb: KnowledgeBase,
        plan: SearchPlan,
        question: str,
        notes: list[str],
        restriction: Restriction,
    ) -> list[Hit]:
        filters = plan.filters.to_retrieve()
        owned = restriction.get(kb.id)  # a per-user KB: the asker's documents, graph included
        if kb.id in restriction:
            allowed = restricted_ids(filters.doc_ids or [], restriction[kb.id])
            if not allowed:
                return []  # nothing this caller may search here
            filters = filters.model_copy(update={"doc_ids": allowed})
        request = RetrieveRequest(
            query=(plan.query or question)[:2000],
            strategy=plan.strategy,
            top_k=plan.top_k,
            score_threshold=plan.threshold,
            hybrid_mode=plan.hybrid_mode,
            filters=filters,
            weights=(plan.weights if plan.weights.title > 0 else None),
            use_reranker=plan.rerank.enabled and not strategy_info(plan.strategy).reranks,
            reranker_top_k=plan.rerank.top_k,
            reranker_threshold=plan.rerank.threshold,
            enable_graph_search=plan.graph.enabled and kb.graph_backend != "none",
            graph_hops=plan.graph.hops,
        )
        if request.enable_graph_search:
            try:
                return self._retrieval.retrieve(kb.id, request, None, owned)
            except StoreUnavailable as exc:  # the graph server is down: the text still answers
                notes.append(
                    f"{kb.name}: graph search unavailable, searched without ({exc.message})"
                )
                request = request.model_copy(update={"enable_graph_search": False})
        try:
            skipped: list[str] = []
            hits = self._retrieval.retrieve(kb.id, request, skipped, owned)
            notes.extend(f"{kb.name}: {note}" for note in skipped)
            return hits
        except ModelUnavailable as exc:
            if not request.use_reranker:  # 2-stage runs its first stage and notes the skip
                raise
            notes.append(f"{kb.name}: reranker unavailable, searched with hybrid ({exc.message})")
            fallback = request.model_copy(update={"use_reranker": False, "strategy": "hybrid"})
            return self._retrieval.retrieve(kb.id, fallback, None, owned)


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
            leg_ranks=_leg_ranks(hit),
        )
        for i, (name, hit) in enumerate(found, start=1)
    ]


def _leg_ranks(hit: Hit) -> LegRanks | None:
    meta = hit.metadata
    if meta.dense_rank is None or meta.lexical_rank is None or meta.fusion is None:
        return None
    script = meta.fusion.query_script or ""
    return LegRanks(dense=meta.dense_rank, lexical=meta.lexical_rank, script=script)
