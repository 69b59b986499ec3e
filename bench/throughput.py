"""Search throughput under concurrency, the micro-batchers off against on (issue 14):

    python -m bench.throughput [--chunks 100000] [--clients 50] [--seconds 30]

One knowledge base of `--chunks` chunks in a temporary data dir (embedded Milvus Lite, the
default set-up), filled through the product's stores (bench.fill): real passages as texts, but
**synthetic vectors** (unit vectors clustered around 2,000 random centres, Gaussian noise of
norm 0.5), so no passage is embedded. Then, on the same data and machine, one after the other:

1. **store**: `--clients` threads in this process calling `search(top_k=10)` on the Milvus
   store for `--seconds` each, with query vectors drawn like the data — the raw `MilvusStore`
   (batching off: every search its own Milvus call, one at a time) against the same store
   behind `BatchingVectorStore` (on).
2. **retrieve**: a real `planrag serve` (one process) hammered by `--clients` concurrent HTTP
   clients with `POST /api/knowledge-bases/{kb}/retrieve {strategy: ann, top_k: 5}`, each
   request a distinct question (the HotpotQA questions numbered, so the query-vector cache never
   answers), for `--seconds`, three ways: both batchers off (`…QUERY_BATCH_WINDOW_MS=0`,
   `…SEARCH_BATCH_WINDOW_MS=0`: what the server did before either existed), only the
   query-embedding batcher, both on (the defaults). The questions are embedded for real (e5,
   `--embed-threads` engine threads, 1 by default).

Requests/s, p50/p95 latency, and for the batched runs the mean searches per Milvus call; the
1-minute load average before and after each run (the machine is shared).
Quick check: `--chunks 20000 --seconds 15` (≈ 6 min under load). The default 100k run took
≈ 25 min under a load average of 10–15 (fill 3–4 min, each server start 1–3 min).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench import corpus
from bench.ann_measure import release_milvus_lite
from bench.fill import fill_kb, synthesize
from bench.report import RESULTS_DIR, load_average, log, machine, summarise_ms, write_json
from bench.scale import hammer
from bench.server import environment, planrag_server
from planrag.core.settings import Settings
from planrag.runtime import Runtime
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.stores.milvus import MilvusStore
from planrag.stores.search_batching import BatchingVectorStore
from planrag.stores.vector import VectorStore
from planrag.text.tokenizer import LexicalTokenizer

CENTRES = 2000
NOISE = 0.5
TOP_K = 10
RETRIEVE_MODES = {
    "both off": {"query_batch_window_ms": "0", "search_batch_window_ms": "0"},
    "query embedding only": {"query_batch_window_ms": "3", "search_batch_window_ms": "0"},
    "both on": {"query_batch_window_ms": "3", "search_batch_window_ms": "3"},
}


def centres(dim: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((CENTRES, dim)).astype(np.float32)
    return base / np.linalg.norm(base, axis=1, keepdims=True)


def build(data_dir: Path, chunks: int) -> tuple[str, np.ndarray]:
    """A KB of `chunks` synthetic-vector chunks; its id and the centres the vectors cluster on."""
    runtime = Runtime.open(Settings(_env_file=None, data_dir=data_dir))  # type: ignore[call-arg]
    try:
        kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name=f"throughput-{chunks}"))
        base = centres(runtime.embedders.get().dimension)
        vectors, sources = synthesize(base, chunks, NOISE, seed=chunks)
        texts = corpus.text_pool()[:CENTRES]
        tokens = LexicalTokenizer().index_tokens_many(texts)  # BM25 terms: the indexes agree
        log(f"filling {chunks} chunks (synthetic vectors)")
        started = time.perf_counter()
        fill_kb(runtime, kb.id, texts, vectors, sources, tokens)
        log(f"filled in {time.perf_counter() - started:.0f} s")
        return kb.id, base
    finally:
        runtime.close()
        release_milvus_lite(str(data_dir / "milvus.db"))


def hammer_store(store: VectorStore, kb_id: str, queries: np.ndarray, clients: int, seconds: float):
    """`clients` threads searching as fast as they can for `seconds`."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(i: int) -> None:
        nonlocal errors
        n = i
        while time.monotonic() < deadline:
            query = queries[n % len(queries)].tolist()
            n += clients
            started = time.perf_counter()
            try:
                store.search(kb_id, query, TOP_K)
            except Exception:  # counted, the run goes on
                with lock:
                    errors += 1
                continue
            with lock:
                latencies.append(time.perf_counter() - started)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "errors": errors,
        "per_s": round(len(latencies) / elapsed, 2),
        **summarise_ms(latencies),
    }


