"""Concurrent vector searches under bursts: a micro-batcher in front of any `VectorStore`.

Milvus Lite pays most of a search per call, not per query (100k chunks: ≈ 50 ms for one query
alone, ≈ 1.6 ms each for 100 in one call), and `MilvusStore` serves one call at a time. Here
concurrent `search` calls against the same collection with the same `top_k`, the same filter
and query vectors of the same dimension, arriving within `window_s` of each other, go to the
store as one `search_many` call (Milvus: one `search(data=[v1, v2, …])`); each caller gets its
own hits, and a failed call raises in every caller of that batch. A search with other
parameters waits in its own batch, so filters never mix.

A store without `search_many` (pgvector: one SQL query per vector over a pool of connections,
which PostgreSQL already runs in parallel; an index scan per query either way, so there is
nothing to share) is searched directly: the wrapper is then transparent. Everything else passes
straight through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from planrag.core.filters import Filter
from planrag.core.micro_batching import MicroBatcher
from planrag.core.types import Metric
from planrag.stores.vector import (
    BatchSearchStore,
    TitleRecord,
    VectorHit,
    VectorRecord,
    VectorStore,
)

__all__ = ["BatchingVectorStore"]

CLOSE_WAIT_S = 10.0


@dataclass(frozen=True)
class SearchKey:
    """What searches must share to go in one call (`where` compared by its JSON)."""

    kb_id: str
    top_k: int
    dimension: int
    filter_json: str
    where: Filter | None = field(compare=False, hash=False)


class BatchingVectorStore:
    def __init__(self, inner: VectorStore, *, window_s: float = 0.003, max_batch: int = 64):
        self.inner = inner
        self._batcher: MicroBatcher[SearchKey, list[float], list[VectorHit]] | None = None
        if isinstance(inner, BatchSearchStore):
            self._batcher = MicroBatcher(
                self._search_batch,
                window_s=window_s,
                max_batch=max_batch,
                name="vector-search-batcher",
            )

    @property
    def batching(self) -> bool:
        """Whether searches are batched (the inner store has `search_many`)."""
        return self._batcher is not None

    @property
    def calls(self) -> int:
        """Batched calls made so far (benchmarks read it)."""
        return self._batcher.calls if self._batcher else 0

    @property
    def searches(self) -> int:
        """Searches answered by those calls."""
        return self._batcher.items if self._batcher else 0

    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]:
        if self._batcher is None:
            return self.inner.search(kb_id, vector, top_k, where)
        filter_json = "" if where is None else where.model_dump_json()
        key = SearchKey(kb_id, top_k, len(vector), filter_json, where)
        return self._batcher.call(key, vector)

    def search_many(
        self, kb_id: str, vectors: list[list[float]], top_k: int, where: Filter | None = None
    ) -> list[list[VectorHit]]:
        if isinstance(self.inner, BatchSearchStore):
            return self.inner.search_many(kb_id, vectors, top_k, where)
        return [self.inner.search(kb_id, vector, top_k, where) for vector in vectors]

    def _search_batch(self, key: SearchKey, vectors: list[list[float]]) -> list[list[VectorHit]]:
        assert isinstance(self.inner, BatchSearchStore)
        return self.inner.search_many(key.kb_id, vectors, key.top_k, key.where)

    # ── everything else goes straight to the inner store ───────────────────────────────
    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None:
        self.inner.create_collection(kb_id, dim, metric)

    def drop_collection(self, kb_id: str) -> None:
        self.inner.drop_collection(kb_id)

    def has_collection(self, kb_id: str) -> bool:
        return self.inner.has_collection(kb_id)

    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None:
        self.inner.upsert(kb_id, records)

    def delete(self, kb_id: str, where: Filter) -> None:
        self.inner.delete(kb_id, where)

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]:
        return self.inner.get_vectors(kb_id, chunk_ids)

    def count(self, kb_id: str, where: Filter | None = None) -> int:
        return self.inner.count(kb_id, where)

    def doc_ids(self, kb_id: str) -> set[str]:
        return self.inner.doc_ids(kb_id)

    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None:
        self.inner.upsert_titles(kb_id, records)

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None:
        self.inner.delete_titles(kb_id, doc_ids)

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        return self.inner.title_scores(kb_id, vector, doc_ids)

    def close(self) -> None:
        if self._batcher is not None:
            self._batcher.close()  # searches already waiting still run, then the store closes
            self._batcher.wait_quiet(time.monotonic() + CLOSE_WAIT_S)
        self.inner.close()
