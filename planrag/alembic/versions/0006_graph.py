"""Graph RAG: a document's progress line, and the cache of LLM graph extractions.

Revision ID: 0006_graph
Revises: 0005_admin
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_graph"
down_revision = "0005_admin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.add_column(sa.Column("progress", sa.Text, nullable=True))
    op.create_table(
        "graph_extractions",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("graph_extractions")
    with op.batch_alter_table("documents") as batch:
        batch.drop_column("progress")
