"""PostgreSQL for tests: one embedded server (pgserver's binaries) for the whole session, on a
unix socket only, stopped afterwards; a fresh database per test."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from planrag.stores.postgres import EmbeddedPostgres


def sqlalchemy_url(conninfo: str) -> str:
    """The SQLAlchemy (psycopg 3) URL of a unix-socket libpq connection string."""
    parts = conninfo_to_dict(conninfo)
    host = quote(str(parts["host"]), safe="")
    return (
        f"postgresql+psycopg://{parts['user']}@/{parts['dbname']}?host={host}&port={parts['port']}"
    )


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
