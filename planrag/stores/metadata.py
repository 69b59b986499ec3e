"""The metadata store: knowledge bases, documents and chunks in SQLite or PostgreSQL."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Engine, Select, create_engine, delete, event, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from planrag.core.errors import DocumentNotFound, KnowledgeBaseExists, KnowledgeBaseNotFound
from planrag.core.messages import Message
from planrag.core.types import (
    Chunk,
    ChunkKind,
    Document,
    DocumentMetadata,
    DocumentStatus,
    KnowledgeBase,
    KnowledgeBaseStats,
)
from planrag.stores.kb_rows import kb_from_row
from planrag.stores.lexical import LexicalRow
from planrag.stores.tables import ChunkRow, DocumentRow, KnowledgeBaseRow, aware, utcnow

KB_UPDATABLE = {
    "name",
    "description",
    "top_k",
    "score_threshold",
    "chunking",
    "user_words",
    "per_user",
    "calibration",
    # a reindex's progress, and its switch (model, dimension and generation in one commit)
    "reindex",
    "embedding_model",
    "embedding_dim",
    "vector_generation",
}


def make_engine(url: str) -> Engine:
    """An engine with SQLite made safe for a threaded server (FKs on, WAL, busy timeout)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def _kb(row: KnowledgeBaseRow) -> KnowledgeBase:
    return kb_from_row(row)


def _message(stored: dict[str, Any] | None) -> Message | None:
    return Message.model_validate(stored) if stored else None


def _doc(row: DocumentRow) -> Document:
    return Document(
        id=row.id,
        kb_id=row.kb_id,
        filename=row.filename,
        file_type=row.file_type,  # type: ignore[arg-type]
        status=DocumentStatus(row.status),
        error=row.error,
        size=row.size,
        content_hash=row.content_hash,
        chunk_count=row.chunk_count,
        progress=row.progress,
        progress_detail=_message(row.progress_detail),
        error_detail=_message(row.error_detail),
        metadata=DocumentMetadata(
            title=row.title,
            author=row.author,
            domain=row.domain,
            date=row.date,
            info=row.info,
            tags=list(row.tags or []),
            user_id=row.user_id,
        ),
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
    )


def _chunk(row: ChunkRow) -> Chunk:
    return Chunk(
        id=row.id,
        doc_id=row.doc_id,
        position=row.position,
        text=row.text,
        kind=ChunkKind(row.kind),
        parent_id=row.parent_id,
        page=row.page,
        start=row.start,
        end=row.end,
    )


SelectT = TypeVar("SelectT", bound=Select)  # type: ignore[type-arg]


def _searchable(query: SelectT, kb_id: str) -> SelectT:
    """`query` over the searchable chunks (not parents) of the KB's completed documents."""
    return query.join(DocumentRow, DocumentRow.id == ChunkRow.doc_id).where(
        DocumentRow.kb_id == kb_id,
        DocumentRow.status == DocumentStatus.completed.value,
        ChunkRow.kind != ChunkKind.parent.value,
    )


class MetadataStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as s, s.begin():
            yield s

    # ── knowledge bases ────────────────────────────────────────────────────────────────
    def create_kb(self, kb: KnowledgeBase) -> KnowledgeBase:
        data = kb.model_dump(mode="json")
        data["created_at"], data["updated_at"] = kb.created_at, kb.updated_at
        try:
            with self.session() as s:
                s.add(KnowledgeBaseRow(**data))
        except IntegrityError as exc:
            raise KnowledgeBaseExists(
                f"a knowledge base named '{kb.name}' exists", name=kb.name
            ) from exc
        return self.get_kb(kb.id)

    def _kb_row(self, s: Session, kb_id: str) -> KnowledgeBaseRow:
        row = s.get(KnowledgeBaseRow, kb_id)
        if row is None:
            raise KnowledgeBaseNotFound(
                f"knowledge base '{kb_id}' not found", kb_id=kb_id, kb=kb_id
            )
        return row

    def get_kb(self, kb_id: str) -> KnowledgeBase:
        with self.session() as s:
            return _kb(self._kb_row(s, kb_id))

    def get_kb_by_name(self, name: str) -> KnowledgeBase:
        with self.session() as s:
            row = s.scalars(select(KnowledgeBaseRow).where(KnowledgeBaseRow.name == name)).first()
            if row is None:
                raise KnowledgeBaseNotFound(
                    f"knowledge base '{name}' not found", name=name, kb=name
                )
            return _kb(row)

    def list_kbs(self) -> list[KnowledgeBase]:
        with self.session() as s:
            rows = s.scalars(select(KnowledgeBaseRow).order_by(KnowledgeBaseRow.created_at))
            return [_kb(r) for r in rows]

    def kb_stats(self, kb_ids: Iterable[str]) -> dict[str, KnowledgeBaseStats]:
        ids = list(kb_ids)
        stats = {kb_id: KnowledgeBaseStats() for kb_id in ids}
        query = (
            select(
                DocumentRow.kb_id,
                func.count(DocumentRow.id),
                func.coalesce(func.sum(DocumentRow.chunk_count), 0),
                func.coalesce(func.sum(DocumentRow.size), 0),
                func.max(DocumentRow.updated_at),
            )
            .where(DocumentRow.kb_id.in_(ids))
            .group_by(DocumentRow.kb_id)
        )
        with self.session() as s:
            for kb_id, n_docs, n_chunks, size, last in s.execute(query):
                stats[kb_id] = KnowledgeBaseStats(
                    document_count=n_docs,
                    chunk_count=n_chunks,
                    size_bytes=size,
                    last_updated=aware(last) if last else None,
                )
        return stats

    def update_kb(self, kb_id: str, changes: dict[str, Any]) -> KnowledgeBase:
        unknown = set(changes) - KB_UPDATABLE
        if unknown:
            raise ValueError(f"not updatable: {sorted(unknown)}")
        try:
            with self.session() as s:
                row = self._kb_row(s, kb_id)
                for key, value in changes.items():
                    setattr(row, key, value)
                row.updated_at = utcnow()
        except IntegrityError as exc:
            name = str(changes.get("name"))
            raise KnowledgeBaseExists(f"a knowledge base named '{name}' exists", name=name) from exc
        return self.get_kb(kb_id)

    def delete_kb(self, kb_id: str) -> None:
        with self.session() as s:
            row = self._kb_row(s, kb_id)
            doc_ids = select(DocumentRow.id).where(DocumentRow.kb_id == kb_id)
            s.execute(delete(ChunkRow).where(ChunkRow.doc_id.in_(doc_ids)))
            s.execute(delete(DocumentRow).where(DocumentRow.kb_id == kb_id))
            s.delete(row)

    # ── documents ──────────────────────────────────────────────────────────────────────
    def add_document(
        self,
        kb_id: str,
        filename: str,
        file_type: str,
        size: int,
        content_hash: str,
        metadata: DocumentMetadata,
        doc_id: str | None = None,
    ) -> tuple[Document, bool]:
        """Create a pending document, or return the existing one with the same content.

        Returns (document, created). Idempotent per (kb_id, content_hash). `doc_id` gives the
        new document a caller-chosen id (a stable id derived from the document) instead of a
        random one.
        """
        with self.session() as s:
            self._kb_row(s, kb_id)
            existing = s.scalars(
                select(DocumentRow).where(
                    DocumentRow.kb_id == kb_id, DocumentRow.content_hash == content_hash
                )
            ).first()
            if existing is not None:
                return _doc(existing), False
            meta = metadata.model_dump()
            row = DocumentRow(
                id=doc_id or str(uuid.uuid4()),
                kb_id=kb_id,
                filename=filename,
                file_type=file_type,
                status=DocumentStatus.pending.value,
                size=size,
                content_hash=content_hash,
                **meta,
            )
            s.add(row)
            s.flush()
            return _doc(row), True

    def _doc_row(self, s: Session, doc_id: str, kb_id: str | None = None) -> DocumentRow:
        row = s.get(DocumentRow, doc_id)
        if row is None or (kb_id is not None and row.kb_id != kb_id):
            raise DocumentNotFound(f"document '{doc_id}' not found", doc_id=doc_id)
        return row

    def get_document(self, doc_id: str, kb_id: str | None = None) -> Document:
        with self.session() as s:
            return _doc(self._doc_row(s, doc_id, kb_id))

    def list_documents(
        self, kb_id: str | None = None, statuses: Iterable[DocumentStatus] | None = None
    ) -> list[Document]:
        query = select(DocumentRow).order_by(DocumentRow.created_at)
        if kb_id is not None:
            query = query.where(DocumentRow.kb_id == kb_id)
        if statuses is not None:
            query = query.where(DocumentRow.status.in_([st.value for st in statuses]))
        with self.session() as s:
            return [_doc(r) for r in s.scalars(query)]

    def set_status(
        self,
        doc_id: str,
        status: DocumentStatus,
        error: str | Message | None = None,
        chunk_count: int | None = None,
    ) -> None:
        """A document's status; an error given as a `Message` keeps its code and parameters."""
        detail = error if isinstance(error, Message) else None
        values: dict[str, Any] = {
            "status": status.value,
            "error": error.text if isinstance(error, Message) else error,
            "error_detail": detail.model_dump() if detail else None,
            "updated_at": utcnow(),
        }
        if chunk_count is not None:
            values["chunk_count"] = chunk_count
        with self.session() as s:
            s.execute(update(DocumentRow).where(DocumentRow.id == doc_id).values(**values))

    def set_document_metadata(self, doc_id: str, metadata: DocumentMetadata) -> Document:
        """Replace a document's metadata (title, author, domain, date, info, tags)."""
        values = {**metadata.model_dump(), "updated_at": utcnow()}
        with self.session() as s:
            s.execute(update(DocumentRow).where(DocumentRow.id == doc_id).values(**values))
            return _doc(self._doc_row(s, doc_id))

    def set_progress(self, doc_id: str, progress: Message | None) -> None:
        """What indexing is doing, or a note on its result; None clears it."""
        values = {
            "progress": progress.text if progress else None,
            "progress_detail": progress.model_dump() if progress else None,
        }
        with self.session() as s:
            s.execute(update(DocumentRow).where(DocumentRow.id == doc_id).values(**values))

    def delete_document(self, doc_id: str) -> None:
        with self.session() as s:
            s.execute(delete(ChunkRow).where(ChunkRow.doc_id == doc_id))
            s.execute(delete(DocumentRow).where(DocumentRow.id == doc_id))

    # ── chunks ─────────────────────────────────────────────────────────────────────────
    def replace_chunks(
        self, doc_id: str, chunks: list[Chunk], tokens: dict[str, list[str]] | None = None
    ) -> None:
        """Store a document's chunks (and the lexical tokens of the searchable ones)."""
        tokens = tokens or {}
        with self.session() as s:
            s.execute(delete(ChunkRow).where(ChunkRow.doc_id == doc_id))
            s.add_all(
                ChunkRow(
                    **c.model_dump(),
                    tokens=" ".join(tokens[c.id]) if c.id in tokens else None,
                )
                for c in chunks
            )

    def lexical_rows(self, kb_id: str) -> list[LexicalRow]:
        """Searchable chunks of a KB's completed documents with their tokens and metadata."""
        query = _searchable(
            select(
                ChunkRow.id,
                ChunkRow.doc_id,
                ChunkRow.tokens,
                DocumentRow.title,
                DocumentRow.filename,
                DocumentRow.author,
                DocumentRow.domain,
                DocumentRow.date,
            ),
            kb_id,
        ).order_by(ChunkRow.doc_id, ChunkRow.position)
        with self.session() as s:
            return [
                LexicalRow(
                    chunk_id=cid,
                    doc_id=did,
                    tokens=(tokens or "").split(),
                    title=title or filename,
                    author=author or "",
                    domain=domain or "",
                    date=int(date.replace("-", "")) if date else 0,
                )
                for cid, did, tokens, title, filename, author, domain, date in s.execute(query)
            ]

    def chunk_counts(
        self, kb_id: str, doc_ids: list[str] | None = None
    ) -> dict[str, tuple[int, int]]:
        """Per document of the KB (or of `doc_ids`): (searchable chunk rows, those with BM25
        tokens)."""
        query = (
            select(ChunkRow.doc_id, func.count(ChunkRow.id), func.count(ChunkRow.tokens))
            .join(DocumentRow, DocumentRow.id == ChunkRow.doc_id)
            .where(DocumentRow.kb_id == kb_id, ChunkRow.kind != ChunkKind.parent.value)
            .group_by(ChunkRow.doc_id)
        )
        if doc_ids is not None:
            query = query.where(ChunkRow.doc_id.in_(doc_ids))
        with self.session() as s:
            return {doc_id: (int(n), int(t)) for doc_id, n, t in s.execute(query)}

    def delete_chunks(self, doc_id: str) -> None:
        with self.session() as s:
            s.execute(delete(ChunkRow).where(ChunkRow.doc_id == doc_id))

    def list_chunks(self, doc_id: str, kinds: Iterable[ChunkKind] | None = None) -> list[Chunk]:
        query = select(ChunkRow).where(ChunkRow.doc_id == doc_id).order_by(ChunkRow.position)
        if kinds is not None:
            query = query.where(ChunkRow.kind.in_([k.value for k in kinds]))
        with self.session() as s:
            return [_chunk(r) for r in s.scalars(query)]

    def get_chunks(self, chunk_ids: Iterable[str]) -> dict[str, Chunk]:
        ids = list(chunk_ids)
        if not ids:
            return {}
        with self.session() as s:
            return {
                r.id: _chunk(r) for r in s.scalars(select(ChunkRow).where(ChunkRow.id.in_(ids)))
            }

    def searchable_chunk_count(self, kb_id: str) -> int:
        """Searchable chunks (not parents) of the KB's completed documents."""
        query = _searchable(select(func.count(ChunkRow.id)), kb_id)
        with self.session() as s:
            return int(s.scalar(query) or 0)

    def sample_chunks(self, kb_id: str, n: int, seed: int) -> list[tuple[str, str]]:
        """Up to n searchable chunks of completed documents, chosen by their content (a hash of
        seed and text): the same documents give the same sample, whatever their chunk ids."""
        query = _searchable(select(ChunkRow.id, ChunkRow.text), kb_id)
        with self.session() as s:
            rows = [(cid, text) for cid, text in s.execute(query)]
        salt = str(seed).encode()
        rows.sort(key=lambda row: (hashlib.blake2b(salt + row[1].encode()).digest(), row[0]))
        return rows[:n]

    def get_documents(self, doc_ids: Iterable[str]) -> dict[str, Document]:
        ids = list(doc_ids)
        if not ids:
            return {}
        with self.session() as s:
            rows = s.scalars(select(DocumentRow).where(DocumentRow.id.in_(ids)))
            return {r.id: _doc(r) for r in rows}
