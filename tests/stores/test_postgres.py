"""What only PostgreSQL has: the embedded server's life cycle, the HNSW index and the exact-scan
fallback for selective filters (pgvector 0.6.2 has no iterative scan)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from planrag.core.errors import StoreUnavailable
from planrag.core.filters import Eq
from planrag.core.settings import PgSettings
from planrag.stores.pgvector import PgVectorStore, table_name
from planrag.stores.postgres import EmbeddedPostgres, PostgresProvider, pgserver_bin_dir
from planrag.stores.vector import VectorRecord
from planrag.testing.vector_store import DIM, unit

N = 3000


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A directory the `postgres` OS user can enter (pytest's tmp_path is private to root)."""
    root = Path(tempfile.mkdtemp(prefix="planrag-pg-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_embedded_server_starts_on_first_use_and_stops_on_close(reachable_dir: Path) -> None:
    pgdata = reachable_dir / "pg"
    provider = PostgresProvider(PgSettings(), pgdata)
    assert not pgdata.exists()  # nothing started by constructing it
    conninfo = provider.conninfo()
    with psycopg.connect(conninfo) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)  # unix socket only
        assert conn.execute("SELECT current_database()").fetchone() == ("planrag",)
    assert (pgdata / "postmaster.pid").exists()
    provider.close()
    assert not (pgdata / "postmaster.pid").exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(conninfo, connect_timeout=2).close()
    # A second start reuses the data directory.
    again = PostgresProvider(PgSettings(), pgdata)
    try:
        store = PgVectorStore(again.conninfo())
        store.create_collection("kb", DIM, "COSINE")
        store.close()
    finally:
        again.close()


def test_url_mode_never_starts_a_server(reachable_dir: Path, pg_database: str) -> None:
    provider = PostgresProvider(PgSettings(url=pg_database), reachable_dir / "pg")
    assert provider.conninfo() == pg_database
    provider.close()
    assert not (reachable_dir / "pg").exists()


@pytest.fixture
def rare(pg_database: str) -> Iterator[tuple[PgVectorStore, np.ndarray]]:
    # exact_scan_rows=0: every filtered search takes the HNSW path first.
    store = PgVectorStore(pg_database, PgSettings(exact_scan_rows=0, ef_search=40))
    vectors = unit(np.random.default_rng(9), N)
    store.create_collection("kb", DIM, "COSINE")
    store.upsert(
        "kb",
        [
            VectorRecord(
                chunk_id=f"c{i}",
                doc_id=f"d{i}",
                text="t",
                author="rare" if i % 200 == 7 else "common",
                vector=v.tolist(),
            )
            for i, v in enumerate(vectors)
        ],
    )
    yield store, vectors
    store.close()


def test_the_hnsw_index_is_built_once_the_kb_outgrows_exact_scans(pg_database: str) -> None:
    store = PgVectorStore(pg_database, PgSettings(exact_scan_rows=50))
    vectors = unit(np.random.default_rng(2), 80)
    store.create_collection("kb", DIM, "L2")
    rows = [
        VectorRecord(chunk_id=f"c{i}", doc_id="d", text="t", vector=v.tolist())
        for i, v in enumerate(vectors)
    ]
    index = f"{table_name('kb')}_hnsw"
    with psycopg.connect(pg_database, autocommit=True) as conn:

        def has_index() -> bool:
            row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [index]).fetchone()
            return bool(row and row[0])

        store.upsert("kb", rows[:50])
        assert not has_index()
        assert store.search("kb", vectors[7].tolist(), 1)[0].chunk_id == "c7"  # exact
        store.upsert("kb", rows[50:])
        assert has_index()
        opclass = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index]
        ).fetchone()
    assert opclass and "vector_l2_ops" in opclass[0] and "hnsw" in opclass[0]
    assert store.search("kb", vectors[60].tolist(), 1)[0].chunk_id == "c60"
    store.close()


