"""The vector-store protocol every backend implements (Milvus now, pgvector next).

Scores leave a store as cosine similarity in [0, 1], whatever metric the collection uses.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from planrag.core.types import Metric
from planrag.stores.filters import Filter


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

    def close(self) -> None: ...


def cosine_from_distance(metric: Metric, distance: float) -> float:
    """Cosine similarity in [0, 1] from an engine's distance on unit-normalised vectors.

    COSINE and IP on unit vectors are the cosine; squared L2 on unit vectors is 2 − 2·cos.
    Negative cosines (opposite directions) are clamped to 0.
    """
    cos = 1.0 - distance / 2.0 if metric == "L2" else distance
    return min(1.0, max(0.0, cos))
