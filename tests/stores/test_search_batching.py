"""The vector-search micro-batcher in front of the real Milvus Lite store: concurrent searches go
as one Milvus call and each caller gets its own hits, filters never mix, a failure reaches every
caller of the batch, and the wrapped store passes the conformance suite unchanged."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from planrag.core.errors import EmbeddingMismatch, StoreUnavailable
from planrag.core.filters import Eq, Filter, Range
from planrag.stores.milvus import MilvusStore
from planrag.stores.pgvector import PgVectorStore
from planrag.stores.search_batching import BatchingVectorStore
from planrag.stores.vector import VectorHit
from planrag.testing.vector_store import (
    DIM,
    VectorStoreConformance,
    assert_same_hits,
    records,
    unit,
)

LONG = 30.0  # a window no test waits out: batches here go when full


class SpyMilvusStore(MilvusStore):
    """The real Milvus Lite store, recording how many vectors each batched call carried."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.batches: list[int] = []
        self.fail = False
        self._spy_lock = threading.Lock()

    def search_many(
        self, kb_id: str, vectors: list[list[float]], top_k: int, where: Filter | None = None
    ) -> list[list[VectorHit]]:
        with self._spy_lock:
            self.batches.append(len(vectors))
        if self.fail:
            raise StoreUnavailable("Milvus search failed: the server went away")
        return super().search_many(kb_id, vectors, top_k, where)


@pytest.fixture
def spy(tmp_path: Path) -> Iterator[tuple[SpyMilvusStore, np.ndarray]]:
    store = SpyMilvusStore(str(tmp_path / "milvus.db"))
    vectors = unit(np.random.default_rng(21), 40)
    store.create_collection("kb", DIM, "COSINE")
    store.upsert("kb", records(vectors))
    yield store, vectors
    store.close()


def at_once(calls: list[Callable[[], object]]) -> list[object]:
    """Run the calls from as many threads, all released together; results (or errors) in
    order."""
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> object:
        start.wait()
        try:
            return call()
        except Exception as exc:  # returned, for the test to look at
            return exc

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def test_concurrent_searches_share_one_milvus_call(spy) -> None:
    store, vectors = spy
    batching = BatchingVectorStore(store, window_s=LONG, max_batch=12)
    queries = [vectors[i].tolist() for i in range(12)]
    found = at_once([lambda q=q: batching.search("kb", q, 5) for q in queries])
    assert store.batches == [12]  # twelve searches, one call of the store
    assert (batching.calls, batching.searches) == (1, 12)
    for hits, query in zip(found, queries, strict=True):  # each caller got its own hits
        assert_same_hits(hits, store.search("kb", query, 5))  # type: ignore[arg-type]
    assert [hits[0].chunk_id for hits in found] == [f"doc{i % 4}:{i}" for i in range(12)]


def test_each_caller_keeps_its_own_filter(spy) -> None:
    store, vectors = spy
    batching = BatchingVectorStore(store, window_s=LONG, max_batch=4)
    filters: list[Filter | None] = [
        None,
        Eq(field="author", value="kim"),
        Range(field="date", gte=20240111, lte=20240120),
    ]
    jobs = [(where, vectors[i].tolist()) for where in filters for i in range(4)]
    found = at_once([lambda w=w, q=q: batching.search("kb", q, 3, w) for w, q in jobs])
    assert sorted(store.batches) == [4, 4, 4]  # one call per filter, never mixed
    for (where, query), hits in zip(jobs, found, strict=True):
        assert_same_hits(hits, store.search("kb", query, 3, where))  # type: ignore[arg-type]
    for hits in found[4:8]:
        assert {h.author for h in hits} == {"kim"}
    for hits in found[8:]:
        assert all(20240111 <= h.date <= 20240120 for h in hits)


def test_a_failed_call_reaches_every_waiter(spy) -> None:
    store, vectors = spy
    batching = BatchingVectorStore(store, window_s=LONG, max_batch=6)
    calls = [lambda i=i: batching.search("kb", vectors[i].tolist(), 1) for i in range(6)]
    store.fail = True
    found = at_once(calls)
    assert store.batches == [6]
    assert all(isinstance(result, StoreUnavailable) for result in found)
    store.fail = False
    found = at_once(calls)  # the batcher goes on working
    assert [hits[0].chunk_id for hits in found] == [f"doc{i % 4}:{i}" for i in range(6)]


def test_a_wrong_dimension_fails_only_its_caller(spy) -> None:
    store, vectors = spy
    batching = BatchingVectorStore(store, window_s=0.2, max_batch=4)
    calls = [lambda i=i: batching.search("kb", vectors[i].tolist(), 2) for i in range(4)]
    calls.append(lambda: batching.search("kb", [0.1] * (DIM + 1), 2))
    found = at_once(calls)
    assert isinstance(found[4], EmbeddingMismatch)
    assert [hits[0].chunk_id for hits in found[:4]] == ["doc0:0", "doc1:1", "doc2:2", "doc3:3"]


def test_search_many_equals_one_search_per_vector(spy) -> None:
    store, vectors = spy
    queries = [vectors[i].tolist() for i in (0, 5, 9)]
    where = Eq(field="domain", value="news")
    for hits, query in zip(store.search_many("kb", queries, 4, where), queries, strict=True):
        assert_same_hits(hits, store.search("kb", query, 4, where))
    assert store.search_many("kb", [], 4) == []


def test_a_store_without_search_many_is_searched_directly(pg_database: str) -> None:
    """pgvector answers each vector with its own SQL query over a connection pool: the wrapper
    passes searches straight through."""
    pgvector = PgVectorStore(pg_database)
    batching = BatchingVectorStore(pgvector, window_s=LONG)
    try:
        vectors = unit(np.random.default_rng(4), 12)
        batching.create_collection("kb", DIM, "COSINE")
        batching.upsert("kb", records(vectors))
        assert not batching.batching
        assert batching.search("kb", vectors[3].tolist(), 2)[0].chunk_id == "doc3:3"
        assert batching.calls == 0
        batching.drop_collection("kb")
    finally:
        batching.close()


class TestBatchingMilvusStore(VectorStoreConformance):
    """The conformance suite, unchanged, against Milvus Lite behind the batcher."""

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[BatchingVectorStore]:
        batching = BatchingVectorStore(MilvusStore(str(tmp_path / "milvus.db")))
        yield batching
        batching.close()

    @pytest.fixture
    def settle(self, tmp_path: Path) -> Iterator[Callable[[BatchingVectorStore], object]]:
        path, reopened = str(tmp_path / "milvus.db"), []

        def restart(store: BatchingVectorStore) -> BatchingVectorStore:
            store.close()  # the last store on the path: its Milvus Lite server stops
            reopened.append(BatchingVectorStore(MilvusStore(path)))
            return reopened[-1]

        yield restart
        for store in reopened:
            store.close()
