"""Lexical tokens per chunk, per-KB user words and fusion calibration.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chunks") as batch:
        batch.add_column(sa.Column("tokens", sa.Text, nullable=True))
    with op.batch_alter_table("knowledge_bases") as batch:
        batch.add_column(
            sa.Column("user_words", sa.JSON, nullable=False, server_default=sa.text("'[]'"))
        )
        batch.add_column(sa.Column("calibration", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("knowledge_bases") as batch:
        batch.drop_column("calibration")
        batch.drop_column("user_words")
    with op.batch_alter_table("chunks") as batch:
        batch.drop_column("tokens")
