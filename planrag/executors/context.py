"""What every executor receives (a query bound to one knowledge base) and what it returns."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
from pydantic import BaseModel, Field

from planrag.core.filters import And, Filter, NotIn
from planrag.core.types import FusionInfo, GraphMetadata, KnowledgeBase
from planrag.llm.embedders import Embedder
from planrag.stores.bundle import StoreBundle
from planrag.stores.vector import TitleRecord, VectorHit, title_weighted_search
from planrag.text.tokenizer import tokenizer_for


class Candidate(BaseModel):
    """A chunk an executor found. `score` is in [0, 1]; leg scores are kept for inspection."""

    chunk_id: str
    doc_id: str
    score: float = Field(ge=0.0, le=1.0)
    dense: float | None = Field(
        default=None, description="cosine similarity to the query (title-weighted if asked)"
    )
    title: float | None = Field(default=None, description="cosine to the document's title")
    lexical: float | None = Field(default=None, description="normalised BM25 score")
    dense_rank: int | None = Field(default=None, description="hybrid: rank by the dense leg")
    lexical_rank: int | None = Field(default=None, description="hybrid: rank by BM25")
    rerank: float | None = None
    l2_distance: float | None = None
    graph: float | None = Field(default=None, description="path score of a graph-found chunk")
    graph_entities: list[str] | None = None

    @classmethod
    def from_vector_hit(cls, hit: VectorHit) -> Candidate:
        """A dense hit: its (title-weighted) cosine is both the score and the dense leg."""
        return cls(
            chunk_id=hit.chunk_id,
            doc_id=hit.doc_id,
            score=hit.score,
            dense=hit.score,
            title=hit.title_score,
        )


class SearchParams(BaseModel):
    top_k: int = Field(ge=1, le=200)
    where: Filter | None = None
    hybrid_mode: str = "sequential"
    rrf_k: int = Field(default=60, ge=1, le=1000)
    title_weight: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="dense score = (1 − w)·cos(chunk) + w·cos(document title) (spec 002 weights)",
    )


# Doc ids → the text each document's title vector embeds (for lazily built title vectors).
TitleTexts = Callable[[list[str]], dict[str, str]]
# (chunk ids, filter) → the ones the filter allows (chunks found outside a filtered search, e.g.
# by the graph, are checked against the request's filters with it).
ChunkFilter = Callable[[list[str], Filter], set[str]]


class QueryContext:
    """A query bound to one knowledge base's stores (a bundle of protocols: vector, lexical,
    graph); embeds and tokenises at most once."""

    def __init__(
        self,
        kb: KnowledgeBase,
        text: str,
        embedder: Embedder,
        stores: StoreBundle,
        title_texts: TitleTexts | None = None,
        hidden: list[str] | None = None,
        chunk_filter: ChunkFilter | None = None,
        documents: frozenset[str] | None = None,
        chunk_texts: Callable[[list[str]], dict[str, str]] | None = None,
    ) -> None:
        self.kb = kb
        self.text = text
        self.embedder = embedder
        self.stores = stores
        # Documents still being indexed: their vectors are searchable before their BM25 terms,
        # so dense searches leave them out (a search sees a document in every index or none).
        self.hidden = hidden or []
        self.title_texts = title_texts
        self.chunk_texts = chunk_texts  # chunk ids → their texts (graph paths read sentences)
        self.chunk_filter = chunk_filter
        # A per-user KB: the only documents the asker may see. Passages are narrowed by the
        # request's filters; graph search reads its graph through these (RestrictedGraph).
        self.documents = documents
        self.fusion: FusionInfo | None = None  # what hybrid's fusion did (its executor sets it)
        self.graph: GraphMetadata | None = None  # what graph search did (GraphExecutor sets it)
        self.notes: list[str] = []  # what the caller should be told (e.g. a skipped stage)

    @cached_property
    def vector(self) -> list[float]:
        return self.embedder.embed_queries([self.text])[0]

    @cached_property
    def tokens(self) -> list[str]:
        return tokenizer_for(self.kb.user_words).index_tokens(self.text)

    def dense_search(
        self, top_k: int, where: Filter | None, title_weight: float = 0.0
    ) -> list[VectorHit]:
        """Nearest chunks by cosine, title-weighted when `title_weight` > 0; documents still
        being indexed left out."""
        if self.hidden:
            unfinished = NotIn(field="doc_id", values=self.hidden)
            where = unfinished if where is None else And(items=[where, unfinished])
        return title_weighted_search(
            self.stores.vector,
            self.kb.id,
            self.vector,
            top_k,
            where,
            title_weight,
            self.title_scores,
        )

    def title_scores(self, doc_ids: list[str]) -> dict[str, float]:
        """Title cosines of these documents. Title vectors are built lazily: a document without
        one gets it now (its title, else its filename as words), so ingestion never pays for
        titles that no query weighs."""
        scores = self.stores.vector.title_scores(self.kb.id, self.vector, doc_ids)
        missing = [d for d in doc_ids if d not in scores]
        if missing and self.title_texts is not None:
            texts = {d: t for d, t in self.title_texts(missing).items() if t}
            if texts:
                ids = list(texts)
                vectors = self.embedder.embed([texts[d] for d in ids])
                self.stores.vector.upsert_titles(
                    self.kb.id,
                    [TitleRecord(doc_id=d, vector=v) for d, v in zip(ids, vectors, strict=True)],
                )
                scores.update(self.stores.vector.title_scores(self.kb.id, self.vector, ids))
        return scores

    def weigh_titles(
        self, scores: dict[str, float], doc_of: dict[str, str], title_weight: float
    ) -> tuple[dict[str, float], dict[str, float]]:
        """Chunk cosines → title-weighted scores, and each chunk's title cosine (when its
        document has a title vector; otherwise the chunk score is kept)."""
        if title_weight <= 0.0 or not scores:
            return scores, {}
        titles = self.title_scores(sorted({doc_of[c] for c in scores}))
        weighted, title_of = dict(scores), {}
        for chunk_id, cos in scores.items():
            title = titles.get(doc_of[chunk_id])
            if title is not None:
                title_of[chunk_id] = title
                weighted[chunk_id] = min(1.0, (1.0 - title_weight) * cos + title_weight * title)
        return weighted, title_of

    def dense_scores(self, chunk_ids: list[str]) -> dict[str, float]:
        """Exact cosine similarity of the query to the given chunks (their stored vectors)."""
        if not chunk_ids:
            return {}
        stored = self.stores.vector.get_vectors(self.kb.id, chunk_ids)
        if not stored:
            return {}
        ids = list(stored)
        cosines = np.asarray([stored[c] for c in ids]) @ np.asarray(self.vector)
        return {c: float(min(1.0, max(0.0, x))) for c, x in zip(ids, cosines, strict=True)}
