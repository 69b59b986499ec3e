"""PostgreSQL + pgvector vector store (psycopg 3, every value a bound parameter).

Layout: **one table per knowledge base** (`planrag_kb_<uuid hex>`: chunk_id primary key, doc_id,
text, title, author, domain, date, `embedding vector(dim)`), plus one of title vectors per KB
(`…_titles`: doc_id primary key, embedding), and a registry (`planrag_vector_collections`:
kb_id → table, dimension, metric). Per-KB tables rather than one table with a kb_id column
because (1) KBs differ in dimension (the embedding model is a KB setting) and an HNSW index needs
a fixed one; (2) pgvector 0.6 filters *after* the HNSW scan, so with one shared index every
search would be a filtered search that returns fewer than top_k rows for a small KB; (3) each KB
gets the operator class of its metric (`vector_cosine_ops`, `vector_l2_ops`, `vector_ip_ops`);
(4) dropping a KB is a DROP TABLE. Table names are built from the KB id (a UUID's hex or a hash)
and quoted with `psycopg.sql.Identifier`; HNSW build parameters are integers from settings.

Exact below `exact_scan_rows` (default 10,000): an exact scan of that many 384-d rows takes
≈ 7 ms, while inserting into an HNSW index costs ≈ 1 ms a row on these machines (bulk-building
it ≈ 0.2 ms a row). So a KB's HNSW index is built in one go when an upsert first takes the KB
past that many rows, and kept up to date from then on; until then every search is exact.

Selective filters: pgvector 0.6.2 has no iterative scan, so an HNSW search with a filter keeps
only the matching rows among the `hnsw.ef_search` it visits. With a filter, the planner's
estimate of its selectivity s (EXPLAIN: statistics, no scan) decides: when even the widest beam
(1,000) would not hold 2·top_k matching rows, the search is exact (index scans off for the
transaction, so PostgreSQL reads the matching rows — a bitmap scan for doc_id/date filters —
and sorts them: always min(top_k, matches) rows); otherwise HNSW with `hnsw.ef_search` ≈
2·top_k / s (`SET LOCAL`, via set_config, in the transaction). An HNSW result shorter than top_k
while more rows match falls back to the exact scan.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool

from planrag.core.errors import EmbeddingMismatch, StoreUnavailable
from planrag.core.filters import Filter
from planrag.core.settings import PgSettings
from planrag.core.types import Metric
from planrag.stores.sql_filter import render_sql
from planrag.stores.vector import (
    TitleRecord,
    VectorHit,
    VectorRecord,
    clamp_cosine,
    cosine_from_distance,
)

REGISTRY = sql.Identifier("planrag_vector_collections")
FIELDS = ["chunk_id", "doc_id", "text", "title", "author", "domain", "date"]
OPERATORS: dict[str, tuple[str, str]] = {  # metric → (distance operator, operator class)
    "COSINE": ("<=>", "vector_cosine_ops"),
    "L2": ("<->", "vector_l2_ops"),
    "IP": ("<#>", "vector_ip_ops"),
}
MAX_EF_SEARCH = 1000
_UUID = re.compile(r"^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$")


def table_name(kb_id: str) -> str:
    """`planrag_kb_<hex>` for a UUID (every KB planrag creates), a hash of anything else."""
    if _UUID.match(kb_id):
        return "planrag_kb_" + kb_id.replace("-", "").lower()
    return "planrag_kb_h" + hashlib.sha1(kb_id.encode()).hexdigest()[:24]


def _clean(value: str) -> str:
    return value.replace("\x00", "")  # PostgreSQL text cannot hold NUL


@dataclass(frozen=True)
class _Table:
    chunks: sql.Identifier
    titles: sql.Identifier
    name: str
    dim: int
    metric: Metric

    @property
    def operator(self) -> sql.SQL:
        return sql.SQL(OPERATORS[self.metric][0])

    def score(self, distance: float) -> float:
        """Cosine in [0, 1] from the operator's value: cosine distance, L2 distance (not
        squared), or the negated inner product."""
        if self.metric == "COSINE":
            return cosine_from_distance("COSINE", 1.0 - distance)
        if self.metric == "L2":
            return cosine_from_distance("L2", distance * distance)
        return cosine_from_distance("IP", -distance)


class PgVectorStore:
    """A `VectorStore` on PostgreSQL with pgvector. Thread-safe (a connection pool)."""

    def __init__(self, conninfo: str, settings: PgSettings | None = None) -> None:
        self._settings = settings or PgSettings()
        try:
            with psycopg.connect(conninfo, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute(
                    sql.SQL(
                        "CREATE TABLE IF NOT EXISTS {} (kb_id text PRIMARY KEY, "
                        "table_name text NOT NULL UNIQUE, dim integer NOT NULL, "
                        "metric text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
                    ).format(REGISTRY)
                )
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"cannot use PostgreSQL for vectors: {exc}. The pgvector extension must exist "
                "or be creatable by this user (PLANRAG_PG__URL).",
                setting="PLANRAG_PG__URL",
            ) from exc
        self._pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=self._settings.pool_size,
            configure=register_vector,
            open=True,
            name="planrag-pgvector",
        )
        self._pool.wait(timeout=30)
        self._tables: dict[str, _Table] = {}
        self._indexed: set[str] = set()  # tables known to have their HNSW index
        self._lock = threading.Lock()

    def close(self) -> None:
        self._pool.close()

    # ── collections ────────────────────────────────────────────────────────────────────
    def create_collection(self, kb_id: str, dim: int, metric: Metric) -> None:
        name = table_name(kb_id)
        chunks, titles = sql.Identifier(name), sql.Identifier(name + "_titles")
        ddl = [
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (chunk_id text PRIMARY KEY, doc_id text NOT NULL, "
                "text text NOT NULL, title text NOT NULL DEFAULT '', "
                "author text NOT NULL DEFAULT '', domain text NOT NULL DEFAULT '', "
                "date bigint NOT NULL DEFAULT 0, embedding vector({}) NOT NULL)"
            ).format(chunks, sql.Literal(dim)),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (doc_id)").format(
                sql.Identifier(name + "_doc"), chunks
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (date)").format(
                sql.Identifier(name + "_date"), chunks
            ),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, "
                "embedding vector({}) NOT NULL)"
            ).format(titles, sql.Literal(dim)),
        ]
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(REGISTRY))
            for statement in ddl:
                conn.execute(statement)
            conn.execute(
                sql.SQL(
                    "INSERT INTO {} (kb_id, table_name, dim, metric) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (kb_id) DO NOTHING"
                ).format(REGISTRY),
                [kb_id, name, dim, metric],
            )

    def drop_collection(self, kb_id: str) -> None:
        name = table_name(kb_id)
        with self._pool.connection() as conn, conn.transaction():
            for table in (name, name + "_titles"):
                conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
            conn.execute(sql.SQL("DELETE FROM {} WHERE kb_id = %s").format(REGISTRY), [kb_id])
        with self._lock:
            self._tables.pop(kb_id, None)
            self._indexed.discard(name)

    def has_collection(self, kb_id: str) -> bool:
        return self._lookup(kb_id) is not None

    def _lookup(self, kb_id: str) -> _Table | None:
        with self._lock:
            if kb_id in self._tables:
                return self._tables[kb_id]
        with self._pool.connection() as conn:
            row = conn.execute(
                sql.SQL("SELECT table_name, dim, metric FROM {} WHERE kb_id = %s").format(REGISTRY),
                [kb_id],
            ).fetchone()
        if row is None:
            return None
        name, dim, metric = row
        table = _Table(sql.Identifier(name), sql.Identifier(name + "_titles"), name, dim, metric)
        with self._lock:
            self._tables[kb_id] = table
        return table

    def _table(self, kb_id: str) -> _Table:
        table = self._lookup(kb_id)
        if table is None:
            raise StoreUnavailable(f"no pgvector table for knowledge base '{kb_id}'")
        return table

    @staticmethod
    def _vector(table: _Table, vector: list[float], what: str) -> np.ndarray:
        if len(vector) != table.dim:
            raise EmbeddingMismatch(
                f"{what} of dimension {len(vector)} refused: the collection holds {table.dim}"
            )
        return np.asarray(vector, dtype=np.float32)

    # ── chunks ─────────────────────────────────────────────────────────────────────────
    def upsert(self, kb_id: str, records: list[VectorRecord]) -> None:
        if not records:
            return
        table = self._table(kb_id)
        rows = [
            (
                *(_clean(getattr(r, f)) for f in FIELDS[:-1]),
                r.date,
                self._vector(table, r.vector, "vector"),
            )
            for r in records
        ]
        columns = sql.SQL(", ").join(sql.Identifier(f) for f in [*FIELDS, "embedding"])
        updates = sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(f))
            for f in [*FIELDS[1:], "embedding"]
        )
        statement = sql.SQL(
            "INSERT INTO {} ({}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (chunk_id) DO UPDATE SET {}"
        ).format(table.chunks, columns, updates)
        with self._pool.connection() as conn, conn.transaction():
            with conn.cursor() as cur:
                cur.executemany(statement, rows)
            self._index_when_large(conn, table)

    def _has_index(self, conn: psycopg.Connection[Any], table: _Table) -> bool:
        if table.name in self._indexed:
            return True
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table.name + "_hnsw"]).fetchone()
        if row and row[0]:
            with self._lock:
                self._indexed.add(table.name)
            return True
        return False

    def _index_when_large(self, conn: psycopg.Connection[Any], table: _Table) -> None:
        """Build the HNSW index once the KB holds more rows than an exact scan should read."""
        cap = self._settings.exact_scan_rows
        if (
            self._has_index(conn, table)
            or self._count(conn, table, sql.SQL("TRUE"), [], cap + 1) <= cap
        ):
            return
        # Serialises concurrent upserts that cross the threshold together (reads go on).
        conn.execute(sql.SQL("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE").format(table.chunks))
        conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding {}) "
                "WITH (m = {}, ef_construction = {})"
            ).format(
                sql.Identifier(table.name + "_hnsw"),
                table.chunks,
                sql.SQL(OPERATORS[table.metric][1]),
                sql.Literal(self._settings.hnsw_m),
                sql.Literal(self._settings.hnsw_ef_construction),
            )
        )
        conn.execute(sql.SQL("ANALYZE {}").format(table.chunks))  # statistics for estimates

    def delete(self, kb_id: str, where: Filter) -> None:
        if where is None:
            raise ValueError("refusing to delete without a filter")
        table = self._table(kb_id)
        condition, params = render_sql(where)
        with self._pool.connection() as conn:
            conn.execute(sql.SQL("DELETE FROM {} WHERE {}").format(table.chunks, condition), params)

    def count(self, kb_id: str, where: Filter | None = None) -> int:
        table = self._table(kb_id)
        condition, params = render_sql(where)
        with self._pool.connection() as conn:
            row = conn.execute(
                sql.SQL("SELECT count(*) FROM {} WHERE {}").format(table.chunks, condition), params
            ).fetchone()
        return int(row[0]) if row else 0

    def doc_ids(self, kb_id: str) -> set[str]:
        table = self._table(kb_id)
        with self._pool.connection() as conn:
            rows = conn.execute(sql.SQL("SELECT DISTINCT doc_id FROM {}").format(table.chunks))
            return {r[0] for r in rows}

    def get_vectors(self, kb_id: str, chunk_ids: list[str]) -> dict[str, list[float]]:
        if not chunk_ids:
            return {}
        table = self._table(kb_id)
        with self._pool.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT chunk_id, embedding FROM {} WHERE chunk_id = ANY(%s)").format(
                    table.chunks
                ),
                [list(chunk_ids)],
            ).fetchall()
        return {cid: [float(x) for x in vector.to_numpy()] for cid, vector in rows}

    # ── search ─────────────────────────────────────────────────────────────────────────
    def search(
        self, kb_id: str, vector: list[float], top_k: int, where: Filter | None = None
    ) -> list[VectorHit]:
        table = self._table(kb_id)
        query = self._vector(table, vector, "query vector")
        condition, params = render_sql(where)
        ef = min(MAX_EF_SEARCH, max(self._settings.ef_search, top_k * 2))
        with self._pool.connection() as conn, conn.transaction():
            rows: list[tuple[Any, ...]] | None = None
            if not self._has_index(conn, table):  # a small KB: exact
                rows = self._scan(conn, table, query, top_k, condition, params, exact=True)
            elif where is not None:
                # The planner's estimate of the filter's selectivity (no scan): HNSW visits
                # ef_search rows and keeps the matching ones, so it needs ef ≈ top_k / s.
                matching = self._estimate(conn, table, condition, params)
                share = matching / max(1.0, self._estimate(conn, table, sql.SQL("TRUE"), []))
                if share * MAX_EF_SEARCH < 2 * top_k:  # too selective for HNSW to fill top_k
                    rows = self._scan(conn, table, query, top_k, condition, params, exact=True)
                else:
                    ef = min(MAX_EF_SEARCH, max(ef, math.ceil(2 * top_k / share)))
            if rows is None:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef)])
                rows = self._scan(conn, table, query, top_k, condition, params, exact=False)
                short = len(rows) < top_k
                if short and self._count(conn, table, condition, params, top_k) > len(rows):
                    rows = self._scan(conn, table, query, top_k, condition, params, exact=True)
        return [
            VectorHit(
                **dict(zip(FIELDS, row[:-1], strict=True)),
                score=table.score(float(row[-1])),
                distance=float(row[-1]),
            )
            for row in rows
        ]

    @staticmethod
    def _scan(
        conn: psycopg.Connection[Any],
        table: _Table,
        query: np.ndarray,
        top_k: int,
        condition: sql.Composable,
        params: list[Any],
        *,
        exact: bool,
    ) -> list[tuple[Any, ...]]:
        """Nearest rows by the KB's operator: through the HNSW index when it exists, or exactly
        (index scans off for this transaction: a sequential scan, or a bitmap scan of a btree
        for a doc_id/date filter, then a top-k sort — HNSW supports neither)."""
        if exact:
            conn.execute(
                "SELECT set_config('enable_indexscan', 'off', true), "
                "set_config('enable_indexonlyscan', 'off', true)"
            )
        columns = sql.SQL(", ").join(sql.Identifier(f) for f in FIELDS)
        statement = sql.SQL(
            "SELECT {}, embedding {} %s AS distance FROM {} WHERE {} ORDER BY distance LIMIT %s"
        ).format(columns, table.operator, table.chunks, condition)
        return conn.execute(statement, [query, *params, top_k]).fetchall()

    @staticmethod
    def _count(
        conn: psycopg.Connection[Any],
        table: _Table,
        condition: sql.Composable,
        params: list[Any],
        cap: int,
    ) -> int:
        """Matching rows, counted up to `cap`."""
        statement = sql.SQL("SELECT count(*) FROM (SELECT 1 FROM {} WHERE {} LIMIT %s) m").format(
            table.chunks, condition
        )
        row = conn.execute(statement, [*params, cap]).fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _estimate(
        conn: psycopg.Connection[Any], table: _Table, condition: sql.Composable, params: list[Any]
    ) -> float:
        """The planner's estimate of the rows a filter matches (statistics, no scan)."""
        statement = sql.SQL("EXPLAIN (FORMAT JSON) SELECT 1 FROM {} WHERE {}").format(
            table.chunks, condition
        )
        row = conn.execute(statement, params).fetchone()
        plan = row[0] if row else None
        if isinstance(plan, str):
            plan = json.loads(plan)
        return float(plan[0]["Plan"]["Plan Rows"]) if plan else 0.0

    # ── title vectors ──────────────────────────────────────────────────────────────────
    def upsert_titles(self, kb_id: str, records: list[TitleRecord]) -> None:
        if not records:
            return
        table = self._table(kb_id)
        rows = [(r.doc_id, self._vector(table, r.vector, "title vector")) for r in records]
        statement = sql.SQL(
            "INSERT INTO {} (doc_id, embedding) VALUES (%s, %s) "
            "ON CONFLICT (doc_id) DO UPDATE SET embedding = EXCLUDED.embedding"
        ).format(table.titles)
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(statement, rows)

    def delete_titles(self, kb_id: str, doc_ids: list[str]) -> None:
        if not doc_ids:
            return
        table = self._table(kb_id)
        with self._pool.connection() as conn:
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE doc_id = ANY(%s)").format(table.titles),
                [list(doc_ids)],
            )

    def title_scores(self, kb_id: str, vector: list[float], doc_ids: list[str]) -> dict[str, float]:
        if not doc_ids:
            return {}
        table = self._table(kb_id)
        query = self._vector(table, vector, "query vector")
        with self._pool.connection() as conn:
            rows = conn.execute(
                sql.SQL(
                    "SELECT doc_id, 1 - (embedding <=> %s) FROM {} WHERE doc_id = ANY(%s)"
                ).format(table.titles),
                [query, list(doc_ids)],
            ).fetchall()
        scores = {doc_id: clamp_cosine(float(cos)) for doc_id, cos in rows if cos is not None}
        return {doc_id: score for doc_id, score in scores.items() if score is not None}
