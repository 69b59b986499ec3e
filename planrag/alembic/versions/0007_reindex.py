"""A knowledge base's vector generation and its last reindex (re-embedding with another model).

Revision ID: 0007_reindex
Revises: 0006_graph
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_reindex"
down_revision = "0006_graph"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, never batch mode: on SQLite a batch "move and copy" drops and recreates
    # knowledge_bases, and with foreign keys on that cascades into every document.
    op.add_column(
        "knowledge_bases",
        sa.Column("vector_generation", sa.Integer, nullable=False, server_default=sa.text("0")),
    )
    op.add_column("knowledge_bases", sa.Column("reindex", sa.JSON, nullable=True))


def downgrade() -> None:
    # SQLite ≥ 3.35 drops a column in place (no table copy, no cascade).
    for column in ("reindex", "vector_generation"):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE knowledge_bases DROP COLUMN {column}")
        else:
            op.drop_column("knowledge_bases", column)
