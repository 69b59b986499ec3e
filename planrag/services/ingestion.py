"""Document ingestion: validate uploads, store files, queue indexing, recover on start.

A document moves pending → processing → completed | error. Indexing (`DocumentIndexer`) is
idempotent: it first removes whatever an earlier, interrupted attempt left, so a crash at any
point is repaired by running it again, which start-up does for every pending/processing
document.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from planrag.core.child_process import LowPriorityProcess
from planrag.core.errors import Conflict, EmptyUpload, NotFound
from planrag.core.filters import Eq
from planrag.core.messages import Message
from planrag.core.types import Document, DocumentMetadata, DocumentStatus, FileType, KnowledgeBase
from planrag.ingest.inflation import ReadLimits
from planrag.llm.embedders import EmbedderRegistry
from planrag.services.consistency import IndexChecker
from planrag.services.document_indexer import DocumentIndexer, Progress
from planrag.services.graph_indexing import GraphIndexer
from planrag.services.kb_locks import KbLocks
from planrag.services.uploads import (
    UploadedDocument,
    UploadItem,
    check_size,
    check_uploads,
    file_metadata,
    metadata_changes,
)
from planrag.stores.bm25 import BM25Store
from planrag.stores.files import FileStore
from planrag.stores.job_queue import JobQueue
from planrag.stores.metadata import MetadataStore
from planrag.stores.router import VectorStoreRouter

log = logging.getLogger(__name__)


class IngestionService:
    def __init__(
        self,
        metadata: MetadataStore,
        vectors: VectorStoreRouter,
        files: FileStore,
        embedders: EmbedderRegistry,
        bm25: BM25Store,
        *,
        max_upload_bytes: int,
        max_files: int,
        concurrency: int,
        queue: JobQueue | None = None,
        graph: GraphIndexer | None = None,
        on_indexed: Callable[[str], object] | None = None,
        on_settled: Callable[[str], object] | None = None,
        locks: KbLocks | None = None,
        process: LowPriorityProcess | None = None,
        limits: ReadLimits | None = None,
    ) -> None:
        self._graph = graph
        # Called with a KB's id when none of its documents is left to index: the calibration
        # then covers exactly its documents, whatever order or timing they were indexed in.
        self._on_settled = on_settled
        self._metadata = metadata
        self._locks = locks or KbLocks()
        # Queue mode `database`: uploads become durable jobs taken by workers (this process's
        # and `planrag worker` processes) instead of this process's thread pool.
        self._queue = queue
        self._enqueued: list[Callable[[], None]] = []
        self._vectors = vectors
        self._files = files
        self._bm25 = bm25
        self._max_bytes = max_upload_bytes
        self._max_files = max_files
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="ingest")
        self._pending: dict[str, Future[Document]] = {}
        self._kb_pending: dict[str, int] = {}  # documents queued or indexing, per KB
        # Documents submitted again while their job was already running (a KB re-chunked just
        # as a document finished): indexed once more after that job, never dropped.
        self._again: set[str] = set()
        self._lock = threading.Lock()
        self._put_lock = threading.Lock()
        self._closed = False
        self.checker = IndexChecker(metadata, vectors, self.graph_docs)
        self.indexer = DocumentIndexer(
            metadata,
            vectors,
            files,
            embedders,
            bm25,
            closed=lambda: self._closed,
            locks=self._locks,
            graph=graph,
            on_indexed=self._unless_more_queued(on_indexed),
            process=process,
            limits=limits,
        )

    def _unless_more_queued(
        self, on_indexed: Callable[[str], object] | None
    ) -> Callable[[str], object] | None:
        """`on_indexed` (the calibration's refresh when a KB has none or has doubled), skipped
        while more documents of the KB wait in this process's queue and the KB is calibrated
        already: its settled calibration (`on_settled`) follows when the last one is indexed,
        so the intermediate one would be measured and replaced within the same upload. A KB
        without any calibration still gets one after its first document."""
        if on_indexed is None:
            return None
        refresh = on_indexed

        def after_document(kb_id: str) -> object:
            with self._lock:
                more = self._kb_pending.get(kb_id, 0) > 1
            if more and self._metadata.get_kb(kb_id).calibration is not None:
                return None
            return refresh(kb_id)

        return after_document

    def graph_docs(self, kb: KnowledgeBase) -> set[str] | None:
        """The documents with a graph in the KB (None: the KB has no graph)."""
        store = self._graph.graphs.for_kb(kb.graph_backend) if self._graph is not None else None
        return None if store is None else store.doc_ids(kb.id)

    # ── upload ─────────────────────────────────────────────────────────────────────────

    # ── upload ─────────────────────────────────────────────────────────────────────────
    def validate(self, items: list[UploadItem]) -> list[FileType]:
        """Check every file before anything is stored; returns their file types."""
        return check_uploads(items, max_files=self._max_files, max_bytes=self._max_bytes)

    def upload(
        self,
        kb_id: str,
        items: list[UploadItem],
        metadata: DocumentMetadata | None = None,
        *,
        background: bool = True,
    ) -> list[UploadedDocument]:
        """Store the files and queue them. Identical content in the same KB is not re-added."""
        kb = self._metadata.get_kb(kb_id)
        file_types = self.validate(items)
        # Every file's metadata (a Markdown file's front matter over the request's) before
        # anything is stored: a bad front matter refuses the request and loses nothing.
        metadatas = [
            file_metadata(item, file_type, metadata)
            for item, file_type in zip(items, file_types, strict=True)
        ]
        result = []
        for item, file_type, item_metadata in zip(items, file_types, metadatas, strict=True):
            digest = item.sha256()
            doc, created = self._metadata.add_document(
                kb_id,
                item.filename,
                file_type,
                item.size,
                digest,
                item_metadata or DocumentMetadata(),
            )
            owner = (metadata or DocumentMetadata()).user_id
            if not created and kb.per_user and doc.metadata.user_id != owner:
                # Never hand one user another's document (its id, title) as a "duplicate".
                raise Conflict(
                    f"'{item.filename}': identical content belongs to another user in this "
                    "per-user knowledge base",
                    filename=item.filename,
                )
            if created or not self._files.exists(kb_id, doc.id, file_type):
                if item.path is not None:
                    self._files.save_file(kb_id, doc.id, file_type, item.path)
                else:
                    self._files.save(kb_id, doc.id, file_type, item.data)
            if created or doc.status == DocumentStatus.error or self._is_broken(doc):
                # A retry of a failed document indexes it again; so does the re-upload of a
                # completed one whose indexes disagree (a crash damaged it).
                self._metadata.set_status(doc.id, DocumentStatus.pending)
                doc = self._metadata.get_document(doc.id)
                if background:
                    self.submit(doc.id)
            changed: list[str] = []
            if not created and item_metadata is not None:
                doc, changed = self.update_metadata(
                    doc, metadata_changes(doc.metadata, item_metadata)
                )
            result.append(
                UploadedDocument(
                    **doc.model_dump(), duplicate=not created, metadata_updated=changed
                )
            )
        return result

    def update_metadata(
        self, doc: Document, metadata: DocumentMetadata, background: bool = True
    ) -> tuple[Document, list[str]]:
        """Give a document new metadata; the fields that changed. Vectors and BM25 rows carry
        metadata for filtering, so a changed document is indexed again (queued)."""
        before, after = doc.metadata.model_dump(), metadata.model_dump()
        changed = [k for k in after if after[k] != before[k]]
        if not changed:
            return doc, []
        self._metadata.set_document_metadata(doc.id, metadata)
        self._vectors.delete_titles(doc.kb_id, [doc.id])  # rebuilt from the new title
        if doc.status in (DocumentStatus.completed, DocumentStatus.error):
            self._metadata.set_status(doc.id, DocumentStatus.pending)
            if background:
                self.submit(doc.id)
        return self._metadata.get_document(doc.id), changed

    def put(
        self,
        kb_id: str,
        doc_id: str,
        item: UploadItem,
        file_type: FileType,
        metadata: DocumentMetadata,
        may_replace: Callable[[Document], None] | None = None,
    ) -> UploadedDocument:
        """Store a document under a caller-chosen stable id and queue it for indexing.

        A document of that id (in any knowledge base) is replaced, after any indexing of it in
        flight has finished; the same id with the same content and metadata in the same KB is
        left alone (`duplicate: true`) unless its indexing failed. `may_replace` sees the
        existing document first (under the lock, before anything changes) and raises to refuse.
        """
        self._metadata.get_kb(kb_id)
        if not item.data:
            raise EmptyUpload(f"'{item.filename}' is empty", filename=item.filename)
        check_size(item.filename, len(item.data), self._max_bytes)
        digest = hashlib.sha256(
            b"\0".join([doc_id.encode(), metadata.model_dump_json().encode(), item.data])
        ).hexdigest()
        with self._put_lock:
            existing = self._metadata.get_documents([doc_id]).get(doc_id)
            if existing is not None:
                if may_replace is not None:
                    may_replace(existing)
                unchanged = existing.kb_id == kb_id and existing.content_hash == digest
                intact = existing.status != DocumentStatus.error and not self._is_broken(existing)
                if unchanged and intact:
                    return UploadedDocument(**existing.model_dump(), duplicate=True)
                self.wait_for(doc_id)
                self.delete(existing.kb_id, doc_id)
            doc, _ = self._metadata.add_document(
                kb_id, item.filename, file_type, len(item.data), digest, metadata, doc_id=doc_id
            )
            try:
                self._files.save(kb_id, doc.id, file_type, item.data)
            except Exception:
                self._metadata.delete_document(doc.id)
                raise
        self.submit(doc.id)
        return UploadedDocument(**doc.model_dump())

    def reindex_documents(self, kb_id: str) -> int:
        """Index every settled document of a KB again from its stored file (its chunking
        changed), in the background; how many were queued. Each is replaced when it completes."""
        settled = [DocumentStatus.completed, DocumentStatus.error]
        documents = self._metadata.list_documents(kb_id, settled)
        for doc in documents:
            self._metadata.set_status(doc.id, DocumentStatus.pending)
            self.submit(doc.id)
        return len(documents)

    def wait_for(self, doc_id: str) -> None:
        """Wait for the indexing of one document, if queued or running."""
        with self._lock:
            future = self._pending.get(doc_id)
        if future is not None:
            future.exception()

    # ── background indexing ────────────────────────────────────────────────────────────
    def on_enqueue(self, listener: Callable[[], None]) -> None:
        """Called after a job is queued in `database` mode (a local worker wakes up)."""
        self._enqueued.append(listener)

    @property
    def queue(self) -> JobQueue | None:
        return self._queue

    def submit(self, doc_id: str) -> Future[Document]:
        if self._queue is not None:
            return self._enqueue(doc_id)
        with self._lock:
            running = self._pending.get(doc_id)
            if running is not None:
                if running.running() or running.done():
                    self._again.add(doc_id)
                return running
            try:
                kb_id = self._metadata.get_document(doc_id).kb_id
            except NotFound as exc:
                gone: Future[Document] = Future()
                gone.set_exception(exc)
                return gone
            future = self._pool.submit(self._index_then_settle, doc_id, kb_id)
            self._pending[doc_id] = future
            self._kb_pending[kb_id] = self._kb_pending.get(kb_id, 0) + 1
        future.add_done_callback(lambda _f: self._forget(doc_id, kb_id))
        return future

    def _enqueue(self, doc_id: str) -> Future[Document]:
        done: Future[Document] = Future()
        try:
            doc = self._metadata.get_document(doc_id)
        except NotFound as exc:
            done.set_exception(exc)
            return done
        self._queue.enqueue(doc.id, doc.kb_id)  # type: ignore[union-attr]
        for listener in self._enqueued:
            listener()
        done.set_result(doc)
        return done

    def _forget(self, doc_id: str, kb_id: str) -> None:
        with self._lock:
            self._pending.pop(doc_id, None)
            again = doc_id in self._again
            self._again.discard(doc_id)
            drained = not self._pending
            left = self._kb_pending.get(kb_id, 1) - 1
            if left > 0:
                self._kb_pending[kb_id] = left
            else:
                self._kb_pending.pop(kb_id, None)
        if again and not self._closed:
            self.submit(doc_id)
            return
        if drained and not self._closed:
            # The queue is empty: rebuild the lexical index now rather than on the next query.
            try:
                self._bm25.index(kb_id)
            except Exception:
                log.exception("BM25 rebuild of %s failed; the next search retries", kb_id)

    def _index_then_settle(self, doc_id: str, kb_id: str) -> Document:
        """A background job: the document, then, when it was the KB's last one queued, the
        KB's settled state (inside the job, so whoever waits for the job waits for that too)."""
        doc = self.index(doc_id)
        with self._lock:
            last = self._kb_pending.get(kb_id, 0) <= 1 and doc_id not in self._again
        if last:
            self.settled(kb_id)
        return doc

    def settled(self, kb_id: str) -> None:
        """Nothing of the KB is left to index (this process's queue, or the shared one's jobs
        of the KB): its settled state is measured (`on_settled`, the fusion calibration)."""
        if self._on_settled is None or self._closed:
            return
        try:
            self._on_settled(kb_id)
        except Exception:  # the documents are indexed; only the calibration failed
            log.exception("after indexing knowledge base %s", kb_id)

    def wait(self, timeout: float | None = None) -> None:
        """Block until every queued document is indexed (CLI and tests)."""
        if self._queue is not None:
            deadline = None if timeout is None else time.monotonic() + timeout
            while self._queue.depth() and (deadline is None or time.monotonic() < deadline):
                time.sleep(0.1)
            return
        while True:
            with self._lock:
                futures = list(self._pending.values())
            if not futures:
                return
            for future in futures:
                future.exception(timeout=timeout)

    @property
    def closed(self) -> bool:
        """True once `close()` ran: no new indexing jobs are accepted."""
        return self._closed

    @property
    def queue_depth(self) -> int:
        """Documents queued or being indexed (by this process; every process's in `database`
        queue mode)."""
        if self._queue is not None:
            return self._queue.depth()
        with self._lock:
            return len(self._pending)

    def recover(self) -> list[str]:
        """Repair what a crash left: finish interrupted deletions, sweep orphan vectors, queue
        again every document left pending or processing and every completed one whose indexes
        disagree. Returns the ids queued."""
        for doc in self._metadata.list_documents(statuses=[DocumentStatus.deleting]):
            log.info("finishing the deletion of %s (%s)", doc.id, doc.filename)
            self._purge(doc)
        for kb in self._metadata.list_kbs():
            if not self._vectors.has_collection(kb.id):
                self._vectors.create_collection(kb.id, kb.embedding_dim, kb.metric)
                continue
            known = {d.id for d in self._metadata.list_documents(kb.id)}
            if self._graph is not None:
                self._graph.sweep(kb, known)
            for orphan in self._vectors.doc_ids(kb.id) - known:
                log.warning("removing orphan vectors of deleted document %s", orphan)
                self._vectors.delete(kb.id, Eq(field="doc_id", value=orphan))
                self._vectors.delete_titles(kb.id, [orphan])
        self._requeue_broken()
        stuck = self._metadata.list_documents(
            statuses=[DocumentStatus.pending, DocumentStatus.processing]
        )
        queued = self._queue.queued() if self._queue is not None else set()
        for doc in stuck:
            if doc.id in queued:  # the durable queue has it: a worker (re)takes it
                continue
            log.info("resuming indexing of %s (%s, was %s)", doc.id, doc.filename, doc.status)
            self.submit(doc.id)
        return [doc.id for doc in stuck]

    def _requeue_broken(self) -> None:
        """Completed documents whose indexes disagree go back to pending (re-indexed next)."""
        for kb in self._metadata.list_kbs():
            for found in self.checker.broken(kb):
                log.warning("re-indexing %s: its indexes disagree (%s)", found.doc_id, found)
                self._reset(kb.id, found.doc_id)

    def _is_broken(self, doc: Document) -> bool:
        if doc.status != DocumentStatus.completed:
            return False
        return bool(self.checker.broken(self._metadata.get_kb(doc.kb_id), [doc]))

    def _reset(self, kb_id: str, doc_id: str) -> None:
        """Back to pending with nothing of it in any index: its vectors are removed by
        document id (its chunk rows may be gone), the rest by the next attempt."""
        self._vectors.delete(kb_id, Eq(field="doc_id", value=doc_id))
        self._metadata.set_status(doc_id, DocumentStatus.pending, chunk_count=0)
        self._bm25.mark_dirty(kb_id)

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ── indexing ───────────────────────────────────────────────────────────────────────
    def index(self, doc_id: str, progress: Progress | None = None) -> Document:
        """Parse, chunk, embed and write one document. Never raises for a bad document."""
        return self.indexer.index(doc_id, progress)

    def index_many(self, doc_ids: list[str], progress: Progress | None = None) -> list[Document]:
        """Index documents together, their chunks embedded in shared batches (`DocumentIndexer`)."""
        return self.indexer.index_many(doc_ids, progress)

    def mark_failed(self, doc_id: str, reason: Message) -> Document:
        """Give a document up with a reason (a worker that never finishes it)."""
        return self.indexer.mark_failed(doc_id, reason)

    # ── deletion ───────────────────────────────────────────────────────────────────────
    def delete(self, kb_id: str, doc_id: str) -> None:
        """Delete a document from every index. The deletion is recorded first (`deleting`):
        a crash part-way leaves a document that start-up deletes, never a `completed` one with
        indexes missing."""
        doc = self._metadata.get_document(doc_id, kb_id)
        self._metadata.set_status(doc_id, DocumentStatus.deleting, chunk_count=doc.chunk_count)
        self._bm25.mark_dirty(kb_id)  # out of keyword search at once
        self._purge(doc)

    def _purge(self, doc: Document) -> None:
        """Remove a document being deleted: its indexes, then its row, then its file."""
        with self._locks.shared([doc.kb_id]):
            self.indexer.remove_leftovers(doc)
            self._metadata.delete_document(doc.id)
        self._bm25.mark_dirty(doc.kb_id)
        self._files.delete(doc.kb_id, doc.id, doc.file_type)

    def documents(
        self, kb_id: str, statuses: Iterable[DocumentStatus] | None = None
    ) -> list[Document]:
        self._metadata.get_kb(kb_id)
        return self._metadata.list_documents(kb_id, statuses)
