"""Retrieval latency per strategy at 10k and 100k chunks, in process (no HTTP):

    python -m bench.latency [--sizes 10000 100000] [--queries 200]

The KB is filled through the product's stores (bench.fill's approach: real embeddings of
`--pool` real passages and sentences, perturbed copies of them beyond that) with the chunks'
real lexical tokens, so BM25 and hybrid search a realistic index. Reports p50/p95 of `ann`,
`bm25`, `hybrid` (sequential and parallel) and hybrid's p50 as a ratio of its slower leg
(target ≤ 1.3×; BM25 target < 5 ms).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpus import english_queries, text_pool  # noqa: E402
from bench.fill import embed_pool, synthesize  # noqa: E402
from bench.report import RESULTS_DIR, log, summarise_ms  # noqa: E402
from planrag.core.settings import Settings  # noqa: E402
from planrag.core.types import Chunk, DocumentMetadata, DocumentStatus  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.knowledge_bases import KnowledgeBaseCreate  # noqa: E402
from planrag.services.retrieval import RetrieveRequest  # noqa: E402
from planrag.stores.vector import VectorRecord  # noqa: E402
from planrag.text.tokenizer import LexicalTokenizer  # noqa: E402

RUNS = {
    "ann": {"strategy": "ann"},
    "bm25": {"strategy": "bm25"},
    "hybrid (sequential)": {"strategy": "hybrid", "hybrid_mode": "sequential"},
    "hybrid (parallel)": {"strategy": "hybrid", "hybrid_mode": "parallel"},
}
PER_DOC = 100


def fill(
    runtime: Runtime, kb_id: str, size: int, texts: list[str], tokens: list[list[str]]
) -> None:
    base = embed_pool(runtime.embedders.get(), texts, cache=True)
    vectors, sources = synthesize(base, size, noise=0.35, seed=size)
    pending: list[VectorRecord] = []
    for number, start in enumerate(range(0, size, PER_DOC)):
        rows = range(start, min(start + PER_DOC, size))
        digest = hashlib.sha256(f"{kb_id}:{number}".encode()).hexdigest()
        doc, _ = runtime.metadata.add_document(
            kb_id, f"doc-{number}.txt", "txt", 1, digest, DocumentMetadata()
        )
        chunks = [
            Chunk(id=f"{doc.id}:{p}", doc_id=doc.id, position=p, text=texts[sources[i]])
            for p, i in enumerate(rows)
        ]
        runtime.metadata.replace_chunks(
            doc.id, chunks, {c.id: tokens[sources[i]] for c, i in zip(chunks, rows, strict=True)}
        )
        runtime.metadata.set_status(doc.id, DocumentStatus.completed, chunk_count=len(chunks))
        pending += [
            VectorRecord(chunk_id=c.id, doc_id=doc.id, text=c.text, vector=vectors[i].tolist())
            for c, i in zip(chunks, rows, strict=True)
        ]
        if len(pending) >= 5000:
            runtime.vectors.upsert(kb_id, pending)
            pending = []
    runtime.vectors.upsert(kb_id, pending)


def measure(runtime: Runtime, kb_id: str, queries: list[str]) -> dict[str, dict[str, float]]:
    results = {}
    for label, options in RUNS.items():
        for query in queries[:10]:  # warm-up (and calibration for hybrid)
            runtime.retrieval.retrieve(kb_id, RetrieveRequest(query=query, top_k=10, **options))  # type: ignore[arg-type]
        timings = []
        for query in queries:
            request = RetrieveRequest(query=query, top_k=10, **options)  # type: ignore[arg-type]
            started = time.perf_counter()
            runtime.retrieval.retrieve(kb_id, request)
            timings.append(time.perf_counter() - started)
        results[label] = summarise_ms(timings)
        log(f"  {label}: {results[label]}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pool", type=int, default=4000, help="distinct real texts embedded")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "latency.json")
    args = parser.parse_args()
    texts = text_pool()[: args.pool]
    tokens = LexicalTokenizer().index_tokens_many(texts)
    queries = english_queries()[: args.queries]
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime.open(Settings(_env_file=None, data_dir=Path(tmp)))  # type: ignore[call-arg]
        try:
            for size in args.sizes:
                kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=f"latency-{size}"))
                log(f"filling {size} chunks")
                fill(runtime, kb.id, size, texts, tokens)
                started = time.perf_counter()
                runtime.bm25.index(kb.id)
                build_s = time.perf_counter() - started
                results = measure(runtime, kb.id, queries)
                slower = max(results["ann"]["p50_ms"], results["bm25"]["p50_ms"])
                report[str(size)] = {
                    "bm25_index_build_s": round(build_s, 2),
                    "strategies": results,
                    "hybrid_over_slower_leg": {
                        k: round(results[k]["p50_ms"] / slower, 2)
                        for k in ("hybrid (sequential)", "hybrid (parallel)")
                    },
                }
                runtime.knowledge_bases.delete(kb.id)
        finally:
            runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
