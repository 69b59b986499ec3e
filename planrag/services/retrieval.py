"""Retrieval use case: a query against one knowledge base, hits best first, scores in [0, 1]."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planrag.core.errors import InvalidInput
from planrag.core.types import Hit, HitMetadata, KnowledgeBase
from planrag.llm.embedders import EmbedderRegistry
from planrag.stores.metadata import MetadataStore
from planrag.stores.vector import VectorHit, VectorStore

Strategy = Literal["ann", "keyword", "bm25", "hybrid", "2-stage"]
AVAILABLE_STRATEGIES: tuple[Strategy, ...] = ("ann",)
MAX_QUERY_CHARS = 2000


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, examples=["환불 규정이 어떻게 되나요?"]
    )
    top_k: int | None = Field(default=None, ge=1, le=50, description="defaults to the KB's top_k")
    score_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="defaults to the KB's score_threshold"
    )
    strategy: Strategy = "ann"


class RetrievalService:
    def __init__(
        self, metadata: MetadataStore, vectors: VectorStore, embedders: EmbedderRegistry
    ) -> None:
        self._metadata = metadata
        self._vectors = vectors
        self._embedders = embedders

    def retrieve(self, kb_id: str, request: RetrieveRequest) -> list[Hit]:
        kb = self._metadata.get_kb(kb_id)
        if request.strategy not in AVAILABLE_STRATEGIES:
            raise InvalidInput(
                f"strategy '{request.strategy}' is not available yet; "
                f"available: {', '.join(AVAILABLE_STRATEGIES)}",
                strategy=request.strategy,
            )
        if not request.query.strip():
            raise InvalidInput("query is blank")
        top_k = request.top_k or kb.top_k
        threshold = (
            kb.score_threshold if request.score_threshold is None else request.score_threshold
        )
        embedder = self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
        vector = embedder.embed([request.query])[0]
        # Parent-child: several children may share a parent, so fetch more before de-duplicating.
        fetch = top_k * 3 if kb.chunking.strategy == "parent_child" else top_k
        found = self._vectors.search(kb.id, vector, fetch)
        hits = self._to_hits(kb, [h for h in found if h.score >= threshold])
        return hits[:top_k]

    def _to_hits(self, kb: KnowledgeBase, found: list[VectorHit]) -> list[Hit]:
        chunks = self._metadata.get_chunks(h.chunk_id for h in found)
        parent_ids = {c.parent_id for c in chunks.values() if c.parent_id}
        parents = self._metadata.get_chunks(parent_ids)
        docs = self._metadata.get_documents({h.doc_id for h in found})
        hits: list[Hit] = []
        seen: set[str] = set()
        for vh in found:  # already best first
            chunk = chunks.get(vh.chunk_id)
            doc = docs.get(vh.doc_id)
            if chunk is None or doc is None:
                continue  # a document deleted between the search and this lookup
            parent = parents.get(chunk.parent_id) if chunk.parent_id else None
            shown = parent or chunk
            if shown.id in seen:
                continue
            seen.add(shown.id)
            meta = doc.metadata
            hits.append(
                Hit(
                    chunk_id=shown.id,
                    doc_id=vh.doc_id,
                    content=shown.text,
                    score=vh.score,
                    metadata=HitMetadata(
                        filename=doc.filename,
                        title=meta.title or doc.filename,
                        author=meta.author,
                        domain=meta.domain,
                        date=meta.date,
                        page=shown.page,
                        position=shown.position,
                        parent_id=chunk.parent_id,
                        matched_text=chunk.text if parent else None,
                    ),
                )
            )
        return hits
