"""PostgreSQL for tests: one embedded server (pgserver's binaries) for the whole session, on a
unix socket only, stopped afterwards; a fresh database per test."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from planrag.stores.postgres import EmbeddedPostgres, sqlalchemy_url

__all__ = ["pg_database", "pg_server", "sqlalchemy_url"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[EmbeddedPostgres]:
    # Under the temp dir, not pytest's tmp_path: as root the server runs as the `postgres`
    # user, who cannot enter pytest's private (0700) base directory.
    root = Path(tempfile.mkdtemp(prefix="planrag-test-pg-"))
    root.chmod(0o755)
    server = EmbeddedPostgres(root / "data")
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server: EmbeddedPostgres) -> Iterator[str]:
    """A new empty database for one test; yields its libpq connection string."""
    name = f"test_{uuid.uuid4().hex[:12]}"
    admin = pg_server.conninfo("postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield pg_server.conninfo(name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
