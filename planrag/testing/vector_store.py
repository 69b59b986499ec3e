"""The vector-store conformance suite. Every backend runs it unchanged; only the `store`
fixture differs (haystack's document-store testing pattern)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from planrag.core.errors import EmbeddingMismatch
from planrag.core.filters import And, Contains, Eq, In, Or, Range
from planrag.stores.vector import (
    TitleRecord,
    VectorHit,
    VectorRecord,
    VectorStore,
    title_weighted_search,
)

DIM = 16
LARGE = 3000


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


def assert_same_hits(got: list[VectorHit], expected: list[VectorHit]) -> None:
    """The same chunks in the same order with the same scores, up to float32 rounding (an
    engine computing several queries at once may round differently than for one)."""
    assert [h.chunk_id for h in got] == [h.chunk_id for h in expected]
    assert [h.score for h in got] == pytest.approx([h.score for h in expected], abs=1e-5)
    strip = {"score", "distance"}
    assert [h.model_dump(exclude=strip) for h in got] == [
        h.model_dump(exclude=strip) for h in expected
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

    def test_ranges_match_dated_chunks_only(self, store: VectorStore) -> None:
        """An undated chunk (date 0) is in no range, an open-start one ("before X") included."""
        store.create_collection("kb", DIM, "COSINE")
        vectors = unit(np.random.default_rng(3), 4)
        dates = [0, 20240101, 20240310, 0]
        store.upsert(
            "kb",
            [
                VectorRecord(chunk_id=f"d{i}:0", doc_id=f"d{i}", text="t", date=d, vector=v)
                for i, (d, v) in enumerate(zip(dates, vectors.tolist(), strict=True))
            ],
        )
        before = Range(field="date", lte=20240311)
        assert store.count("kb", before) == 2
        hits = store.search("kb", vectors[0].tolist(), 4, before)
        assert {h.doc_id for h in hits} == {"d1", "d2"}
        assert store.count("kb", Range(field="date", gte=20240102)) == 1
        assert store.count("kb", Range(field="date", gte=0, lte=20240101)) == 1
        assert store.count("kb", Or(items=[before, Eq(field="doc_id", value="d3")])) == 3

    def test_search_with_filter_only_returns_matches(self, filled) -> None:
        store, vectors = filled
        where = Eq(field="author", value="o'brien")
        hits = store.search("kb-L2", vectors[0].tolist(), 5, where)
        assert len(hits) == 5
        assert {h.author for h in hits} == {"o'brien"}

    def test_concurrent_searches_match_sequential_ones(self, filled) -> None:
        """Searches from many threads at once (as concurrent requests make them) each get the
        hits they would get alone, filters included."""
        store, vectors = filled
        where = Eq(field="domain", value="news")
        jobs = [
            (f"kb-{metric}", vectors[i].tolist(), w)
            for metric in ("COSINE", "L2")
            for i in range(6)
            for w in (None, where)
        ]
        expected = [store.search(kb, query, 5, w) for kb, query, w in jobs]
        with ThreadPoolExecutor(max_workers=8) as pool:
            found = list(pool.map(lambda job: store.search(job[0], job[1], 5, job[2]), jobs))
        for got, alone in zip(found, expected, strict=True):
            assert_same_hits(got, alone)

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

    # ── title vectors (spec 002's title weighting) ──────────────────────────────────────
    @pytest.fixture
    def titled(self, store: VectorStore) -> tuple[VectorStore, np.ndarray, dict[str, np.ndarray]]:
        rng = np.random.default_rng(11)
        vectors = unit(rng, 40)
        store.create_collection("kb-titles", DIM, "COSINE")
        store.upsert("kb-titles", records(vectors))
        titles = dict(zip(["doc0", "doc1", "doc2"], unit(rng, 3), strict=True))  # doc3: none
        store.upsert_titles(
            "kb-titles", [TitleRecord(doc_id=d, vector=v.tolist()) for d, v in titles.items()]
        )
        return store, vectors, titles

    def test_title_scores_are_cosines_and_absent_without_a_title(self, titled) -> None:
        store, vectors, titles = titled
        query = vectors[5]
        got = store.title_scores("kb-titles", query.tolist(), ["doc0", "doc1", "doc3", "nope"])
        assert set(got) == {"doc0", "doc1"}
        for doc_id in got:
            expected = float(np.clip(titles[doc_id] @ query, 0, 1))
            assert got[doc_id] == pytest.approx(expected, abs=1e-4)
        assert store.title_scores("kb-titles", query.tolist(), []) == {}

    def test_title_weighting_reorders_by_the_weighted_score(self, titled) -> None:
        store, vectors, titles = titled
        query = titles["doc2"] * 0.7 + vectors[0] * 0.3  # a title-like question
        query /= np.linalg.norm(query)
        weight = 0.6
        chunk = np.clip(vectors @ query, 0, 1)
        expected = {}
        for i in range(len(vectors)):
            title = titles.get(f"doc{i % 4}")
            score = float(chunk[i])
            if title is not None:  # doc3 has no title: its pure chunk score
                score = (1 - weight) * score + weight * float(np.clip(title @ query, 0, 1))
            expected[f"doc{i % 4}:{i}"] = score
        best = sorted(expected, key=lambda c: expected[c], reverse=True)[:5]
        hits = title_weighted_search(store, "kb-titles", query.tolist(), 5, None, weight)
        assert [h.chunk_id for h in hits] == best
        assert [h.score for h in hits] == pytest.approx([expected[c] for c in best], abs=1e-4)
        assert all(h.title_score is not None for h in hits if h.doc_id != "doc3")
        plain = title_weighted_search(store, "kb-titles", query.tolist(), 5, None, 0.0)
        assert plain == store.search("kb-titles", query.tolist(), 5)
        assert [h.chunk_id for h in plain] != best  # the title moved doc2's chunks up

    def test_title_weighting_respects_filters(self, titled) -> None:
        store, vectors, _ = titled
        where = Eq(field="author", value="kim")  # doc0's chunks only
        hits = title_weighted_search(store, "kb-titles", vectors[1].tolist(), 3, where, 0.5)
        assert len(hits) == 3 and {h.doc_id for h in hits} == {"doc0"}

    def test_titles_are_deleted_with_their_document_and_the_collection(self, titled) -> None:
        store, vectors, _ = titled
        query = vectors[0].tolist()
        store.delete_titles("kb-titles", ["doc0", "never-there"])
        assert set(store.title_scores("kb-titles", query, ["doc0", "doc1"])) == {"doc1"}
        store.drop_collection("kb-titles")
        store.create_collection("kb-titles", DIM, "COSINE")
        assert store.title_scores("kb-titles", query, ["doc1", "doc2"]) == {}

    def test_a_kb_without_title_vectors_keeps_pure_chunk_scores(self, filled) -> None:
        store, vectors = filled
        query = vectors[3].tolist()
        assert store.title_scores("kb-COSINE", query, ["doc0", "doc1"]) == {}
        store.delete_titles("kb-COSINE", ["doc0"])  # nothing to delete: fine
        weighted = title_weighted_search(store, "kb-COSINE", query, 5, None, 0.5)
        assert weighted == store.search("kb-COSINE", query, 5)

    def test_wrong_title_dimension_is_refused(self, titled) -> None:
        store, _, _ = titled
        with pytest.raises(EmbeddingMismatch):
            store.upsert_titles("kb-titles", [TitleRecord(doc_id="doc3", vector=[0.1] * 3)])

    # ── selective filters still fill top_k ──────────────────────────────────────────────
    @pytest.fixture
    def settle(self) -> Callable[[VectorStore], VectorStore]:
        """What a backend goes through between writing and serving (Milvus Lite: a restart,
        which turns its brute-force memtable into an indexed segment). Default: nothing."""
        return lambda store: store

    @pytest.fixture
    def large(self, store: VectorStore, settle) -> tuple[VectorStore, np.ndarray]:
        vectors = unit(np.random.default_rng(5), LARGE)
        rows = [
            VectorRecord(
                chunk_id=f"c{i}",
                doc_id=f"d{i % 300}",
                text=f"chunk {i}",
                author="rare" if i % 200 == 7 else "common",
                date=20240101 + i % 28,
                vector=v.tolist(),
            )
            for i, v in enumerate(vectors)
        ]
        store.create_collection("kb-large", DIM, "COSINE")
        for start in range(0, len(rows), 1000):
            store.upsert("kb-large", rows[start : start + 1000])
        return settle(store), vectors

    @pytest.mark.parametrize(
        ("where", "matching"),
        [
            (Eq(field="author", value="rare"), lambda i: i % 200 == 7),  # 0.5 %
            (In(field="doc_id", values=["d1", "d2", "d3"]), lambda i: i % 300 in (1, 2, 3)),
            (Range(field="date", gte=20240103, lte=20240104), lambda i: i % 28 in (2, 3)),
        ],
    )
    def test_selective_filter_returns_top_k(self, large, where, matching) -> None:
        store, vectors = large
        query = vectors[42]
        hits = store.search("kb-large", query.tolist(), 10, where)
        assert len(hits) == 10
        allowed = [i for i in range(LARGE) if matching(i)]
        assert {h.chunk_id for h in hits} <= {f"c{i}" for i in allowed}
        exact = sorted(allowed, key=lambda i: float(vectors[i] @ query), reverse=True)[:10]
        found = {h.chunk_id for h in hits}
        assert len(found & {f"c{i}" for i in exact}) >= 8  # approximate search, near exact
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
