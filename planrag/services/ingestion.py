"""Document ingestion: validate uploads, store files, index in the background, recover on start.

A document moves pending → processing → completed | error. Indexing a document is idempotent:
it first removes whatever an earlier, interrupted attempt left (chunks and vectors), so a crash
at any point is repaired by running it again, which start-up does for every pending/processing
document.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from planrag.core import telemetry
from planrag.core.child_process import LowPriorityProcess, ShuttingDown
from planrag.core.errors import (
    Conflict,
    EmptyUpload,
    InvalidInput,
    NotFound,
    ParseError,
    PlanragError,
    StoreUnavailable,
    UploadTooLarge,
)
from planrag.core.filters import Eq, In
from planrag.core.messages import Message, error_message, message
from planrag.core.types import (
    Chunk,
    ChunkKind,
    Document,
    DocumentMetadata,
    DocumentStatus,
    FileType,
    KnowledgeBase,
)
from planrag.ingest.chunkers import chunk_document
from planrag.ingest.cleaning import clean_text
from planrag.ingest.front_matter import HEAD_BYTES, with_front_matter
from planrag.ingest.inflation import ReadLimits, check_chunks
from planrag.ingest.parsers import decode_text, detect_file_type, parse_document
from planrag.llm.embed_process import offload
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.services.consistency import IndexChecker
from planrag.services.graph_indexing import GraphIndexer
from planrag.services.kb_locks import KbLocks
from planrag.stores.bm25 import BM25Store
from planrag.stores.files import FileStore
from planrag.stores.job_queue import JobQueue
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


def _blank_text(item: UploadItem, file_type: FileType) -> bool:
    """A text file (up to 1 MiB; larger ones are left to the parser) holding nothing but
    whitespace and invisible characters."""
    if file_type not in ("txt", "md") or item.size > BLANK_CHECK_MAX_BYTES:
        return False
    data = item.path.read_bytes() if item.path is not None else item.data
    return not clean_text(decode_text(data)).strip()


class UploadItem(BaseModel):
    """A file to store: its bytes, or a file on disk (HTTP uploads are streamed there and are
    never read whole into memory: hashed and copied block by block)."""

    filename: str
    data: bytes = b""
    path: Path | None = None

    @property
    def size(self) -> int:
        return self.path.stat().st_size if self.path is not None else len(self.data)

    def sha256(self) -> str:
        if self.path is None:
            return hashlib.sha256(self.data).hexdigest()
        with self.path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()


class UploadedDocument(Document):
    duplicate: bool = False
    metadata_updated: list[str] = Field(
        default_factory=list,
        description="metadata fields this request changed (a re-upload with new metadata, or "
        "PATCH); the document is re-indexed so that filters see them",
    )


def _with_front_matter(
    item: UploadItem, file_type: FileType, metadata: DocumentMetadata | None
) -> DocumentMetadata | None:
    """The file's metadata: a Markdown file's front matter read into the request's."""
    if file_type != "md":
        return metadata
    if item.path is not None:
        with item.path.open("rb") as stream:
            head = stream.read(HEAD_BYTES)
    else:
        head = item.data[:HEAD_BYTES]
    return with_front_matter(_decode_head(head), metadata or DocumentMetadata(), item.filename)


def _decode_head(head: bytes) -> str:
    """The text of a file's first bytes, which may end inside a multi-byte character (a Korean
    Markdown file longer than HEAD_BYTES otherwise failed to decode at all)."""
    if len(head) < HEAD_BYTES:
        return decode_text(head)
    for cut in range(3):
        try:
            return decode_text(head[: len(head) - cut])
        except ParseError:
            continue
    return decode_text(head[:-3])


