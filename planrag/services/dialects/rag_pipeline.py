"""Spec 003's retrieval pipeline over every readable knowledge base, and search by a caller's
query vector.

Engines: `naive` — dense (cosine) search, keep hits at or above `grade`, no reranking;
`default` (reported as `advanced`) — the same candidates, then, when asked, a rerank by a model
(`bge`: the configured cross-encoder or rerank service) or by the LLM (`llm`), keeping `top_k`
at or above the rerank `score`. The reranker is optional, as in the spec: when it is missing
or fails, the candidates are returned unreranked and the pipeline says why (`rerank_error`).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

from planrag.core.errors import InvalidEmbedding, PlanragError
from planrag.core.filters import RetrieveFilters
from planrag.core.types import Hit, KnowledgeBase
from planrag.llm.embedders import EmbedderRegistry
from planrag.services.access import KnowledgeBaseAccess
from planrag.services.dialects.document_search import DocumentFilters, DocumentHit, DocumentSearch
from planrag.services.dialects.json_documents import internal_id
from planrag.services.ownership import restricted_ids
from planrag.services.retrieval import RetrievalService

RerankStrategy = Literal["bge", "llm"]
_KINDS: dict[str, Literal["model", "llm"]] = {"bge": "model", "llm": "llm"}


class RerankOptions(BaseModel):
    enabled: bool = False
    strategy: RerankStrategy = "bge"
    top_k: int = Field(default=5, ge=1, le=50)
    score: float = Field(default=0.0, ge=0.0, le=1.0)


class PipelineResult(BaseModel):
    hits: list[DocumentHit]
    engine_used: Literal["advanced", "naive"]
    reranked: bool
    rerank_strategy: RerankStrategy | None
    candidates_considered: int
    rerank_error: str | None = None


def doc_id_candidates(doc_ids: list[str] | None) -> list[str] | None:
    """Internal ids a caller's document ids may mean (internal ids or spec 000 public ids)."""
    if not doc_ids:  # absent or empty: no filter
        return None
    return sorted({i for d in doc_ids for i in (d, internal_id(d))})


class RagPipeline:
    def __init__(
        self, search: DocumentSearch, retrieval: RetrievalService, embedders: EmbedderRegistry
    ) -> None:
        self._search = search
        self._retrieval = retrieval
        self._embedders = embedders

    def retrieve(
        self,
        access: KnowledgeBaseAccess,
        kbs: list[KnowledgeBase],
        query: str,
        grade: float,
        candidates: int,
        doc_ids: list[str] | None,
        engine: Literal["default", "naive"],
        rerank: RerankOptions,
    ) -> PipelineResult:
        filters = DocumentFilters(doc_ids=doc_id_candidates(doc_ids))
        hits = self._search.search(access, kbs, query, candidates, filters, "ann", grade)
        result = PipelineResult(
            hits=hits,
            engine_used="naive" if engine == "naive" else "advanced",
            reranked=False,
            rerank_strategy=None,
            candidates_considered=len(hits),
        )
        if engine == "naive" or not rerank.enabled:
            return result
        try:
            reranked = self._search.rerank(
                query,
                hits,
                kind=_KINDS[rerank.strategy],
                top_k=rerank.top_k,
                threshold=rerank.score,
            )
        except PlanragError as exc:  # the reranker is optional: say why, keep the candidates
            result.hits, result.rerank_error = hits[: rerank.top_k], exc.message
            return result
        result.hits, result.reranked, result.rerank_strategy = reranked, True, rerank.strategy
        return result

    def similar(
        self,
        access: KnowledgeBaseAccess,
        kbs: list[KnowledgeBase],
        vector: list[float],
        top_k: int,
        doc_ids: list[str] | None = None,
    ) -> list[DocumentHit]:
        """Chunks nearest to a raw query embedding in every knowledge base of its dimension
        (of a per-user one, only the caller's documents)."""
        dims = sorted({kb.embedding_dim for kb in kbs}) or [self._embedders.get().dimension]
        if len(vector) not in dims:
            expected = " or ".join(map(str, dims))
            raise InvalidEmbedding(
                f"queryEmbedding has dimension {len(vector)}; expected {expected}",
                dimension=len(vector),
                expected=dims,
            )
        norm = math.sqrt(sum(x * x for x in vector))
        if not math.isfinite(norm) or norm == 0.0:
            raise InvalidEmbedding("queryEmbedding must be a finite, non-zero vector")
        unit = [x / norm for x in vector]
        wanted = doc_id_candidates(doc_ids)
        found: list[tuple[KnowledgeBase, Hit]] = []
        for kb in kbs:
            if kb.embedding_dim != len(vector):
                continue
            ids = wanted
            owned = access.owned(kb)
            if owned is not None:
                ids = restricted_ids(wanted or [], owned)
                if not ids:
                    continue  # nothing of this per-user KB is the caller's
            filters = RetrieveFilters(doc_ids=ids) if ids else None
            found.extend(
                (kb, h) for h in self._retrieval.similar_chunks(kb.id, unit, top_k, filters)
            )
        found.sort(key=lambda pair: pair[1].score, reverse=True)
        return self._search.describe(found[:top_k])
