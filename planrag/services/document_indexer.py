"""Indexing documents: parse, chunk, tokenise, extract the graph, embed and write every index.

Indexing a document is idempotent: it first removes whatever an earlier, interrupted attempt
left (chunks, vectors, graph), so running it again repairs a crash at any point. A bad document
fails alone (`error` with a reason); a shutdown leaves it `processing` for start-up to resume.
`IngestionService` (uploads, the queue, recovery, deletion) drives it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from planrag.core import telemetry
from planrag.core.child_process import LowPriorityProcess, ShuttingDown
from planrag.core.errors import NotFound, ParseError, PlanragError, StoreUnavailable
from planrag.core.filters import Eq, In
from planrag.core.messages import Message, error_message, message
from planrag.core.types import Chunk, ChunkKind, Document, DocumentStatus
from planrag.ingest.chunkers import chunk_document
from planrag.ingest.inflation import ReadLimits, check_chunks
from planrag.ingest.parsers import parse_document
from planrag.llm.embed_process import offload
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.services.graph_indexing import GraphIndexer
from planrag.services.kb_locks import KbLocks
from planrag.stores.bm25 import BM25Store
from planrag.stores.files import FileStore
from planrag.stores.metadata import MetadataStore
from planrag.stores.router import VectorStoreRouter
from planrag.stores.vector import VectorRecord
from planrag.text.tokenizer import tokenize_texts

log = logging.getLogger(__name__)

EMBED_BATCH = 64  # chunks per embed-and-write step (progress is shown after each)


Progress = Callable[[int, int], None]


@dataclass
class _Prepared:
    doc: Document
    embedder: Embedder
    chunks: list[Chunk]
    generation: int = 0  # the KB's vector generation the embedder's vectors belong to
    note: Message | None = None  # shown on the completed document (indexed without graph)


def _reason(exc: Exception) -> Message:
    if not isinstance(exc, PlanragError):  # a bug or a store failure must not kill a worker
        log.error("indexing failed", exc_info=exc)
    return error_message(exc)


def vector_record(doc: Document, chunk: Chunk, vector: list[float]) -> VectorRecord:
    """A chunk's row in the vector store (its document's metadata copied for filters)."""
    meta = doc.metadata
    return VectorRecord(
        chunk_id=chunk.id,
        doc_id=doc.id,
        text=chunk.text,
        title=meta.title or doc.filename,
        author=meta.author or "",
        domain=meta.domain or "",
        date=meta.date_int(),
        vector=vector,
    )


BLANK_CHECK_MAX_BYTES = 1 << 20


class DocumentIndexer:
    """Indexes documents into a KB's stores (metadata chunks, vectors, BM25 tokens, graph)."""

    def __init__(
        self,
        metadata: MetadataStore,
        vectors: VectorStoreRouter,
        files: FileStore,
        embedders: EmbedderRegistry,
        bm25: BM25Store,
        *,
        closed: Callable[[], bool],
        locks: KbLocks,
        graph: GraphIndexer | None = None,
        on_indexed: Callable[[str], object] | None = None,
        process: LowPriorityProcess | None = None,
        limits: ReadLimits | None = None,
    ) -> None:
        self._metadata = metadata
        self._vectors = vectors
        self._files = files
        self._embedders = embedders
        self._bm25 = bm25
        self._closed = closed  # the ingestion service is shutting down: stop between batches
        self._locks = locks
        self._graph = graph
        # Called with a KB's id when a batch of its documents finished indexing (fusion
        # calibration runs there, never in a search).
        self._on_indexed = on_indexed
        # The niced helper process that tokenises and embeds passages (None: this process does;
        # PLANRAG_INGEST__EMBED_PROCESS). Stores are written here only.
        self._process = process
        self._limits = limits or ReadLimits()  # inflated size and chunks of one document
        self._offloaded: dict[int, Embedder] = {}
        self._lock = threading.Lock()

    def index(self, doc_id: str, progress: Progress | None = None) -> Document:
        """Parse, chunk, embed and write one document. Never raises for a bad document."""
        return self.index_many([doc_id], progress)[0]

    def index_many(self, doc_ids: list[str], progress: Progress | None = None) -> list[Document]:
        """Index documents together, embedding all their chunks in shared batches (many small
        documents embed as fast as one large one). A bad document fails alone."""
        results: dict[str, Document] = {}
        prepared: list[_Prepared] = []
        started = time.perf_counter()
        kb_ids = {d.kb_id for d in self._metadata.get_documents(doc_ids).values()}
        try:
            # Shared with other ingestion, exclusive of a reindex switching these KBs' vectors:
            # the model chosen in _prepare is the model of the vectors _write reaches.
            with self._locks.shared(kb_ids):
                return self._index_many(doc_ids, results, prepared, progress)
        finally:
            # One duration per document of the batch: the batch's time shared evenly.
            per_doc = (time.perf_counter() - started) / max(len(doc_ids), 1)
            for doc in results.values():
                telemetry.record_ingestion(doc.status.value, per_doc)

    def _index_many(
        self,
        doc_ids: list[str],
        results: dict[str, Document],
        prepared: list[_Prepared],
        progress: Progress | None,
    ) -> list[Document]:
        for doc_id in doc_ids:
            doc = self._metadata.get_document(doc_id)
            if doc.status == DocumentStatus.deleting:  # being deleted: nothing to index
                results[doc_id] = doc
                continue
            self._metadata.set_status(doc_id, DocumentStatus.processing)
            try:
                item = self._prepare(doc)
                self._index_graph(item)
                prepared.append(item)
            except Exception as exc:
                results[doc_id] = self._give_up(doc, exc)
        try:
            deleted = self._write(prepared, progress)
        except Exception as exc:
            for item in prepared:
                results[item.doc.id] = self._give_up(item.doc, exc)
            return [results[d] for d in doc_ids]
        for item in prepared:
            if item.doc.id in deleted:
                self._drop_written(item.doc)
                results[item.doc.id] = item.doc
                continue
            results[item.doc.id] = self._complete(item)
            self._follow_switch(item)
        self._indexed({item.doc.kb_id for item in prepared})
        return [results[d] for d in doc_ids]

    def _indexed(self, kb_ids: set[str]) -> None:
        if self._on_indexed is None:
            return
        for kb_id in sorted(kb_ids):
            try:
                self._on_indexed(kb_id)
            except Exception:  # the documents are indexed; only the calibration failed
                log.exception("after indexing knowledge base %s", kb_id)

    def _follow_switch(self, item: _Prepared) -> None:
        """A reindex in another process switched the KB to new vectors while this document was
        embedded with the old model: embed it again into the serving generation. (Checked after
        the document is `completed`, so a switch earlier than this check sees the document in its
        own catch-up; in one process the KB lock rules this out.)"""
        for _ in range(3):
            try:
                kb = self._metadata.get_kb(item.doc.kb_id)
            except NotFound:
                return
            if kb.vector_generation == item.generation:
                return
            embedder = self._indexing_embedder(kb.embedding_model, kb.embedding_dim)
            item = _Prepared(item.doc, embedder, item.chunks, kb.vector_generation)
            self._write([item], None)

    def _prepare(self, doc: Document) -> _Prepared:
        """Remove leftovers of an earlier attempt, then parse, chunk, tokenise and store chunks."""
        kb = self._metadata.get_kb(doc.kb_id)
        self.remove_leftovers(doc)
        try:
            data = self._files.read(doc.kb_id, doc.id, doc.file_type)
        except FileNotFoundError as exc:
            raise ParseError(
                "the uploaded file is missing from the data dir", reason="file_missing"
            ) from exc
        parsed = parse_document(data, doc.file_type, self._limits)
        if kb.chunking.unit == "chars":  # at least this many chunks: refused before chunking
            longest = max(kb.chunking.chunk_size, kb.chunking.child_size)
            check_chunks(len(parsed.text) // longest, self._limits.max_chunks)
        chunks = chunk_document(parsed, kb.chunking, doc.id)
        embedded = [c for c in chunks if c.kind != ChunkKind.parent]
        if not embedded:
            raise ParseError("document produced no chunks", reason="no_chunks")
        check_chunks(len(embedded), self._limits.max_chunks)
        embedder = self._indexing_embedder(kb.embedding_model, kb.embedding_dim)
        tokens = self._tokenize(kb.user_words, [c.text for c in embedded])
        self._metadata.replace_chunks(
            doc.id, chunks, {c.id: t for c, t in zip(embedded, tokens, strict=True)}
        )
        return _Prepared(
            doc=doc, embedder=embedder, chunks=embedded, generation=kb.vector_generation
        )

    def _indexing_embedder(self, model: str, dimension: int) -> Embedder:
        """The KB's embedder, its passages embedded by the helper process when there is one
        (one wrapper per model, so chunks of several documents still share batches)."""
        embedder = self._embedders.for_knowledge_base(model, dimension)
        with self._lock:
            if id(embedder) not in self._offloaded:
                self._offloaded[id(embedder)] = offload(embedder, self._process)
            return self._offloaded[id(embedder)]

    def _tokenize(self, user_words: list[str], texts: list[str]) -> list[list[str]]:
        """BM25 tokens of chunk texts (Kiwi): in the helper process when there is one."""
        words = tuple(user_words)
        if self._process is None:
            return tokenize_texts(words, texts)
        tokens: list[list[str]] = self._process.call(tokenize_texts, words, texts)
        return tokens

    def _index_graph(self, item: _Prepared) -> None:
        """Entities and relations of a document in a KB with a graph (before its vectors)."""
        if self._graph is None:
            return
        kb = self._metadata.get_kb(item.doc.kb_id)
        if kb.graph_backend == "none":
            return

        def note(progress: Message | None) -> None:
            self._metadata.set_progress(item.doc.id, progress)

        item.note = self._graph.index(kb, item.doc, item.chunks, note)

    def _write(self, prepared: list[_Prepared], progress: Progress | None) -> set[str]:
        """Embed and upsert every prepared chunk, in batches that may span documents. Before
        each batch: stop at shutdown, and leave out documents deleted meanwhile (by any
        process), so a deletion stops their embedding (here or in the helper process) within a
        batch. Returns the ids of those deleted."""
        pending = [(item, chunk) for item in prepared for chunk in item.chunks]
        for item in prepared:
            self._metadata.set_progress(
                item.doc.id, message("chunks_embedded", done=0, total=len(item.chunks))
            )
        deleted: set[str] = set()
        for start in range(0, len(pending), EMBED_BATCH):
            if self._closed():
                raise ShuttingDown("server shutting down; indexing resumes at next start")
            deleted |= self._deleted([i.doc.id for i in prepared if i.doc.id not in deleted])
            batch = [p for p in pending[start : start + EMBED_BATCH] if p[0].doc.id not in deleted]
            if not batch:
                continue
            by_embedder: dict[int, list[tuple[_Prepared, Chunk]]] = {}
            for pair in batch:
                by_embedder.setdefault(id(pair[0].embedder), []).append(pair)
            for group in by_embedder.values():
                vectors = group[0][0].embedder.embed([chunk.text for _, chunk in group])
                by_kb: dict[tuple[str, int], list[VectorRecord]] = {}
                for (item, chunk), vector in zip(group, vectors, strict=True):
                    record = vector_record(item.doc, chunk, vector)
                    by_kb.setdefault((item.doc.kb_id, item.generation), []).append(record)
                for (kb_id, generation), records in by_kb.items():
                    # The generation of the model that embedded them, even if a reindex in
                    # another process switched the KB meanwhile (see _follow_switch).
                    store, key = self._vectors.at_generation(kb_id, generation)
                    store.upsert(key, records)
            if progress:
                progress(min(start + EMBED_BATCH, len(pending)), len(pending))
            self._show_progress(batch, pending[: start + EMBED_BATCH])
        return deleted

    def _deleted(self, doc_ids: list[str]) -> set[str]:
        """Those of the documents deleted or being deleted."""
        found = self._metadata.get_documents(doc_ids)
        return {
            doc_id
            for doc_id in doc_ids
            if doc_id not in found or found[doc_id].status == DocumentStatus.deleting
        }

    def _show_progress(
        self, batch: list[tuple[_Prepared, Chunk]], done: list[tuple[_Prepared, Chunk]]
    ) -> None:
        """`chunks embedded n/N` on each document of this batch (shown while `processing`)."""
        counts: dict[str, int] = {}
        for item, _chunk in done:
            counts[item.doc.id] = counts.get(item.doc.id, 0) + 1
        for item in {id(item): item for item, _chunk in batch}.values():
            total = len(item.chunks)
            self._metadata.set_progress(
                item.doc.id, message("chunks_embedded", done=counts[item.doc.id], total=total)
            )

    def _complete(self, item: _Prepared) -> Document:
        doc = item.doc
        self._metadata.set_progress(doc.id, item.note)
        self._metadata.set_status(doc.id, DocumentStatus.completed, chunk_count=len(item.chunks))
        self._bm25.mark_dirty(doc.kb_id)
        try:
            return self._metadata.get_document(doc.id)
        except NotFound:  # deleted while it was being indexed: drop what was just written
            self._drop_written(doc)
            raise

    def _drop_written(self, doc: Document) -> None:
        """What indexing wrote of a document deleted meanwhile (by document id: its chunk rows
        may be gone already)."""
        try:
            self._vectors.delete(doc.kb_id, Eq(field="doc_id", value=doc.id))
            self._vectors.delete_titles(doc.kb_id, [doc.id])
        except NotFound:  # the whole KB went
            return
        self._remove_graph(doc)

    def remove_leftovers(self, doc: Document) -> None:
        """Remove the chunks and vectors an earlier attempt wrote. Vectors are only ever written
        for chunk rows already in the DB, so deleting by those ids (a primary-key delete, cheap)
        reaches every vector; a delete by doc_id would scan the whole collection."""
        chunk_ids = [c.id for c in self._metadata.list_chunks(doc.id)]
        for start in range(0, len(chunk_ids), 1000):
            batch = chunk_ids[start : start + 1000]
            self._vectors.delete(doc.kb_id, In(field="chunk_id", values=batch))
        self._vectors.delete_titles(doc.kb_id, [doc.id])
        self._remove_graph(doc)
        self._metadata.delete_chunks(doc.id)

    def _remove_graph(self, doc: Document) -> None:
        if self._graph is not None:
            try:
                kb = self._metadata.get_kb(doc.kb_id)
            except NotFound:
                return  # the KB went, and its graph with it
            self._graph.remove(kb, [doc.id])

    def _give_up(self, doc: Document, exc: Exception) -> Document:
        """A document whose indexing stopped: `error` with the reason, except when the server
        is shutting down — then it stays `processing`, and start-up indexes it again (the
        stores closing under a write is the same shutdown, seen from the store)."""
        if isinstance(exc, ShuttingDown | StoreUnavailable) and self._closed():
            log.info("indexing of %s (%s) stopped by shutdown", doc.id, doc.filename)
            return doc
        return self._fail(doc, _reason(exc))

    def mark_failed(self, doc_id: str, reason: Message) -> Document:
        """Give a document up with a reason (a worker that never finishes it)."""
        return self._fail(self._metadata.get_document(doc_id), reason)

    def _fail(self, doc: Document, reason: Message) -> Document:
        log.warning("document %s (%s) failed: %s", doc.id, doc.filename, reason.text)
        try:
            self.remove_leftovers(doc)
            self._metadata.set_progress(doc.id, None)
            self._metadata.set_status(doc.id, DocumentStatus.error, error=reason, chunk_count=0)
            return self._metadata.get_document(doc.id)
        except Exception:  # the KB was deleted meanwhile: nothing left to mark
            log.exception("cleanup of %s failed", doc.id)
            update = {"status": DocumentStatus.error, "error": reason.text, "error_detail": reason}
            return doc.model_copy(update=update)
