"""Searching knowledge bases by metadata-rich filters (spec 000's search, spec 004's local search,
spec 003's retrieval), through the same retrieval service and strategies as the rest.

Results are chunks (passages) with their document's view (`info` and `tags` as objects); across
several knowledge bases they are merged best first (every score is in [0, 1]).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planrag.core.errors import PlanragError
from planrag.core.filters import RetrieveFilters
from planrag.core.strategies import StrategyName
from planrag.core.types import DocumentStatus, Hit, KnowledgeBase, PlainText
from planrag.llm.rerankers import RerankerKind
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.dialects.json_documents import (
    DocumentView,
    check_yyyymmdd,
    decode_info,
    decode_tags,
)
from planrag.services.dialects.json_documents import view as document_view
from planrag.services.dialects.reranking import RerankService
from planrag.services.retrieval import RetrievalService, RetrieveRequest
from planrag.stores.metadata import MetadataStore

MAX_TOP_K = 50  # the retrieval service's ceiling per knowledge base
MAX_DOC_FILTER = 1000  # documents an info/tags filter may narrow to before post-filtering


class StageFailed(PlanragError):
    """One stage of a multi-stage search failed (`stage`: search | rerank); the cause is
    chained and its code and status are kept."""

    def __init__(self, stage: str, cause: Exception) -> None:
        message = cause.message if isinstance(cause, PlanragError) else str(cause)
        super().__init__(f"{stage} failed: {message}", stage=stage)
        self.stage = stage
        if isinstance(cause, PlanragError):
            self.code, self.status = cause.code, cause.status


class DocumentFilters(BaseModel):
    """Spec 000's search filters. Dates are YYYYMMDD, inclusive; `info` and `tags` match when
    every key given equals the document's value."""

    model_config = ConfigDict(extra="forbid")

    author: PlainText | None = None
    start_date: str | None = None
    end_date: str | None = None
    title: PlainText | None = Field(default=None, max_length=200, description="title contains")
    info: dict[str, Any] | None = None
    tags: dict[str, Any] | None = None
    doc_ids: list[str] | None = Field(default=None, description="internal document ids")

    @field_validator("start_date", "end_date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        return None if value is None else check_yyyymmdd(value)

    def to_retrieve(self, doc_ids: list[str] | None) -> RetrieveFilters:
        return RetrieveFilters(
            doc_ids=doc_ids,
            authors=[self.author] if self.author else None,
            date_from=self.start_date,
            date_to=self.end_date,
            title_contains=self.title or None,
        )


class DocumentHit(BaseModel):
    chunk_id: str
    passage_id: int = Field(description="the chunk's position in its document, from 1")
    text: str
    score: float = Field(ge=0.0, le=1.0)
    similarity: float | None = Field(default=None, description="cosine similarity")
    knowledge_base: str
    document: DocumentView
    hit: Hit


def _narrowed(allowed: set[str] | None, owned: frozenset[str] | None) -> set[str] | None:
    """The documents a search may return: those the filters leave, of those the caller owns
    (None: no limit)."""
    if owned is None:
        return allowed
    return set(owned) if allowed is None else allowed & owned


def _same(actual: Any, wanted: Any) -> bool:
    return bool(actual == wanted or str(actual) == str(wanted))


def _matches(values: dict[str, Any] | None, wanted: dict[str, Any] | None) -> bool:
    if not wanted:
        return True
    values = values or {}
    return all(k in values and _same(values[k], v) for k, v in wanted.items())


class DocumentSearch:
    def __init__(
        self, metadata: MetadataStore, retrieval: RetrievalService, rerank: RerankService
    ) -> None:
        self._metadata = metadata
        self._retrieval = retrieval
        self._rerank = rerank

    @staticmethod
    def knowledge_bases(access: KnowledgeBaseAccess, domain: str | None) -> list[KnowledgeBase]:
        """The domain's knowledge base (none if it does not exist), or every readable one
        without a domain (a blank one too: clients send "" for a field they leave unset)."""
        if domain is None or not domain.strip():
            return access.readable()
        kb = access.find(domain)
        return [kb] if kb else []

    def search(
        self,
        access: KnowledgeBaseAccess,
        kbs: list[KnowledgeBase],
        query: str,
        top_k: int,
        filters: DocumentFilters | None = None,
        strategy: StrategyName = "hybrid",
        score_threshold: float | None = None,
        graph_hops: int | None = None,
    ) -> list[DocumentHit]:
        """The best `top_k` passages of the knowledge bases, merged best first; of a per-user
        knowledge base, only the caller's documents (`access.owned`). With `graph_hops`, the
        knowledge bases that have a graph are searched from the question's entities and their
        neighbourhood too (graph search, as /retrieve's `enable_graph_search`)."""
        filters = filters or DocumentFilters()
        hits: list[tuple[KnowledgeBase, Hit]] = []
        for kb in kbs:
            allowed = _narrowed(self._allowed_docs(kb, filters), access.owned(kb))
            hops = graph_hops if kb.graph_backend != "none" else None
            found = self._search_kb(
                kb, query, top_k, filters, allowed, strategy, score_threshold, hops
            )
            hits.extend((kb, h) for h in found)
        hits.sort(key=lambda pair: pair[1].score, reverse=True)
        return self.describe(hits[:top_k])

    def _search_kb(
        self,
        kb: KnowledgeBase,
        query: str,
        top_k: int,
        filters: DocumentFilters,
        allowed: set[str] | None,
        strategy: StrategyName,
        score_threshold: float | None,
        graph_hops: int | None = None,
    ) -> list[Hit]:
        if allowed is not None and not allowed:
            return []
        # Up to MAX_DOC_FILTER documents narrow the search itself; more are filtered afterwards.
        narrow = allowed is not None and len(allowed) <= MAX_DOC_FILTER
        request = RetrieveRequest(
            query=query,
            top_k=MAX_TOP_K if allowed is not None and not narrow else min(top_k, MAX_TOP_K),
            strategy=strategy,
            score_threshold=score_threshold,
            filters=filters.to_retrieve(sorted(allowed) if allowed and narrow else None),
            enable_graph_search=graph_hops is not None,
            graph_hops=graph_hops or 2,
        )
        found = self._retrieval.retrieve(kb.id, request)
        return found if allowed is None else [h for h in found if h.doc_id in allowed][:top_k]

    def _allowed_docs(self, kb: KnowledgeBase, filters: DocumentFilters) -> set[str] | None:
        """Documents passing the info/tags/id filters (None: no such filter)."""
        if not filters.info and not filters.tags and filters.doc_ids is None:
            return None
        docs = self._metadata.list_documents(kb.id, [DocumentStatus.completed])
        if filters.doc_ids is not None:
            wanted = set(filters.doc_ids)
            docs = [d for d in docs if d.id in wanted]
        return {
            d.id
            for d in docs
            if _matches(decode_info(d), filters.info) and _matches(decode_tags(d), filters.tags)
        }

    def describe(self, hits: list[tuple[KnowledgeBase, Hit]]) -> list[DocumentHit]:
        docs = self._metadata.get_documents({h.doc_id for _, h in hits})
        result = []
        for kb, hit in hits:
            doc = docs.get(hit.doc_id)
            if doc is None:  # deleted between the search and this lookup
                continue
            result.append(
                DocumentHit(
                    chunk_id=hit.chunk_id,
                    passage_id=(hit.metadata.position or 0) + 1,
                    text=hit.content,
                    score=hit.score,
                    similarity=hit.metadata.dense_score,
                    knowledge_base=kb.name,
                    document=document_view(doc, kb.name),
                    hit=hit,
                )
            )
        return result

    def rerank(
        self,
        query: str,
        hits: list[DocumentHit],
        *,
        kind: RerankerKind = "configured",
        top_k: int | None = None,
        threshold: float = 0.0,
    ) -> list[DocumentHit]:
        """Hits reordered by reranker score (which becomes their `score`)."""
        ranked = self._rerank.rank(
            query, [h.text for h in hits], kind=kind, top_k=top_k, threshold=threshold
        )
        return [hits[r.index].model_copy(update={"score": r.score}) for r in ranked]

    def enhanced(
        self,
        access: KnowledgeBaseAccess,
        kbs: list[KnowledgeBase],
        query: str,
        top_k: int,
        raw_results: int,
        filters: DocumentFilters | None = None,
    ) -> list[DocumentHit]:
        """`raw_results` candidates → rerank → `top_k` (spec 000's enhanced search). Failures
        are a `StageFailed` naming the stage."""
        try:
            self._rerank.require()
        except Exception as exc:
            raise StageFailed("rerank", exc) from exc
        try:
            candidates = self.search(access, kbs, query, raw_results, filters)
        except Exception as exc:
            raise StageFailed("search", exc) from exc
        try:
            return self.rerank(query, candidates, top_k=top_k)
        except Exception as exc:
            raise StageFailed("rerank", exc) from exc
