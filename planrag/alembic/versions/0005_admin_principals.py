"""Admin API keys and users: they manage keys and users through the /admin routes.

Revision ID: 0005_admin
Revises: 0004_queue
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_admin"
down_revision = "0004_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("api_keys", "users"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("admin", sa.Boolean, nullable=False, server_default=sa.false())
            )


def downgrade() -> None:
    for table in ("api_keys", "users"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("admin")
