"""Searches never calibrate (indexing does, and `refresh` on demand), and a document being
indexed is invisible to every index until it is searchable in all of them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from planrag.executors import fusion
from planrag.executors.fusion import MIN_CHUNKS, FusionCalibrator
from planrag.runtime import Runtime
from planrag.services.document_indexer import DocumentIndexer
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest
from planrag.stores.bm25 import LexicalIndex

TOPICS = [
    "The museum is closed on Mondays and opens at nine on every other day of the week.",
    "Bike rental costs one thousand won per hour and the first ten minutes are free of charge.",
    "Employees must submit their receipts within thirty days of the purchase to be refunded.",
    "Economy class is required for flights under six hours unless a manager approves it.",
    "Hotel stays are capped at two hundred dollars per night in every city of the country.",
    "The library lends up to ten books for three weeks and renews them online once.",
    "Parking permits are issued to residents who show a lease and a registered car.",
    "The swimming pool is heated in winter and the lanes are reserved for clubs at night.",
    "Garbage is collected on Tuesdays and recycling on Fridays before seven in the morning.",
    "The clinic takes appointments by phone and keeps two slots a day for emergencies.",
]


def index(runtime: Runtime, kb_id: str, texts: list[str], prefix: str) -> list[str]:
    ids = []
    for i, text in enumerate(texts):
        item = UploadItem(filename=f"{prefix}{i}.txt", data=f"{text} ({prefix}{i})".encode())
        ids.append(runtime.ingestion.upload(kb_id, [item], background=False)[0].id)
    runtime.ingestion.index_many(ids)
    return ids


def test_searches_never_calibrate(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="calibrated"))
    index(runtime, kb.id, TOPICS, "a")
    calibration = runtime.metadata.get_kb(kb.id).calibration
    assert calibration is not None and calibration.chunk_count >= MIN_CHUNKS  # by indexing

    measured: list[str] = []
    measure = FusionCalibrator._measure

    def counting(self, kb, embedder, size):  # type: ignore[no-untyped-def]
        measured.append(kb.id)
        return measure(self, kb, embedder, size)

    monkeypatch.setattr(FusionCalibrator, "_measure", counting)
    # The KB "grew" far beyond twice its calibrated size: still no search calibrates.
    stale = calibration.model_copy(update={"chunk_count": 2})
    runtime.metadata.update_kb(kb.id, {"calibration": stale.model_dump(mode="json")})
    request = RetrieveRequest(query="museum closed on Mondays", strategy="hybrid", top_k=3)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: runtime.retrieval.retrieve(kb.id, request), range(12)))
    assert measured == []
    reasons = {hits[0].metadata.fusion.reason for hits in results}  # type: ignore[union-attr]
    assert len(reasons) == 1  # every concurrent search used the stored weights

    runtime.calibrator.refresh(kb.id)  # on demand: stale, so measured once
    assert measured == [kb.id]
    assert runtime.metadata.get_kb(kb.id).calibration.chunk_count == len(TOPICS)  # type: ignore[union-attr]
    index(runtime, kb.id, TOPICS[:1], "b")  # grew by 10 %: indexing keeps the calibration
    assert measured == [kb.id]


def test_indexing_documents_one_by_one_never_builds_the_keyword_index(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calibrating after each document counts the KB's chunks in the metadata DB: building the
    BM25 index there made every document cost O(KB size) (a worker indexing 2,000 one-chunk
    documents rebuilt the index 2,000 times). Only a search builds it, once."""
    builds: list[int] = []
    build = LexicalIndex.build

    def counting(rows):  # type: ignore[no-untyped-def]
        builds.append(len(rows))
        return build(rows)

    monkeypatch.setattr(LexicalIndex, "build", staticmethod(counting))
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="one-by-one"))
    for i, text in enumerate(TOPICS):
        index(runtime, kb.id, [text], f"d{i}-")
    assert builds == []
    calibration = runtime.metadata.get_kb(kb.id).calibration
    # measured at 1, 2, 4 and 8 chunks (each doubling; legs weighed from MIN_CHUNKS on)
    assert calibration is not None and calibration.chunk_count == 8 >= MIN_CHUNKS
    assert runtime.metadata.searchable_chunk_count(kb.id) == len(TOPICS)
    request = RetrieveRequest(query="museum closed on Mondays", strategy="hybrid", top_k=3)
    assert runtime.retrieval.retrieve(kb.id, request)
    assert builds == [len(TOPICS)]


def test_a_document_being_indexed_is_in_no_index(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="visible"))
    index(runtime, kb.id, TOPICS[:3], "a")
    query = "swimming pool heated in winter lanes reserved for clubs"
    seen_while_indexing: dict[str, list[str]] = {}
    complete = DocumentIndexer._complete

    def search_then_complete(self, item):  # type: ignore[no-untyped-def]
        # The document's vectors are written; its status is still `processing`.
        for strategy in ("ann", "bm25", "hybrid", "keyword"):
            request = RetrieveRequest(query=query, strategy=strategy, top_k=10)
            hits = runtime.retrieval.retrieve(kb.id, request)
            seen_while_indexing[strategy] = [h.doc_id for h in hits if h.doc_id == item.doc.id]
        return complete(self, item)

    monkeypatch.setattr(DocumentIndexer, "_complete", search_then_complete)
    new = index(runtime, kb.id, [TOPICS[7]], "b")[0]
    assert runtime.vectors.count(kb.id) == 4  # its vectors existed during the searches
    assert seen_while_indexing == {s: [] for s in ("ann", "bm25", "hybrid", "keyword")}
    for strategy in ("ann", "bm25", "hybrid", "keyword"):
        request = RetrieveRequest(query=query, strategy=strategy, top_k=10)
        assert new in {h.doc_id for h in runtime.retrieval.retrieve(kb.id, request)}, strategy


def test_the_same_documents_give_the_same_calibration(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The calibration samples chunks by content, not by their (random) ids: two ingestions of
    the same documents, in another order, weigh the legs identically."""
    monkeypatch.setattr(fusion, "SAMPLES_PER_SCRIPT", 5)  # a sample smaller than the KB
    texts = TOPICS + [f"{a} {b}" for a, b in zip(TOPICS, reversed(TOPICS), strict=True)]
    calibrations = []
    for name, order in (("first", texts), ("second", list(reversed(texts)))):
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name))
        for text in order:  # one document each, named by content: the same files both times
            index(runtime, kb.id, [text], f"t{texts.index(text)}-")
        runtime.calibrator.refresh(kb.id, force=True)
        calibration = runtime.metadata.get_kb(kb.id).calibration
        assert calibration is not None and calibration.scripts
        calibrations.append(calibration.model_dump(exclude={"calibrated_at"}))
    assert calibrations[0] == calibrations[1]
