"""Do a knowledge base's indexes agree about its completed documents?

A `completed` document has `chunk_count` searchable chunks; each of them must have a row in the
metadata DB, lexical tokens there (what the BM25 index is built from) and one vector. A crash
between two of those writes — or deletes — used to leave documents that keyword search finds
and vector search does not. Start-up checks every completed document with this and re-indexes
the ones whose indexes disagree; a re-upload of such a document repairs it the same way.

Graph knowledge bases: a document may rightly have no graph (nothing extracted, or extraction
skipped), so a missing graph is not a disagreement; a graph of a document that is not
completed is (it is removed with the rest when the document is re-indexed or deleted, and
swept at start-up when the document is gone). `graph_docs` is the hook: once the graph stores
record which documents were extracted, compare them here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pydantic import BaseModel

from planrag.core.filters import Eq, In
from planrag.core.types import Document, DocumentStatus, KnowledgeBase
from planrag.stores.metadata import MetadataStore
from planrag.stores.vector import VectorStore

log = logging.getLogger(__name__)

ID_BATCH = 1000
FEW = 20  # this many documents or fewer are counted one by one
GraphDocs = Callable[[KnowledgeBase], set[str] | None]


class DocumentIndexes(BaseModel):
    """What each index holds of one document."""

    doc_id: str
    chunk_count: int  # recorded on the document when it completed
    chunks: int  # searchable chunk rows in the metadata DB
    terms: int  # of those, rows with BM25 tokens
    vectors: int
    in_graph: bool | None = None  # None: the KB has no graph

    @property
    def agree(self) -> bool:
        return self.chunk_count == self.chunks == self.terms == self.vectors > 0


class IndexChecker:
    def __init__(
        self, metadata: MetadataStore, vectors: VectorStore, graph_docs: GraphDocs | None = None
    ) -> None:
        self._metadata = metadata
        self._vectors = vectors
        self._graph_docs = graph_docs

    def audit(self, kb: KnowledgeBase, docs: list[Document]) -> list[DocumentIndexes]:
        """The indexes of the given documents of one knowledge base."""
        if not docs:
            return []
        few = len(docs) <= FEW
        counts = self._metadata.chunk_counts(kb.id, [d.id for d in docs] if few else None)
        vectors = self._vector_counts(kb, docs)
        graph = self._graph_docs(kb) if self._graph_docs is not None else None
        return [
            DocumentIndexes(
                doc_id=doc.id,
                chunk_count=doc.chunk_count,
                chunks=counts.get(doc.id, (0, 0))[0],
                terms=counts.get(doc.id, (0, 0))[1],
                vectors=vectors.get(doc.id, 0),
                in_graph=None if graph is None else doc.id in graph,
            )
            for doc in docs
        ]

    def broken(
        self, kb: KnowledgeBase, docs: list[Document] | None = None
    ) -> list[DocumentIndexes]:
        """The completed documents (of `docs`, default every one of the KB) whose indexes
        disagree."""
        if docs is None:
            docs = self._metadata.list_documents(kb.id, [DocumentStatus.completed])
        docs = [d for d in docs if d.status == DocumentStatus.completed]
        return [found for found in self.audit(kb, docs) if not found.agree]

    def _vector_counts(self, kb: KnowledgeBase, docs: list[Document]) -> dict[str, int]:
        """Vectors per document. One pass when the totals add up (the usual case); one count
        per document only when they do not, to find which."""
        if not self._vectors.has_collection(kb.id):
            return {}
        if len(docs) <= FEW:
            return {d.id: self._count(kb, d.id) for d in docs}
        present = self._vectors.doc_ids(kb.id)
        ids = [d.id for d in docs]
        total = sum(
            self._vectors.count(kb.id, In(field="doc_id", values=ids[i : i + ID_BATCH]))
            for i in range(0, len(ids), ID_BATCH)
        )
        if total == sum(d.chunk_count for d in docs) and all(d.id in present for d in docs):
            return {d.id: d.chunk_count for d in docs}
        return {d.id: self._count(kb, d.id) if d.id in present else 0 for d in docs}

    def _count(self, kb: KnowledgeBase, doc_id: str) -> int:
        return self._vectors.count(kb.id, Eq(field="doc_id", value=doc_id))
