"""Knowledge bases, documents and chunks.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowledge_bases",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("top_k", sa.Integer, nullable=False),
        sa.Column("score_threshold", sa.Float, nullable=False),
        sa.Column("metric", sa.String(10), nullable=False),
        sa.Column("chunking", sa.JSON, nullable=False),
        sa.Column("embedding_model", sa.String(500), nullable=False),
        sa.Column("embedding_dim", sa.Integer, nullable=False),
        sa.Column("graph_backend", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "kb_id",
            sa.String(36),
            sa.ForeignKey("knowledge_bases.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("filename", sa.String(500), nullable=False),
        sa.Column("file_type", sa.String(10), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("chunk_count", sa.Integer, nullable=False),
        sa.Column("title", sa.String(1000)),
        sa.Column("author", sa.String(200)),
        sa.Column("domain", sa.String(200)),
        sa.Column("date", sa.String(10)),
        sa.Column("info", sa.Text),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_documents_kb_hash", "documents", ["kb_id", "content_hash"], unique=True)
    op.create_index("ix_documents_status", "documents", ["status"])
    op.create_table(
        "chunks",
        sa.Column("id", sa.String(80), primary_key=True),
        sa.Column(
            "doc_id",
            sa.String(36),
            sa.ForeignKey("documents.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("parent_id", sa.String(80)),
        sa.Column("page", sa.Integer),
        sa.Column("start", sa.Integer, nullable=False),
        sa.Column("end", sa.Integer, nullable=False),
    )
    op.create_index("ix_chunks_doc_position", "chunks", ["doc_id", "position"])


def downgrade() -> None:
    op.drop_index("ix_chunks_doc_position", table_name="chunks")
    op.drop_table("chunks")
    op.drop_index("ix_documents_status", table_name="documents")
    op.drop_index("ix_documents_kb_hash", table_name="documents")
    op.drop_table("documents")
    op.drop_table("knowledge_bases")
