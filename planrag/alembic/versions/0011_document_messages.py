"""A document's progress and error as a code with parameters (`core/messages.py`), beside their
English text, so the console can show them in the user's language.

Revision ID: 0011_document_messages
Revises: 0010_manage_permission
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_document_messages"
down_revision = "0010_manage_permission"
branch_labels = None
depends_on = None

COLUMNS = ("progress_detail", "error_detail")


def upgrade() -> None:
    # Plain ADD COLUMN, never batch mode (a SQLite table copy would cascade; see 0007).
    for column in COLUMNS:
        op.add_column("documents", sa.Column(column, sa.JSON, nullable=True))


def downgrade() -> None:
    for column in COLUMNS:
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE documents DROP COLUMN {column}")
        else:
            op.drop_column("documents", column)