def metadata_changes(current: DocumentMetadata, given: DocumentMetadata) -> DocumentMetadata:
    """`current` with every field `given` carries (non-empty) taken from `given`."""
    update = {
        k: v
        for k, v in given.model_dump().items()
        if k in given.model_fields_set and v not in (None, "", [])
    }
    return current.model_copy(update=update)


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
        self._limits = limits or ReadLimits()  # inflated size and chunks of one document
        # The niced helper process that tokenises and embeds passages (None: this process does;
        # PLANRAG_INGEST__EMBED_PROCESS). Stores are written here only.
        self._process = process
        self._offloaded: dict[int, Embedder] = {}
        # Called with a KB's id when a batch of its documents finished indexing (fusion
        # calibration runs there, never in a search).
        self._on_indexed = on_indexed
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
        self._embedders = embedders
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

    def graph_docs(self, kb: KnowledgeBase) -> set[str] | None:
        """The documents with a graph in the KB (None: the KB has no graph)."""
        store = self._graph.graphs.for_kb(kb.graph_backend) if self._graph is not None else None
        return None if store is None else store.doc_ids(kb.id)

    # ── upload ─────────────────────────────────────────────────────────────────────────
    def validate(self, items: list[UploadItem]) -> list[FileType]:
        """Check every file before anything is stored; returns their file types."""
        if not items:
            raise InvalidInput("no files: send one or more multipart fields named 'files'")
        if len(items) > self._max_files:
            raise InvalidInput(f"too many files: at most {self._max_files} per request")
        types: list[FileType] = []
        for item in items:
            types.append(detect_file_type(item.filename))
            size = item.size
            if not size:
                raise EmptyUpload(f"'{item.filename}' is empty", filename=item.filename)
            if _blank_text(item, types[-1]):  # one rule: nothing to index is an empty file
                raise EmptyUpload(
                    f"'{item.filename}' is empty (only whitespace)", filename=item.filename
                )
            if size > self._max_bytes:
                raise UploadTooLarge(
                    f"'{item.filename}' is {size} bytes; the limit is {self._max_bytes}"
                    " (PLANRAG_INGEST__MAX_UPLOAD_MB)",
                    filename=item.filename,
                )
        return types

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
            _with_front_matter(item, file_type, metadata)
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
        if len(item.data) > self._max_bytes:
            raise UploadTooLarge(
                f"'{item.filename}' is {len(item.data)} bytes; the limit is {self._max_bytes}"
                " (PLANRAG_INGEST__MAX_UPLOAD_MB)",
                filename=item.filename,
            )
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

    # ── indexing one document ──────────────────────────────────────────────────────────
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
        self._remove_leftovers(doc)
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
            if self._closed:
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

    def _remove_leftovers(self, doc: Document) -> None:
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
        if isinstance(exc, ShuttingDown | StoreUnavailable) and self._closed:
            log.info("indexing of %s (%s) stopped by shutdown", doc.id, doc.filename)
            return doc
        return self._fail(doc, _reason(exc))

    def mark_failed(self, doc_id: str, reason: Message) -> Document:
        """Give a document up with a reason (a worker that never finishes it)."""
        return self._fail(self._metadata.get_document(doc_id), reason)

    def _fail(self, doc: Document, reason: Message) -> Document:
        log.warning("document %s (%s) failed: %s", doc.id, doc.filename, reason.text)
        try:
            self._remove_leftovers(doc)
            self._metadata.set_progress(doc.id, None)
            self._metadata.set_status(doc.id, DocumentStatus.error, error=reason, chunk_count=0)
            return self._metadata.get_document(doc.id)
        except Exception:  # the KB was deleted meanwhile: nothing left to mark
            log.exception("cleanup of %s failed", doc.id)
            update = {"status": DocumentStatus.error, "error": reason.text, "error_detail": reason}
            return doc.model_copy(update=update)

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
            self._remove_leftovers(doc)
            self._metadata.delete_document(doc.id)
        self._bm25.mark_dirty(doc.kb_id)
        self._files.delete(doc.kb_id, doc.id, doc.file_type)

    def documents(
        self, kb_id: str, statuses: Iterable[DocumentStatus] | None = None
    ) -> list[Document]:
        self._metadata.get_kb(kb_id)
        return self._metadata.list_documents(kb_id, statuses)
