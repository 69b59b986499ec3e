"""Ingestion service: live status, recovery of interrupted work, orphan sweep, encodings."""

from __future__ import annotations

from planrag.core.errors import StoreUnavailable
from planrag.core.filters import Eq
from planrag.core.types import Chunk, DocumentMetadata, DocumentStatus
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest, ScoreWeights
from planrag.stores.vector import VectorRecord

TEXT = " ".join(f"Sentence {i} about the quarterly budget of team {i % 7}." for i in range(400))


def test_status_moves_pending_processing_completed(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="t.txt", data=TEXT.encode())], background=False
    )[0]
    assert doc.status == DocumentStatus.pending
    seen: list[tuple[DocumentStatus, int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((runtime.metadata.get_document(doc.id).status, done, total))

    final = runtime.ingestion.index(doc.id, progress)
    assert final.status == DocumentStatus.completed
    assert seen and {s for s, _, _ in seen} == {DocumentStatus.processing}
    assert seen[-1][1] == seen[-1][2] == final.chunk_count


def test_recover_resumes_interrupted_documents_without_leftovers(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    docs = runtime.ingestion.upload(
        kb.id,
        [UploadItem(filename="a.txt", data=TEXT.encode()), UploadItem(filename="b.txt", data=b"b")],
        background=False,
    )
    # As a crash would leave it: `a` half written (stale chunk rows and vectors), `b` queued.
    runtime.metadata.set_status(docs[0].id, DocumentStatus.processing)
    stale_chunk = Chunk(id=f"{docs[0].id}:999", doc_id=docs[0].id, position=999, text="stale")
    runtime.metadata.replace_chunks(docs[0].id, [stale_chunk])
    stale = VectorRecord(
        chunk_id=f"{docs[0].id}:999",
        doc_id=docs[0].id,
        text="stale",
        vector=runtime.embedders.get().embed(["stale"])[0],
    )
    runtime.vectors.upsert(kb.id, [stale])
    # and vectors of a document whose row is gone (a crash during a delete).
    runtime.vectors.upsert(kb.id, [stale.model_copy(update={"doc_id": "gone", "chunk_id": "g:0"})])

    resumed = runtime.ingestion.recover()
    runtime.ingestion.wait(timeout=120)

    assert sorted(resumed) == sorted(d.id for d in docs)
    for doc in docs:
        current = runtime.metadata.get_document(doc.id)
        assert current.status == DocumentStatus.completed
        assert runtime.vectors.count(kb.id, Eq(field="doc_id", value=doc.id)) == current.chunk_count
    assert runtime.vectors.count(kb.id, Eq(field="chunk_id", value=stale.chunk_id)) == 0
    assert runtime.vectors.doc_ids(kb.id) == {d.id for d in docs}


def test_failed_document_is_retried_on_reupload(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    item = UploadItem(filename="a.txt", data=b"retry me")
    doc = runtime.ingestion.upload(kb.id, [item], background=False)[0]
    runtime.metadata.set_status(doc.id, DocumentStatus.error, error="embedding service down")
    again = runtime.ingestion.upload(kb.id, [item], background=False)[0]
    assert again.id == doc.id and again.duplicate and again.status == DocumentStatus.pending
    assert runtime.ingestion.index(doc.id).status == DocumentStatus.completed


def test_korean_legacy_encodings_are_searchable(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    text = "회의록: 다음 주 월요일에 예산 검토 회의가 있습니다."
    docs = runtime.ingestion.upload(
        kb.id,
        [
            UploadItem(filename="cp949.txt", data=text.encode("cp949")),
            UploadItem(filename="euckr.txt", data=("공지: " + text).encode("euc-kr")),
        ],
        background=False,
    )
    for doc in docs:
        assert runtime.ingestion.index(doc.id).status == DocumentStatus.completed
    contents = {h.content for h in runtime.retrieval.retrieve(kb.id, RetrieveRequest(query=text))}
    assert contents == {text, "공지: " + text}


def test_document_deleted_while_queued_leaves_nothing(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="a.txt", data=TEXT.encode())], background=False
    )[0]
    runtime.ingestion.delete(kb.id, doc.id)
    future = runtime.ingestion.submit(doc.id)
    assert future.exception(timeout=60) is not None
    assert runtime.vectors.count(kb.id) == 0
    assert runtime.metadata.list_chunks(doc.id) == []


def test_title_vectors_are_built_by_the_first_query_that_weighs_titles(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    doc = runtime.ingestion.upload(
        kb.id,
        [UploadItem(filename="t.txt", data=TEXT.encode())],
        DocumentMetadata(title="Refund policy"),
        background=False,
    )[0]
    runtime.ingestion.index(doc.id)
    probe = runtime.embedders.get().embed(["refund"])[0]
    assert runtime.vectors.title_scores(kb.id, probe, [doc.id]) == {}  # ingestion skips titles
    plain = runtime.retrieval.retrieve(kb.id, RetrieveRequest(query="refund", top_k=1))
    assert plain[0].metadata.title_score is None
    assert runtime.vectors.title_scores(kb.id, probe, [doc.id]) == {}
    weighted = runtime.retrieval.retrieve(
        kb.id,
        RetrieveRequest(query="refund", top_k=1, weights=ScoreWeights(chunk=0.5, title=0.5)),
    )
    assert weighted[0].metadata.title_score is not None
    assert set(runtime.vectors.title_scores(kb.id, probe, [doc.id])) == {doc.id}


def test_stores_closing_under_a_write_at_shutdown_leave_the_document_to_resume(
    runtime: Runtime, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Shutdown closes the stores while a document is being written: that is the shutdown, not
    a bad document — it stays `processing` (start-up indexes it again), never `error`."""
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="kb"))
    doc = runtime.ingestion.upload(
        kb.id, [UploadItem(filename="t.txt", data=TEXT.encode())], background=False
    )[0]

    def closing(*args: object, **kwargs: object) -> None:
        runtime.ingestion._closed = True  # the runtime is closing: ingestion first, then stores
        raise StoreUnavailable("the vector stores are closed (shutting down)")

    monkeypatch.setattr(runtime.ingestion.indexer, "_write", closing)
    runtime.ingestion.index(doc.id)
    assert runtime.metadata.get_document(doc.id).status == DocumentStatus.processing
    monkeypatch.undo()
    runtime.ingestion._closed = False
    assert runtime.ingestion.index(doc.id).status == DocumentStatus.completed  # as start-up does