def store_phase(data_dir: Path, kb_id: str, base: np.ndarray, args: argparse.Namespace) -> dict:
    queries, _ = synthesize(base, CENTRES + 5000, NOISE, seed=7)
    queries = queries[CENTRES:]  # the perturbed ones: near the data, never in it
    path = str(data_dir / "milvus.db")
    store = MilvusStore(path)
    report: dict[str, Any] = {}
    try:
        started = time.perf_counter()
        store.search(kb_id, queries[0].tolist(), TOP_K)  # loads the collection (and its index)
        report["first_search_s"] = round(time.perf_counter() - started, 1)
        for query in queries[:20]:
            store.search(kb_id, query.tolist(), TOP_K)
        batching = BatchingVectorStore(store, window_s=0.003, max_batch=64)
        for label, target in (("off", store), ("on", batching)):
            before = load_average()
            result = hammer_store(target, kb_id, queries, args.clients, args.seconds)
            result["load_before_after"] = [before, load_average()]
            if target is batching:
                result["milvus_calls"] = batching.calls
                result["searches_per_call"] = round(batching.searches / max(1, batching.calls), 1)
            report[label] = result
            log(f"store, batching {label}: {result}")
    finally:
        store.close()
        release_milvus_lite(path)
    report["on_over_off"] = round(report["on"]["per_s"] / max(report["off"]["per_s"], 1e-9), 2)
    return report


def questions(n: int = 5000) -> list[str]:
    """Distinct questions: the HotpotQA ones, numbered (so no two requests share a vector)."""
    base = corpus.english_queries()
    return [f"{base[i % len(base)]} ({i})" for i in range(n)]


def probe(url: str, kb_id: str) -> int:
    """Hits of one search: the KB must still hold its vectors (a server that found the
    documents inconsistent would have re-indexed them away)."""
    body = {"query": "probe", "strategy": "ann", "top_k": 5}
    response = httpx.post(f"{url}/api/knowledge-bases/{kb_id}/retrieve", json=body, timeout=300)
    response.raise_for_status()
    return len(response.json())


def retrieve_phase(data_dir: Path, kb_id: str, args: argparse.Namespace) -> dict:
    report: dict[str, Any] = {}
    asked = questions()
    logs = RESULTS_DIR / "throughput-logs"
    logs.mkdir(parents=True, exist_ok=True)
    for label, mode in RETRIEVE_MODES.items():
        env = {
            "PLANRAG_EMBEDDING__QUERY_BATCH_WINDOW_MS": mode["query_batch_window_ms"],
            "PLANRAG_MILVUS__SEARCH_BATCH_WINDOW_MS": mode["search_batch_window_ms"],
            "PLANRAG_EMBEDDING__THREADS": str(args.embed_threads),
            "PLANRAG_LOG_LEVEL": "WARNING",
        }
        with environment(env), planrag_server(data_dir, logs / "serve.log") as server:
            hits_before = probe(server.base_url, kb_id)
            warm = asyncio.run(
                hammer(server.base_url, kb_id, 4, 5, False, queries=asked[-200:], strategy="ann")
            )
            log(f"retrieve, {label}: warm-up {warm['requests']} requests")
            before = load_average()
            result = asyncio.run(
                hammer(
                    server.base_url, kb_id, args.clients, args.seconds, False,
                    queries=asked, strategy="ann",
                )
            )  # fmt: skip
            result["load_before_after"] = [before, result.pop("load")]
            result["hits_before_after"] = [hits_before, probe(server.base_url, kb_id)]
        report[label] = result
        log(f"retrieve, {label}: {result}")
    off = max(report["both off"]["per_s"], 1e-9)
    report["both_on_over_both_off"] = round(report["both on"]["per_s"] / off, 2)
    report["query_only_over_both_off"] = round(report["query embedding only"]["per_s"] / off, 2)
    return report


def run(args: argparse.Namespace, phases: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "chunks": args.chunks, "clients": args.clients}
    root = Path(tempfile.mkdtemp(prefix="planrag-bench-throughput-"))
    data_dir = root / "data"
    try:
        kb_id, base = build(data_dir, args.chunks)
        if "store" in phases:
            report["store"] = store_phase(data_dir, kb_id, base, args)
        if "retrieve" in phases:
            report["retrieve"] = retrieve_phase(data_dir, kb_id, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--chunks", type=int, default=100_000, help="chunks in the KB")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=30, help="length of each timed run")
    parser.add_argument(
        "--embed-threads",
        type=int,
        default=1,
        help="e5 engine threads of the server (OpenMP busy-waits badly on a shared machine)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument(
        "--phases", nargs="*", choices=["store", "retrieve"], default=["store", "retrieve"]
    )
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "throughput.json")
    args = parser.parse_args()
    report = run(args, args.phases)
    log(f"wrote {write_json(args.out, report)}")


if __name__ == "__main__":
    main()
