"""The durable ingestion queue (queue mode `database`) and index version stamps shared by
several processes.

Revision ID: 0004_queue
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_queue"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ingestion_jobs",
        sa.Column("doc_id", sa.String(36), primary_key=True),
        sa.Column("kb_id", sa.String(36), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_ingestion_jobs_lease", "ingestion_jobs", ["lease_expires_at", "enqueued_at"]
    )
    op.create_table(
        "index_versions",
        sa.Column("kb_id", sa.String(36), primary_key=True),
        sa.Column("kind", sa.String(20), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("index_versions")
    op.drop_index("ix_ingestion_jobs_lease", table_name="ingestion_jobs")
    op.drop_table("ingestion_jobs")
