"""Metadata DB tables (SQLAlchemy 2). Chunks are kept here so any index can be rebuilt."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from planrag.stores.kb_rows import aware

__all__ = ["aware"]  # re-exported: the stores import it from here


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class KnowledgeBaseRow(Base):
    __tablename__ = "knowledge_bases"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True, nullable=False)
    description: Mapped[str] = mapped_column(Text, default="", nullable=False)
    top_k: Mapped[int] = mapped_column(Integer, default=5, nullable=False)
    score_threshold: Mapped[float] = mapped_column(Float, default=0.0, nullable=False)
    metric: Mapped[str] = mapped_column(String(10), default="COSINE", nullable=False)
    chunking: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    embedding_model: Mapped[str] = mapped_column(String(500), nullable=False)
    embedding_dim: Mapped[int] = mapped_column(Integer, nullable=False)
    graph_backend: Mapped[str] = mapped_column(String(20), default="none", nullable=False)
    user_words: Mapped[list[str]] = mapped_column(
        JSON, default=list, server_default=text("'[]'"), nullable=False
    )
    calibration: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    vector_store: Mapped[str] = mapped_column(
        String(20), default="milvus", server_default=text("'milvus'"), nullable=False
    )
    vector_generation: Mapped[int] = mapped_column(
        Integer, default=0, server_default=text("0"), nullable=False
    )
    reindex: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    per_user: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )


class DocumentRow(Base):
    __tablename__ = "documents"
    __table_args__ = (
        Index("ix_documents_kb_hash", "kb_id", "content_hash", unique=True),
        Index("ix_documents_status", "status"),
        Index("ix_documents_kb_user", "kb_id", "user_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kb_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("knowledge_bases.id", ondelete="CASCADE"), nullable=False
    )
    filename: Mapped[str] = mapped_column(String(500), nullable=False)
    file_type: Mapped[str] = mapped_column(String(10), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    # What indexing is doing ("graph: extracting 12/40 chunks"), or a note on the result.
    progress: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The same as a code and parameters (core/messages.py), and the error's.
    progress_detail: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error_detail: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    title: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    author: Mapped[str | None] = mapped_column(String(200), nullable=True)
    domain: Mapped[str | None] = mapped_column(String(200), nullable=True)
    date: Mapped[str | None] = mapped_column(String(10), nullable=True)
    info: Mapped[str | None] = mapped_column(Text, nullable=True)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list, nullable=False)
    user_id: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the owner
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )


class ChunkRow(Base):
    __tablename__ = "chunks"
    __table_args__ = (Index("ix_chunks_doc_position", "doc_id", "position"),)

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    doc_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("documents.id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(10), default="chunk", nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    parent_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    start: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    end: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    # Lexical tokens (space-joined) for rebuilding the BM25 index without re-analysing text.
    tokens: Mapped[str | None] = mapped_column(Text, nullable=True)


class GraphExtractionRow(Base):
    """An LLM graph extraction of one chunk text, by hash of (extractor, model, text)."""

    __tablename__ = "graph_extractions"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TraceRow(Base):
    """One ask: the question, the plan envelope, stage counts and timings, hits and answer."""

    __tablename__ = "traces"
    __table_args__ = (Index("ix_traces_created_at", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    principal: Mapped[str | None] = mapped_column(String(200), nullable=True)
    knowledge_bases: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    source: Mapped[str] = mapped_column(String(20), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)


class ApiKeyRow(Base):
    """An API key, stored as a hash; `knowledge_bases` (names) limits it, null = every KB."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    key_hash: Mapped[str] = mapped_column(String(128), nullable=False, unique=True)
    knowledge_bases: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    # May manage keys and users (the /admin routes); never limited to knowledge bases.
    admin: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    # Knowledge bases (names) whose settings it may change (PATCH, DELETE, reindex).
    manage: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class UserRow(Base):
    """An OAuth2 password-flow user; `knowledge_bases` (names) limits them, null = every KB."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    username: Mapped[str] = mapped_column(String(200), nullable=False, unique=True)
    password_hash: Mapped[str] = mapped_column(String(256), nullable=False)
    knowledge_bases: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    disabled: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    admin: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    manage: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)  # as ApiKeyRow's
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class IngestionJobRow(Base):
    """A document waiting for a worker (queue mode `database`). A worker claims a job by taking
    its lease; a lease that expires (the worker died) lets another worker take it over."""

    __tablename__ = "ingestion_jobs"
    __table_args__ = (Index("ix_ingestion_jobs_lease", "lease_expires_at", "enqueued_at"),)

    doc_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kb_id: Mapped[str] = mapped_column(String(36), nullable=False)
    enqueued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    lease_owner: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )


class IndexVersionRow(Base):
    """A counter per knowledge base and index kind, bumped by whichever process changes that
    index; other processes compare it with the version they hold and reload when it moved."""

    __tablename__ = "index_versions"

    kb_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class ConversationRow(Base):
    """A conversation's turns (what each left for the next: question, standalone question, KBs,
    time, sources, answer), kept for follow-up questions; scoped to the principal that owns it."""

    __tablename__ = "conversations"
    __table_args__ = (Index("ix_conversations_updated_at", "updated_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    principal: Mapped[str] = mapped_column(String(200), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    turns: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
