"""Milvus Lite against PostgreSQL + pgvector on the same vectors: search latency, recall, fill
and index build time at 10k and 100k chunks.

    nice -n 10 python -m bench.stores [--sizes 10000 100000] [--queries 200] [--real 10000]

Both stores are driven through the product's store classes (`MilvusStore`, `PgVectorStore` with
default settings, the embedded PostgreSQL from pgserver) in one process. Vectors: `--real` real
texts embedded with the packaged MiniLM (cached under bench/results/), topped up with perturbed
copies (bench.fill.synthesize) — embedding 100k chunks would take ~5 min of the two shared cores
per run, and the stores only see vectors. Queries: HotpotQA questions, embedded once; the query
embedding (identical for both stores) is left out, so the figures are the stores' own.

Per size and store: fill time (upserts of 2,000 rows through the store, as the product writes:
Milvus Lite indexes as it flushes; pgvector searches a KB of ≤ 10,000 rows exactly and builds its
HNSW index when the KB first outgrows that, then maintains it row by row), Milvus Lite reopened,
then `search(top_k=10)` without a filter, with a broad filter (10 % of rows) and with a selective
one (0.1 %), the two stores' calls alternating query by query so that load from other processes
hits both alike; recall@10 against exact cosine (numpy); rows returned. Then the HNSW build time
on the loaded data (pgvector: DROP + CREATE INDEX, m 16, ef_construction 64; Milvus Lite: drop,
create_index, load, M 16, efConstruction 200 — each store's product settings).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from psycopg import sql

from bench import corpus
from bench.ann_measure import release_milvus_lite
from bench.fill import embed_pool, synthesize
from bench.report import RESULTS_DIR, log, machine, markdown_table, summarise_ms, write_json
from planrag.core.filters import Eq, Filter
from planrag.core.settings import EmbeddingSettings, PgSettings
from planrag.llm.embedders import EmbedderRegistry
from planrag.stores.milvus import MilvusStore, collection_name
from planrag.stores.pgvector import PgVectorStore, table_name
from planrag.stores.postgres import EmbeddedPostgres
from planrag.stores.vector import VectorRecord, VectorStore

TOP_K = 10
BATCH = 2000
FILTERS: dict[str, Callable[[int], Filter | None]] = {
    "none": lambda _n: None,
    "broad 10%": lambda _n: Eq(field="domain", value="d3"),
    "selective 0.1%": lambda _n: Eq(field="author", value="a7"),
}


def record(i: int, vector: np.ndarray, text: str) -> VectorRecord:
    return VectorRecord(
        chunk_id=f"c{i}",
        doc_id=f"doc{i // 100}",
        text=text,
        title=f"bench document {i // 100}",
        author=f"a{i % 1000}",
        domain=f"d{i % 10}",
        date=20240101 + i % 28,
        vector=vector.tolist(),
    )


def allowed(name: str, n: int) -> np.ndarray:
    rows = np.arange(n)
    if name == "broad 10%":
        return rows[rows % 10 == 3]
    if name == "selective 0.1%":
        return rows[rows % 1000 == 7]
    return rows


def fill(
    store: VectorStore, kb: str, vectors: np.ndarray, texts: list[str], src: np.ndarray
) -> float:
    store.create_collection(kb, vectors.shape[1], "COSINE")
    start = time.perf_counter()
    for lo in range(0, len(vectors), BATCH):
        hi = min(lo + BATCH, len(vectors))
        store.upsert(kb, [record(i, vectors[i], texts[src[i]]) for i in range(lo, hi)])
    return time.perf_counter() - start


def rebuild_pgvector(conninfo: str, kb: str) -> float:
    import psycopg

    name = table_name(kb)
    settings = PgSettings()
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name + "_hnsw")))
        start = time.perf_counter()
        conn.execute(
            sql.SQL(
                "CREATE INDEX {} ON {} USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = {}, ef_construction = {})"
            ).format(
                sql.Identifier(name + "_hnsw"),
                sql.Identifier(name),
                sql.Literal(settings.hnsw_m),
                sql.Literal(settings.hnsw_ef_construction),
            )
        )
        return time.perf_counter() - start


def rebuild_milvus(store: MilvusStore, kb: str) -> float:
    client, name = store._client, collection_name(kb)  # bench only: the product never rebuilds
    client.release_collection(name)
    client.drop_index(name, "vector")
    index = client.prepare_index_params()
    index.add_index(
        field_name="vector",
        index_type="HNSW",
        metric_type="COSINE",
        params={"M": 16, "efConstruction": 200},
    )
    start = time.perf_counter()
    client.create_index(name, index, sync=True)
    client.load_collection(name)
    return time.perf_counter() - start


def measure(
    stores: dict[str, VectorStore], kb: str, vectors: np.ndarray, queries: np.ndarray, warmup: int
) -> dict[str, dict[str, Any]]:
    """Every query on every store, alternating; latency, recall@10 and rows returned."""
    n = len(vectors)
    results: dict[str, dict[str, Any]] = defaultdict(dict)
    for label, make in FILTERS.items():
        where = make(n)
        rows = allowed(label, n)
        truth = []
        for q in queries:  # exact cosine top 10 among the rows the filter allows
            scores = vectors[rows] @ q
            truth.append({f"c{rows[j]}" for j in np.argsort(-scores)[:TOP_K]})
        seconds: dict[str, list[float]] = defaultdict(list)
        recall: dict[str, list[float]] = defaultdict(list)
        returned: dict[str, list[int]] = defaultdict(list)
        names = list(stores)
        for q in queries[:warmup]:
            for name in names:
                stores[name].search(kb, q.tolist(), TOP_K, where)
        for i, q in enumerate(queries[warmup:], start=warmup):
            shift = i % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                hits = stores[name].search(kb, q.tolist(), TOP_K, where)
                seconds[name].append(time.perf_counter() - start)
                recall[name].append(len({h.chunk_id for h in hits} & truth[i]) / len(truth[i]))
                returned[name].append(len(hits))
        for name in names:
            results[name][label] = {
                **summarise_ms(seconds[name]),
                "recall@10": round(float(np.mean(recall[name])), 4),
                "min_rows_returned": int(min(returned[name])),
                "mean_rows_returned": round(float(np.mean(returned[name])), 2),
            }
            log(f"  {name:8s} {label:15s} {results[name][label]}")
    return results


def run_size(
    size: int, base: np.ndarray, texts: list[str], queries: np.ndarray, args: argparse.Namespace
) -> dict[str, Any]:
    vectors, sources = synthesize(base, size, args.noise, seed=size)
    root = Path(tempfile.mkdtemp(prefix="planrag-bench-stores-"))
    root.chmod(0o755)  # the embedded PostgreSQL runs as the postgres user when root
    server = EmbeddedPostgres(root / "pg")
    server.start()
    milvus_path = str(root / "milvus.db")
    milvus = MilvusStore(milvus_path)
    pgvector = PgVectorStore(server.conninfo(), PgSettings())
    stores: dict[str, VectorStore] = {"milvus": milvus, "pgvector": pgvector}
    variants = {  # the same pgvector table searched with a wider beam
        f"pgvector ef={ef}": PgVectorStore(server.conninfo(), PgSettings(ef_search=ef))
        for ef in args.pg_ef_search
    }
    kb = f"bench-{size}"
    out: dict[str, Any] = {"chunks": size, "real_vectors": min(size, len(base))}
    try:
        for name, store in stores.items():
            log(f"{size}: filling {name}")
            out.setdefault(name, {})["fill_s"] = round(fill(store, kb, vectors, texts, sources), 1)
            log(f"  {out[name]['fill_s']} s")
        # Milvus Lite keeps fresh rows in a memtable searched by brute force until it is
        # reopened (bench.ann): reopen it, as a server restart would.
        milvus.close()
        release_milvus_lite(milvus_path)
        milvus = MilvusStore(milvus_path)
        stores["milvus"] = milvus
        for name, store in stores.items():
            assert store.count(kb) == size, f"{name} holds {store.count(kb)} rows"
        searched = {**stores, **variants}
        for name, result in measure(searched, kb, vectors, queries, args.warmup).items():
            out.setdefault(name, {})["search"] = result
        log(f"{size}: rebuilding the HNSW indexes")
        out["pgvector"]["index_build_s"] = round(rebuild_pgvector(server.conninfo(), kb), 1)
        out["milvus"]["index_build_s"] = round(rebuild_milvus(milvus, kb), 1)
        log(f"  {out['pgvector']['index_build_s']} s / {out['milvus']['index_build_s']} s")
    finally:
        milvus.close()
        release_milvus_lite(milvus_path)
        pgvector.close()
        for variant in variants.values():
            variant.close()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return out


def table(results: list[dict[str, Any]]) -> str:
    rows = []
    for res in results:
        stores = [name for name in res if isinstance(res[name], dict) and "search" in res[name]]
        for label in FILTERS:
            for name in stores:
                m = res[name]["search"][label]
                rows.append(
                    [
                        f"{res['chunks']:,}",
                        label,
                        name,
                        f"{m['p50_ms']:.1f}",
                        f"{m['p95_ms']:.1f}",
                        f"{m['recall@10']:.3f}",
                        m["min_rows_returned"],
                    ]
                )
    headers = ["chunks", "filter", "store", "p50 ms", "p95 ms", "recall@10", "min rows"]
    build = [
        [
            f"{r['chunks']:,}",
            r["milvus"]["fill_s"],
            r["pgvector"]["fill_s"],
            r["milvus"]["index_build_s"],
            r["pgvector"]["index_build_s"],
        ]
        for r in results
    ]
    build_headers = ["chunks", "fill Milvus s", "fill pgvector s", "HNSW build Milvus s", "pg s"]
    return markdown_table(headers, rows) + "\n\n" + markdown_table(build_headers, build)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--real", type=int, default=10000, help="real texts embedded")
    parser.add_argument("--noise", type=float, default=0.5, help="perturbation norm")
    parser.add_argument(
        "--pg-ef-search", type=int, nargs="*", default=[64], help="extra pgvector beams"
    )
    parser.add_argument("--data-dir", type=Path, default=corpus.DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "stores.json")
    args = parser.parse_args()
    embedder = EmbedderRegistry(EmbeddingSettings()).get()
    texts = corpus.text_pool(args.data_dir)[: args.real]
    base = embed_pool(embedder, texts, cache=True)
    questions = corpus.english_queries(args.data_dir)[: args.queries + args.warmup]
    queries = np.asarray(embedder.embed_queries(questions), dtype=np.float32)
    results = [run_size(size, base, texts, queries, args) for size in args.sizes]
    command = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    write_json(args.out, {"command": command, "machine": machine(), "results": results})
    print(table(results))


if __name__ == "__main__":
    main()
