"""Per-user documents (spec 002 `user_id`): a document's owner and a knowledge base's
`per_user` flag.

Revision ID: 0009_document_owners
Revises: 0008_conversations
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_document_owners"
down_revision = "0008_conversations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, never batch mode (a SQLite table copy of knowledge_bases would cascade
    # into every document; see 0007).
    op.add_column("documents", sa.Column("user_id", sa.String(200), nullable=True))
    op.create_index("ix_documents_kb_user", "documents", ["kb_id", "user_id"])
    op.add_column(
        "knowledge_bases",
        sa.Column("per_user", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_index("ix_documents_kb_user", table_name="documents")
    # SQLite >= 3.35 drops a column in place (no table copy, no cascade).
    for table, column in (("knowledge_bases", "per_user"), ("documents", "user_id")):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
