"""ANN retrieval latency through the HTTP API versus raw Milvus Lite, on the same collections.

    python -m bench.ann [--sizes 10000 100000] [--queries 200] [--rounds 3] [--schedules …]

HTTP: a real `planrag serve` process (uvicorn, 127.0.0.1, free port, temporary data dir);
sequential `POST /api/knowledge-bases/{kb_id}/retrieve` {query, strategy ann, top_k 10} with
httpx over one keep-alive connection, timed on the client with time.perf_counter.
Raw: the same query embedded with the same model in this process (`embedder.embed([q])`) plus
`MilvusClient.search` with the product's search parameters (HNSW ef 64, limit 10), once with the
product's output fields and once with ids only (alternating query by query).

Service: `RetrievalService.retrieve` called in this process (the product's query path without
HTTP), to split the overhead between the service layer and the HTTP layer.

Two schedules (Milvus Lite locks its data dir to one process, so the server and a local client
cannot share it):
- phased: HTTP with the server up, then raw and service with it stopped, on the same data dir,
  `--rounds` times;
- paired: server up on the data dir, raw and service on a byte copy of it, the calls alternating
  query by query; robust to load from other processes and to drift, which phases are not.
Ratio = HTTP / raw at p50 and p95 (target ≤ 1.2×).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import corpus
from bench.ann_measure import (
    EF,
    TOP_K,
    Call,
    Samples,
    cold_first_query,
    http_call,
    milvus_lite,
    raw_calls,
    release_milvus_lite,
    run_calls,
    service_call,
    warm,
)
from bench.fill import data_size_mb, embed_pool, fill_kb, synthesize
from bench.report import (
    RESULTS_DIR,
    load_average,
    log,
    machine,
    markdown_table,
    summarise_ms,
    write_json,
)
from bench.server import planrag_server
from planrag.core.settings import Settings
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.runtime import Runtime

TARGET_RATIO = 1.2
Args = argparse.Namespace


def milvus_uri(data_dir: Path) -> str:
    return str((data_dir / "milvus.db").resolve())


def create_kbs(data_dir: Path, log_path: Path, sizes: list[int]) -> dict[int, str]:
    """One knowledge base per size, created through the API (default model and metric)."""
    with planrag_server(data_dir, log_path) as server:
        kb_ids = {}
        for size in sizes:
            response = httpx.post(
                f"{server.base_url}/api/knowledge-bases",
                json={"name": f"ann-{size}", "top_k": TOP_K},
                timeout=60.0,
            )
            response.raise_for_status()
            kb_ids[size] = response.json()["id"]
    return kb_ids


def right_after_fill(runtime: Runtime, kb_id: str, args: Args) -> float:
    """p50 of in-process retrieve calls in the process that just wrote the vectors, before any
    restart (Milvus Lite keeps unflushed rows in its memtable until it holds 128 MiB)."""
    call, queries = service_call(runtime, kb_id), args.query_texts[: args.warmup]
    call(queries[0])
    return summarise_ms([call(q)[0]["service"] for q in queries])["p50_ms"]


def fill(
    settings: Settings, registry: EmbedderRegistry, kb_ids: dict[int, str], args: Args
) -> dict[int, dict[str, Any]]:
    """Real embeddings of real texts, topped up with perturbed copies, written via the stores."""
    texts = corpus.text_pool(args.data_dir)[: args.real]
    log(f"embedding {len(texts)} real texts")
    start = time.perf_counter()
    base = embed_pool(registry.get(), texts, cache=not args.no_cache)
    embed_s = time.perf_counter() - start
    info: dict[int, dict[str, Any]] = {}
    runtime = Runtime.open(settings, registry)
    try:
        for size, kb_id in kb_ids.items():
            vectors, sources = synthesize(base, size, args.noise, seed=size)
            log(f"filling kb ann-{size}")
            start = time.perf_counter()
            fill_kb(runtime, kb_id, texts, vectors, sources)
            real = min(size, len(base))
            info[size] = {
                "chunks": size,
                "real_vectors": real,
                "perturbed_vectors": size - real,
                "fill_s": round(time.perf_counter() - start, 1),
            }
            if runtime.vectors.count(kb_id) != size:
                raise SystemExit(f"kb ann-{size} holds {runtime.vectors.count(kb_id)} vectors")
            info[size]["service_p50_right_after_fill_ms"] = right_after_fill(runtime, kb_id, args)
        start = time.perf_counter()  # what every server start runs, over all knowledge bases
        runtime.ingestion.recover()
        recover_s = time.perf_counter() - start
    finally:
        runtime.close()
        release_milvus_lite(settings.milvus_uri)
    for size in info:
        info[size]["pool_embed_s"] = round(embed_s, 1)
        info[size]["startup_recover_all_kbs_s"] = round(recover_s, 2)
    return info


@contextmanager
def in_process(settings: Settings, registry: EmbedderRegistry) -> Iterator[tuple[Runtime, Any]]:
    """A Runtime (for the service path) and a bare MilvusClient on the same Milvus Lite dir."""
    runtime = Runtime.open(settings, registry)
    try:
        with milvus_lite(settings.milvus_uri) as raw:
            yield runtime, raw
    finally:
        runtime.close()
        release_milvus_lite(settings.milvus_uri)


def local_calls(runtime: Runtime, raw: Any, kb_id: str, embedder: Embedder) -> dict[str, Call]:
    return {**raw_calls(raw, kb_id, embedder), "service": service_call(runtime, kb_id)}


def measure(
    settings: Settings, registry: EmbedderRegistry, kb_ids: dict[int, str], args: Args
) -> tuple[Samples, dict[str, Any]]:
    """HTTP phase (server up), then raw phase (server down) on the same data dir, `rounds` times."""
    startups: list[float] = []
    cold_ms: dict[int, list[float]] = defaultdict(list)
    samples = Samples()
    data_dir, log_path, embedder = settings.data_dir, args.log_path, registry.get()
    queries, warmup = args.query_texts, args.query_texts[: args.warmup]
    for r in range(args.rounds):
        log(f"round {r + 1}: HTTP")
        with planrag_server(data_dir, log_path) as server:
            startups.append(round(server.startup_s, 2))
            with httpx.Client(base_url=server.base_url, timeout=120.0) as client:
                for size, kb_id in kb_ids.items():
                    cold = cold_first_query(client, kb_id, queries[0])
                    cold_ms[size].append(round(cold * 1000, 1))
                    calls = {"http": http_call(client, kb_id)}
                    warm(calls, warmup)
                    run_calls(samples, size, calls, queries)
        log(f"round {r + 1}: raw Milvus Lite and in-process service")
        with in_process(settings, registry) as (runtime, raw):
            for size, kb_id in kb_ids.items():
                calls = local_calls(runtime, raw, kb_id, embedder)
                warm(calls, warmup)
                run_calls(samples, size, calls, queries)
    return samples, {"startup_s": startups, "cold_first_query_ms": dict(cold_ms)}


def paired(
    settings: Settings, registry: EmbedderRegistry, kb_ids: dict[int, str], args: Args
) -> Samples:
    """Server up on the data dir; raw and service calls on a copy of it in this process (Milvus
    Lite allows one process per dir). Calls alternate query by query, their order rotating, so
    load from other processes and drift hit every side alike."""
    copy_dir = settings.data_dir.parent / "copy"
    shutil.copytree(settings.data_dir, copy_dir, ignore=shutil.ignore_patterns("LOCK"))
    copy = settings.model_copy(update={"data_dir": copy_dir})
    samples, queries = Samples(), args.query_texts
    log("paired: HTTP, raw and service alternating query by query")
    with (
        planrag_server(settings.data_dir, args.log_path) as server,
        httpx.Client(base_url=server.base_url, timeout=120.0) as client,
        in_process(copy, registry) as (runtime, raw),
    ):
        for size, kb_id in kb_ids.items():
            calls = {"http": http_call(client, kb_id)}
            calls.update(local_calls(runtime, raw, kb_id, registry.get()))
            warm(calls, queries[: args.warmup])
            run_calls(samples, size, calls, queries)
    shutil.rmtree(copy_dir)
    return samples


def agreement(a: list[list[str]], b: list[list[str]]) -> float:
    """Mean share of top-k ids two sides have in common, query by query."""
    shared = [len(set(x) & set(y)) / max(len(x), 1) for x, y in zip(a, b, strict=True)]
    return round(sum(shared) / len(shared), 4)


def per_round_p50(values: list[float], rounds: int) -> list[float]:
    """p50 (ms) of each round's share of the samples, to show the machine's drift."""
    step = len(values) // rounds
    return [summarise_ms(values[i * step : (i + 1) * step])["p50_ms"] for i in range(rounds)]


def summarise(samples: Samples, rounds: int) -> dict[int, dict[str, Any]]:
    results = {}
    for size, seconds in samples.seconds.items():
        stats = {key: summarise_ms(values) for key, values in seconds.items()}
        http, fields, ids = stats["http"], stats["fields_total"], stats["ids_total"]
        results[size] = {
            "latency_ms": stats,
            "ratio_p50": round(http["p50_ms"] / fields["p50_ms"], 3),
            "ratio_p95": round(http["p95_ms"] / fields["p95_ms"], 3),
            "ratio_p50_vs_ids_only": round(http["p50_ms"] / ids["p50_ms"], 3),
            "ratio_p95_vs_ids_only": round(http["p95_ms"] / ids["p95_ms"], 3),
            "target_ratio": TARGET_RATIO,
            "overhead_p50_ms": round(http["p50_ms"] - fields["p50_ms"], 2),
            "service_overhead_p50_ms": round(stats["service"]["p50_ms"] - fields["p50_ms"], 2),
            "p50_per_round_ms": {
                "http": per_round_p50(seconds["http"], rounds),
                "raw": per_round_p50(seconds["fields_total"], rounds),
            },
            "top10_agreement_http_vs_raw": agreement(
                samples.ids[size]["http"], samples.ids[size]["ids"]
            ),
        }
    return results


def print_table(title: str, results: dict[int, dict[str, Any]]) -> None:
    headers = ["chunks", "HTTP p50", "HTTP p95", "raw p50", "raw p95", "ratio p50", "ratio p95"]
    headers += ["service p50", "raw embed p50", "raw search p50", "ids-only raw p50"]
    headers += ["top-10 agreement"]
    rows = []
    for size, r in results.items():
        ms = r["latency_ms"]
        rows.append(
            [
                size,
                ms["http"]["p50_ms"],
                ms["http"]["p95_ms"],
                ms["fields_total"]["p50_ms"],
                ms["fields_total"]["p95_ms"],
                f"{r['ratio_p50']}×",
                f"{r['ratio_p95']}×",
                ms["service"]["p50_ms"],
                ms["fields_embed"]["p50_ms"],
                ms["fields_search"]["p50_ms"],
                ms["ids_total"]["p50_ms"],
                r["top10_agreement_http_vs_raw"],
            ]
        )
    print(f"\n{title} (ms)\n" + markdown_table(headers, rows))


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--queries", type=int, default=200, help="HotpotQA questions timed")
    parser.add_argument("--warmup", type=int, default=20, help="untimed queries first")
    parser.add_argument("--rounds", type=int, default=3, help="phased: HTTP/raw phase pairs")
    parser.add_argument(
        "--schedules", nargs="+", default=["phased", "paired"], choices=["phased", "paired"]
    )
    parser.add_argument("--real", type=int, default=10000, help="real texts embedded")
    parser.add_argument("--noise", type=float, default=0.5, help="perturbation norm")
    parser.add_argument("--no-cache", action="store_true", help="re-embed the real texts")
    parser.add_argument("--data-dir", type=Path, default=corpus.DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "ann.json")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    load_at_start = load_average()
    args.query_texts = corpus.english_queries(args.data_dir)[: args.queries]
    with tempfile.TemporaryDirectory(prefix="planrag-bench-ann-") as tmp:
        data_dir, log_path = Path(tmp) / "data", Path(tmp) / "server.log"
        settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
        registry = EmbedderRegistry(settings.embedding)
        kb_ids = create_kbs(data_dir, log_path, sorted(args.sizes))
        fill_info = fill(settings, registry, kb_ids, args)
        disk_mb = data_size_mb(data_dir)
        args.log_path = log_path
        results: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        if "phased" in args.schedules:
            samples, extra = measure(settings, registry, kb_ids, args)
            results["phased"] = summarise(samples, args.rounds)
        if "paired" in args.schedules:
            results["paired"] = summarise(paired(settings, registry, kb_ids, args), 1)
    payload = {
        "bench": "ann",
        "command": f"python -m bench.ann --sizes {' '.join(map(str, args.sizes))} "
        f"--queries {args.queries} --warmup {args.warmup} --rounds {args.rounds} "
        f"--real {args.real} --noise {args.noise}",
        "machine": {**machine(), "load_average_at_start": load_at_start},
        "settings": {
            "top_k": TOP_K,
            "hnsw": {"M": 16, "efConstruction": 200, "ef": EF},
            "metric": "COSINE",
            "queries": len(args.query_texts),
            "data_dir_mb": disk_mb,
        },
        "knowledge_bases": fill_info,
        "server_startup_s": extra.get("startup_s"),
        "cold_first_query_ms": extra.get("cold_first_query_ms"),
        "results": results,
    }
    log(f"wrote {write_json(args.out, payload)}")
    for schedule, table in results.items():
        print_table(f"ANN retrieval latency, {schedule}", table)


if __name__ == "__main__":
    main()
