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
    with op.batch_alter_table("knowledge_bases") as batch:
        batch.add_column(
            sa.Column("vector_generation", sa.Integer, nullable=False, server_default=sa.text("0"))
        )
        batch.add_column(sa.Column("reindex", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("knowledge_bases") as batch:
        batch.drop_column("reindex")
        batch.drop_column("vector_generation")