def test_searches_go_through_the_hnsw_index(rare, pg_database: str) -> None:
    query = "[" + ",".join(["0.25"] * DIM) + "]"
    with psycopg.connect(pg_database) as conn:
        plan = conn.execute(
            f"EXPLAIN SELECT chunk_id FROM {table_name('kb')} "  # noqa: S608  (test-made names)
            "ORDER BY embedding <=> %s::vector LIMIT 10",
            [query],
        ).fetchall()
    assert "hnsw" in " ".join(row[0] for row in plan)


def test_a_filter_hnsw_cannot_fill_falls_back_to_an_exact_scan(rare, pg_database) -> None:
    store, vectors = rare
    query = vectors[0]
    rows = [i for i in range(N) if i % 200 == 7]  # 15 rows, 0.5 %
    # pgvector 0.6.2 alone: HNSW visits ef_search rows, then filters: far fewer than 10.
    with psycopg.connect(pg_database) as conn, conn.transaction():
        conn.execute("SET LOCAL hnsw.ef_search = 40")
        conn.execute("SET LOCAL enable_seqscan = off")  # the planner may avoid HNSW here
        raw = conn.execute(
            f"SELECT chunk_id FROM {table_name('kb')} WHERE author = 'rare' "  # noqa: S608
            "ORDER BY embedding <=> %s::vector LIMIT 10",
            [str(query.tolist())],
        ).fetchall()
    assert len(raw) < 10
    hits = store.search("kb", query.tolist(), 10, Eq(field="author", value="rare"))
    exact = sorted(rows, key=lambda i: float(vectors[i] @ query), reverse=True)[:10]
    assert [h.chunk_id for h in hits] == [f"c{i}" for i in exact]
    # Asking for more than match: every matching row, no error.
    assert len(store.search("kb", query.tolist(), 50, Eq(field="author", value="rare"))) == 15


def test_a_broad_filter_on_an_indexed_kb_goes_through_hnsw(rare, monkeypatch) -> None:
    store, vectors = rare
    query = vectors[3]
    scans: list[bool] = []
    scan = PgVectorStore._scan

    def spy(*args, exact: bool):  # type: ignore[no-untyped-def]
        scans.append(exact)
        return scan(*args, exact=exact)

    monkeypatch.setattr(PgVectorStore, "_scan", staticmethod(spy))
    hits = store.search("kb", query.tolist(), 10, Eq(field="author", value="common"))
    assert scans == [False]  # HNSW, and it filled top_k: no exact fallback
    store.search("kb", query.tolist(), 10, Eq(field="author", value="rare"))
    assert scans == [False, True]  # 0.5 %: straight to the exact scan
    assert len(hits) == 10 and {h.author for h in hits} == {"common"}
    allowed = [i for i in range(N) if i % 200 != 7]
    exact = sorted(allowed, key=lambda i: float(vectors[i] @ query), reverse=True)[:10]
    assert len({h.chunk_id for h in hits} & {f"c{i}" for i in exact}) >= 8


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the server as another OS user")
def test_binaries_in_a_private_venv_are_copied_where_postgres_can_run_them(
    reachable_dir: Path,
) -> None:
    site = pgserver_bin_dir().parents[2]
    private = Path(tempfile.mkdtemp(prefix="planrag-private-"))  # 0700, like /root
    parts = ["pgserver/pginstall/bin", "pgserver/pginstall/lib", "pgserver/pginstall/share"]
    try:
        for part in [*parts, "pgserver.libs"]:
            shutil.copytree(site / part, private / part, symlinks=True)
        server = EmbeddedPostgres(reachable_dir / "pg", bin_dir=private / parts[0])
        copy_root = server._bin.parents[2]
        try:
            server.start()
            with psycopg.connect(server.conninfo()) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        finally:
            server.stop()
            shutil.rmtree(copy_root, ignore_errors=True)
        with pytest.raises(StoreUnavailable, match="traversable"):
            EmbeddedPostgres(private / "pg").start()  # a data dir it cannot reach: said so
    finally:
        shutil.rmtree(private, ignore_errors=True)
