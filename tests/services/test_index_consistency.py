"""Deletion is a recorded state finished at start-up; start-up re-indexes completed documents
whose indexes disagree; re-uploading a damaged document repairs it (issue 10, item 6)."""

from __future__ import annotations

import pytest

from planrag.core.filters import Eq
from planrag.core.types import DocumentMetadata, DocumentStatus
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest

TEXT = " ".join(f"Sentence {i} about the warehouse of region {i % 5}." for i in range(120))


class Killed(BaseException):
    """Stands for the process dying at that point (nothing after it runs)."""


def indexed(runtime: Runtime, name: str, data: bytes = TEXT.encode()) -> tuple[str, str]:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=name))
    doc = runtime.ingestion.upload(kb.id, [UploadItem(filename="a.txt", data=data)])[0]
    runtime.ingestion.wait(timeout=120)
    assert runtime.metadata.get_document(doc.id).status == DocumentStatus.completed
    return kb.id, doc.id


def agree(runtime: Runtime, kb_id: str) -> bool:
    return not runtime.ingestion.checker.broken(runtime.metadata.get_kb(kb_id))


def searchable(runtime: Runtime, kb_id: str, strategy: str) -> set[str]:
    request = RetrieveRequest(query="warehouse region", strategy=strategy, top_k=5)
    return {hit.doc_id for hit in runtime.retrieval.retrieve(kb_id, request)}


def test_an_interrupted_deletion_is_finished_at_start_up(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb_id, doc_id = indexed(runtime, "deleting")

    def die(_doc_id: str) -> None:  # killed after the indexes went, before the row did
        raise Killed

    monkeypatch.setattr(runtime.metadata, "delete_document", die)
    with pytest.raises(Killed):
        runtime.ingestion.delete(kb_id, doc_id)
    monkeypatch.undo()
    assert runtime.metadata.get_document(doc_id).status == DocumentStatus.deleting
    assert doc_id not in searchable(runtime, kb_id, "bm25")

    runtime.ingestion.recover()

    assert runtime.metadata.list_documents(kb_id) == []
    assert runtime.vectors.count(kb_id) == 0
    assert searchable(runtime, kb_id, "bm25") == set()


def test_start_up_reindexes_completed_documents_whose_indexes_disagree(runtime: Runtime) -> None:
    kb_id, lost_vectors = indexed(runtime, "disagree")
    lost_chunks = runtime.ingestion.upload(
        kb_id, [UploadItem(filename="b.txt", data=(TEXT + " more").encode())]
    )[0].id
    runtime.ingestion.wait(timeout=120)
    # What an old, unrecorded deletion killed half-way left: vectors gone from one document,
    # chunk rows (and so BM25 terms) from another; both still `completed`.
    runtime.vectors.delete(kb_id, Eq(field="doc_id", value=lost_vectors))
    runtime.metadata.delete_chunks(lost_chunks)
    broken = {
        found.doc_id for found in runtime.ingestion.checker.broken(runtime.metadata.get_kb(kb_id))
    }
    assert broken == {lost_vectors, lost_chunks}

    resumed = runtime.ingestion.recover()
    runtime.ingestion.wait(timeout=120)

    assert set(resumed) >= {lost_vectors, lost_chunks}
    assert agree(runtime, kb_id)
    for doc_id in (lost_vectors, lost_chunks):
        doc = runtime.metadata.get_document(doc_id)
        assert doc.status == DocumentStatus.completed
        assert runtime.vectors.count(kb_id, Eq(field="doc_id", value=doc_id)) == doc.chunk_count
    assert searchable(runtime, kb_id, "ann") == {lost_vectors, lost_chunks}
    assert searchable(runtime, kb_id, "bm25") == {lost_vectors, lost_chunks}


def test_reupload_of_a_damaged_document_repairs_it(runtime: Runtime) -> None:
    kb_id, doc_id = indexed(runtime, "reupload")
    runtime.vectors.delete(kb_id, Eq(field="doc_id", value=doc_id))
    assert not agree(runtime, kb_id)

    again = runtime.ingestion.upload(kb_id, [UploadItem(filename="a.txt", data=TEXT.encode())])
    runtime.ingestion.wait(timeout=120)

    assert again[0].id == doc_id and again[0].status == DocumentStatus.pending
    assert agree(runtime, kb_id)
    assert searchable(runtime, kb_id, "ann") == {doc_id}
    # An intact document re-uploaded is left alone.
    same = runtime.ingestion.upload(kb_id, [UploadItem(filename="a.txt", data=TEXT.encode())])
    assert same[0].duplicate and same[0].status == DocumentStatus.completed


def test_reinsert_of_a_damaged_stable_id_document_repairs_it(runtime: Runtime) -> None:
    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="stable"))
    item = UploadItem(filename="20240315-news", data=TEXT.encode())
    meta = DocumentMetadata(title="news")
    doc = runtime.ingestion.put(kb.id, "doc-1", item, "txt", meta)
    runtime.ingestion.wait(timeout=120)
    runtime.metadata.delete_chunks(doc.id)
    assert not agree(runtime, kb.id)

    again = runtime.ingestion.put(kb.id, "doc-1", item, "txt", meta)
    runtime.ingestion.wait(timeout=120)

    assert not again.duplicate
    assert agree(runtime, kb.id)
    assert searchable(runtime, kb.id, "bm25") == {"doc-1"}
