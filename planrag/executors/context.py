"""What every executor receives (a query bound to one knowledge base) and what it returns."""

from __future__ import annotations

from functools import cached_property

import numpy as np
from pydantic import BaseModel, Field

from planrag.core.types import FusionInfo, KnowledgeBase
from planrag.ingest.tokenizer import LexicalTokenizer
from planrag.llm.embedders import Embedder
from planrag.stores.bm25 import BM25Store
from planrag.stores.filters import Filter
from planrag.stores.vector import VectorStore


class Candidate(BaseModel):
    """A chunk an executor found. `score` is in [0, 1]; leg scores are kept for inspection."""

    chunk_id: str
    doc_id: str
    score: float = Field(ge=0.0, le=1.0)
    dense: float | None = Field(default=None, description="cosine similarity to the query")
    lexical: float | None = Field(default=None, description="normalised BM25 score")
    rerank: float | None = None
    l2_distance: float | None = None


class SearchParams(BaseModel):
    top_k: int = Field(ge=1, le=200)
    where: Filter | None = None
    hybrid_mode: str = "sequential"
    rrf_k: int = Field(default=60, ge=1, le=1000)


class QueryContext:
    """A query bound to one knowledge base's stores; embeds and tokenises at most once."""

    def __init__(
        self,
        kb: KnowledgeBase,
        text: str,
        embedder: Embedder,
        vectors: VectorStore,
        bm25: BM25Store,
    ) -> None:
        self.kb = kb
        self.text = text
        self.embedder = embedder
        self.vectors = vectors
        self.bm25 = bm25
        self.fusion: FusionInfo | None = None

    @cached_property
    def vector(self) -> list[float]:
        return self.embedder.embed([self.text])[0]

    @cached_property
    def tokens(self) -> list[str]:
        return LexicalTokenizer(self.kb.user_words).tokenize(self.text)

    def dense_scores(self, chunk_ids: list[str]) -> dict[str, float]:
        """Exact cosine similarity of the query to the given chunks (their stored vectors)."""
        if not chunk_ids:
            return {}
        stored = self.vectors.get_vectors(self.kb.id, chunk_ids)
        if not stored:
            return {}
        ids = list(stored)
        cosines = np.asarray([stored[c] for c in ids]) @ np.asarray(self.vector)
        return {c: float(min(1.0, max(0.0, x))) for c, x in zip(ids, cosines, strict=True)}
