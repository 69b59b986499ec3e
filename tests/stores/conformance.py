"""The vector-store conformance suite. Every backend runs it unchanged; only the `store`
fixture differs (haystack's document-store testing pattern)."""

from __future__ import annotations

import numpy as np
import pytest

from planrag.core.errors import EmbeddingMismatch
from planrag.stores.filters import And, Contains, Eq, In, Or, Range
from planrag.stores.vector import VectorRecord, VectorStore

DIM = 16


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    matrix = rng.normal(size=(n, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def records(vectors: np.ndarray) -> list[VectorRecord]:
    return [
        VectorRecord(
            chunk_id=f"doc{i % 4}:{i}",
            doc_id=f"doc{i % 4}",
            text=f'chunk {i} 한국어 텍스트 "quoted" 50% off_{i}',
            title=f"Title {i % 4}",
            author=["kim", "lee", "park", "o'brien"][i % 4],
            domain="news" if i % 2 else "blog",
            date=20240101 + i,
            vector=v.tolist(),
        )
        for i, v in enumerate(vectors)
    ]


class VectorStoreConformance:
    """Mixin: subclasses provide a `store` fixture returning an empty VectorStore."""

    @pytest.fixture
    def filled(self, store: VectorStore) -> tuple[VectorStore, np.ndarray]:
        vectors = unit(np.random.default_rng(7), 40)
        for metric in ("COSINE", "L2", "IP"):
            store.create_collection(f"kb-{metric}", DIM, metric)
            store.upsert(f"kb-{metric}", records(vectors))
        return store, vectors

    def test_is_a_vector_store(self, store: VectorStore) -> None:
        assert isinstance(store, VectorStore)

    def test_create_is_idempotent_and_drop_removes(self, store: VectorStore) -> None:
        store.create_collection("kb", DIM, "COSINE")
        store.create_collection("kb", DIM, "COSINE")
        assert store.has_collection("kb")
        store.drop_collection("kb")
        assert not store.has_collection("kb")
        store.drop_collection("kb")  # dropping twice is fine

    @pytest.mark.parametrize("metric", ["COSINE", "L2", "IP"])
    def test_scores_are_cosine_whatever_the_metric(self, filled, metric: str) -> None:
        store, vectors = filled
        query = vectors[3] * 0.8 + vectors[5] * 0.2
        query /= np.linalg.norm(query)
        hits = store.search(f"kb-{metric}", query.tolist(), 5)
        expected = np.clip(vectors @ query, 0, 1)
        best = np.argsort(-expected)[:5]
        assert [h.chunk_id for h in hits] == [f"doc{i % 4}:{i}" for i in best]
        assert [round(h.score, 4) for h in hits] == [round(float(expected[i]), 4) for i in best]
        assert hits[0].chunk_id == "doc3:3"

    def test_upsert_replaces_same_ids(self, filled) -> None:
        store, vectors = filled
        store.upsert("kb-COSINE", records(vectors)[:10])
        assert store.count("kb-COSINE") == 40

    def test_filters(self, filled) -> None:
        store, _ = filled
        kb = "kb-COSINE"
        assert store.count(kb, Eq(field="doc_id", value="doc1")) == 10
        assert store.count(kb, In(field="author", values=["kim", "o'brien"])) == 20
        assert store.count(kb, Range(field="date", gte=20240111, lte=20240120)) == 10
        assert store.count(kb, Range(field="date", gte=20240131)) == 10
        assert store.count(kb, Contains(field="text", value='"quoted" 50%')) == 40
        assert store.count(kb, Contains(field="text", value="off_1")) == 11  # 1, 10..19
        both = And(items=[Eq(field="domain", value="news"), Range(field="date", lte=20240110)])
        assert store.count(kb, both) == 5
        either = Or(items=[Eq(field="doc_id", value="doc0"), Eq(field="doc_id", value="doc1")])
        assert store.count(kb, either) == 20

    def test_search_with_filter_only_returns_matches(self, filled) -> None:
        store, vectors = filled
        where = Eq(field="author", value="o'brien")
        hits = store.search("kb-L2", vectors[0].tolist(), 5, where)
        assert len(hits) == 5
        assert {h.author for h in hits} == {"o'brien"}

    def test_injection_attempts_are_plain_values(self, filled) -> None:
        store, _ = filled
        for hostile in ['x" or doc_id != "', "x' or 1==1 or '", 'doc0"] or [""']:
            assert store.count("kb-COSINE", Eq(field="doc_id", value=hostile)) == 0
            assert store.count("kb-COSINE", In(field="doc_id", values=[hostile])) == 0

    def test_get_vectors_returns_the_stored_vectors(self, filled) -> None:
        store, vectors = filled
        got = store.get_vectors("kb-L2", ["doc1:1", "doc2:6", "missing"])
        assert set(got) == {"doc1:1", "doc2:6"}
        assert np.allclose(got["doc2:6"], vectors[6], atol=1e-6)

    def test_delete_by_filter(self, filled) -> None:
        store, _ = filled
        store.delete("kb-IP", Eq(field="doc_id", value="doc2"))
        assert store.count("kb-IP") == 30
        assert store.doc_ids("kb-IP") == {"doc0", "doc1", "doc3"}

    def test_wrong_dimension_is_refused(self, filled) -> None:
        store, _ = filled
        bad = VectorRecord(chunk_id="x", doc_id="x", text="x", vector=[0.1] * (DIM + 1))
        with pytest.raises(EmbeddingMismatch):
            store.upsert("kb-COSINE", [bad])
        with pytest.raises(EmbeddingMismatch):
            store.search("kb-COSINE", [0.1] * (DIM - 1), 3)
        assert store.count("kb-COSINE") == 40

    def test_long_text_and_fields_are_kept_within_limits(self, store: VectorStore) -> None:
        store.create_collection("kb", DIM, "COSINE")
        vector = unit(np.random.default_rng(1), 1)[0].tolist()
        text = "가" * 30000  # 90 000 UTF-8 bytes
        store.upsert(
            "kb",
            [VectorRecord(chunk_id="c", doc_id="d", text=text, title="제" * 2000, vector=vector)],
        )
        hit = store.search("kb", vector, 1)[0]
        assert hit.text and text.startswith(hit.text)
        assert hit.score == pytest.approx(1.0, abs=1e-5)
