"""The manage permission: the knowledge bases (names) whose settings a non-admin key or user may
change (PATCH, DELETE, reindex of /api/knowledge-bases/{kb}); null = none.

Revision ID: 0010_manage_permission
Revises: 0009_document_owners
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_manage_permission"
down_revision = "0009_document_owners"
branch_labels = None
depends_on = None

TABLES = ("api_keys", "users")


def upgrade() -> None:
    # Plain ADD COLUMN (nullable, no default): no table copy on SQLite.
    for table in TABLES:
        op.add_column(table, sa.Column("manage", sa.JSON, nullable=True))


def downgrade() -> None:
    for table in TABLES:
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {table} DROP COLUMN manage")
        else:
            op.drop_column(table, "manage")
