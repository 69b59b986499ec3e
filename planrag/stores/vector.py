"""The vector-store protocol every backend implements (Milvus, PostgreSQL + pgvector).

Scores leave a store as cosine similarity in [0, 1], whatever metric the collection uses.

Besides chunk vectors a store keeps one *title vector* per document (spec 002's title weighting):
`title_weighted_search` scores a chunk `(1 − w)·cos(chunk) + w·cos(title)`. A document without a
title vector (e.g. indexed before title vectors existed) keeps its pure chunk score.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from planrag.core.filters import Filter
from planrag.core.types import Metric


class VectorRecord(BaseModel):
    chunk_id: str
    doc_id: str
    text: str
    title: str = ""
    author: str = ""
    domain: str = ""
    date: int = 0  # YYYYMMDD, 0 when unknown
    vector: list[float]


class VectorHit(BaseModel):
    chunk_id: str
    doc_id: str
    text: str
    title: str = ""
    author: str = ""
    domain: str = ""
    date: int = 0
    score: float = Field(ge=0.0, le=1.0, description="cosine similarity clamped to [0, 1]")
    distance: float = Field(description="the raw distance or similarity the engine returned")
    title_score: float | None = Field(
        default=None, description="cosine of the query to the document's title, when weighted"
    )


class TitleRecord(BaseModel):
    """A document's title embedding (its title, or its filename without the extension)."""

    doc_id: str
    vector: list[float]


@runtime_checkable
class VectorStore(Protocol):
    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None: ...

    def drop_collection(self, kb_id: str) -> None: ...

    def has_collection(self, kb_id: str) -> bool: ...

    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None: ...

    def delete(self, kb_id: str, where: Filter) -> None: ...

    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]: ...

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]: ...

    def count(self, kb_id: str, where: Filter | None = None) -> int: ...

    def doc_ids(self, kb_id: str) -> set[str]: ...

    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None: ...

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None: ...

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        """Cosine in [0, 1] of the query to each given document's title; absent without one."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class BatchSearchStore(VectorStore, Protocol):
    """A vector store that answers several query vectors in one call (Milvus: one `search`
    with `data=[v1, v2, …]`): `search_many(...)[i] == search(kb_id, vectors[i], ...)`."""

    def search_many(
        self, kb_id: str, vectors: list[list[float]], top_k: int, where: Filter | None = None
    ) -> list[list[VectorHit]]: ...


def cosine_from_distance(metric: Metric, distance: float) -> float:
    """Cosine similarity in [0, 1] from an engine's distance on unit-normalised vectors.

    COSINE and IP on unit vectors are the cosine; squared L2 on unit vectors is 2 − 2·cos.
    Negative cosines (opposite directions) are clamped to 0.
    """
    cos = 1.0 - distance / 2.0 if metric == "L2" else distance
    return min(1.0, max(0.0, cos))


TITLE_POOL_FACTOR = 4
TITLE_MIN_POOL = 40


def clamp_cosine(value: float) -> float | None:
    """A cosine clamped to [0, 1]; None for NaN (a zero vector has no direction)."""
    return None if math.isnan(value) else min(1.0, max(0.0, value))


def weigh_titles(hits: list[VectorHit], titles: dict[str, float], weight: float) -> list[VectorHit]:
    """Re-score hits `(1 − weight)·chunk + weight·title`, best first. A hit whose document has no
    title vector keeps its chunk score."""
    weighed = []
    for hit in hits:
        title = titles.get(hit.doc_id)
        if title is None:
            weighed.append(hit)
            continue
        score = min(1.0, max(0.0, (1.0 - weight) * hit.score + weight * title))
        weighed.append(hit.model_copy(update={"score": score, "title_score": title}))
    weighed.sort(key=lambda h: h.score, reverse=True)
    return weighed


def title_weighted_search(
    store: VectorStore,
    kb_id: str,
    vector: list[float],
    top_k: int,
    where: Filter | None = None,
    title_weight: float = 0.0,
    title_scores: Callable[[list[str]], dict[str, float]] | None = None,
) -> list[VectorHit]:
    """`store.search`, re-scored with title weighting when `title_weight` > 0. `title_scores`
    (doc ids → title cosines) defaults to the store's own; a caller may fill missing title
    vectors first (they are built lazily, see `QueryContext.title_scores`).

    The chunk candidates are a pool of max(4·top_k, 40) by chunk cosine, re-ordered by the
    weighted score: a document whose title matches but none of whose chunks is in the pool is not
    found (the pool is the recall bound), which keeps this one ANN query plus one title lookup
    on every backend.
    """
    if title_weight <= 0.0:
        return store.search(kb_id, vector, top_k, where)
    pool = store.search(kb_id, vector, max(top_k * TITLE_POOL_FACTOR, TITLE_MIN_POOL), where)
    doc_ids = sorted({h.doc_id for h in pool})
    titles = title_scores(doc_ids) if title_scores else store.title_scores(kb_id, vector, doc_ids)
    return weigh_titles(pool, titles, title_weight)[:top_k]
