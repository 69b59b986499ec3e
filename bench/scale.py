"""Throughput beyond one request at a time (issue 14), three parts, each optional (`--phases`):

shared — several processes over shared stores (bench.stack): Milvus Lite's gRPC server +
PostgreSQL (pgserver), the ingestion queue in the metadata DB, every process embedding with
`--embed-threads` e5 threads (1 by default) and a worker taking one job at a time.
  1. Ingestion of `--docs` Korean news items (../shared/data/ko_news_2017, one chunk each) by
     `planrag worker` processes (bench.ingest_workers), each into a fresh KB: 1 worker, 2
     workers, then 2 workers with one SIGKILLed at half the documents. Documents/s (whole run
     and steady part) and the CPU seconds of every process group; the ratio 2 over 1 compares
     the two runs without a kill. The killed run is the correctness check (every document
     `completed`, listed once, chunk ids per document in Milvus = the metadata DB's, no
     duplicate texts, no stray vectors); it pays the 10 s lease, so its rate is not a ratio.
  2. Retrieve throughput (hybrid, `--clients` concurrent clients for `--seconds`, after 3 s of
     warm-up) against `serve --workers 1` and `--workers 2`: requests/s and p50/p95, and the
     CPU seconds of the API processes (each), Milvus, PostgreSQL and the bench client (what the
     ratio could reach on 2 cores); the same for `/ai/v2/ask` without an LLM (whole SSE
     answers). Every request opens a new connection: with kept connections one of uvicorn's
     processes accepted all 50 (the other idle: seen in a smoke run), which measured accept
     luck, not 2 processes.
sse — `--sse-asks` concurrent SSE asks across `serve --workers 2` (bench.sse) on the KB the
shared phase indexed with 2 workers (alone, the phase indexes `--docs` items first): errors,
p50/p95 time to the first SSE event and to the end, RSS of each API process before/after/peak.
batching — the micro-batchers off against on, at `--chunks` chunks of synthetic vectors in
embedded Milvus Lite (bench.throughput: the store alone with `--clients` threads, then
`/retrieve` over HTTP with both batchers off, query embedding only, both on).

Ratios are within one run; the machine (2 cores) is shared: every run records the load average
and the machine's busy CPU seconds beside its own groups' (`cpu_s_others`: other processes).

The issue's figures (2,000 documents, 500 SSE asks), without the batching phase — an estimate
of ≈ 25–35 min on 2 quiet cores (ingestion ≈ 15–20 min of it; smoke-tested only at 20
documents under load):

  python -m bench.scale --phases shared sse --docs 2000 --clients 50 --seconds 20 --sse-asks 500

The batching phase (≈ 8 min quiet, ≈ 20 min under a load of 10–15):
`python -m bench.scale --phases batching --chunks 100000 --clients 50 --seconds 20`.
Quick checks: `--phases shared sse --docs 40 --clients 8 --seconds 8 --sse-asks 50` (≈ 4 min
under load); `--phases batching --chunks 20000 --seconds 10` (≈ 4 min). Results:
bench/results/scale.json for all phases, else scale-<phases>.json (e.g.
scale-shared-sse.json); process logs in bench/results/scale-logs/.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.report import RESULTS_DIR, load_average, log, machine, summarise_ms, write_json

QUERIES = [
    "북한 미사일 발사",
    "사드 배치 논란",
    "부동산 대책",
    "일자리 정책",
    "탈원전",
    "최저임금 인상",
]


async def hammer(
    url: str,
    kb_id: str,
    clients: int,
    seconds: float,
    ask: bool,
    queries: list[str] = QUERIES,
    strategy: str = "hybrid",
    kb_name: str = "ingest-2",
    keepalive: bool = True,
) -> dict:
    """`clients` concurrent clients asking (SSE, whole answers) or retrieving (`strategy`,
    top 5) for `seconds`, cycling through `queries`. Without `keepalive` every request opens
    a new connection: against `serve --workers N` a kept connection stays with the process that
    accepted it, and one process may accept all of a burst of new connections."""
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + seconds

    async def client_loop(i: int) -> None:
        nonlocal errors
        limits = httpx.Limits(max_keepalive_connections=None if keepalive else 0)
        async with httpx.AsyncClient(timeout=300, limits=limits) as client:
            n = i
            while time.monotonic() < deadline:
                query = queries[n % len(queries)]
                n += clients
                started = time.perf_counter()
                body: dict[str, Any]
                try:
                    if ask:
                        body = {"question": query, "knowledge_bases": [kb_name]}
                        async with client.stream("POST", f"{url}/ai/v2/ask", json=body) as r:
                            async for _ in r.aiter_bytes():
                                pass
                    else:
                        body = {"query": query, "strategy": strategy, "top_k": 5}
                        r = await client.post(
                            f"{url}/api/knowledge-bases/{kb_id}/retrieve", json=body
                        )
                    if r.status_code != 200:
                        errors += 1
                        continue
                except httpx.HTTPError:
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(client_loop(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "errors": errors,
        "per_s": round(len(latencies) / elapsed, 2),
        **summarise_ms(latencies),
        "load": load_average(),
    }


def shared_phase(args: Any, report: dict[str, Any]) -> None:
    """Ingestion with 1 and 2 workers (and 2 with one killed), then retrieve/ask throughput
    with 1 and 2 API processes, then (phase `sse`) a burst of concurrent SSE asks — all over
    one set of shared stores. CPU seconds per process group are recorded for every run."""
    from bench import ingest_workers, sse
    from bench.stack import api, news, shared_stores

    root = Path(tempfile.mkdtemp(prefix="planrag-bench-scale-"))
    root.chmod(0o755)
    logs = RESULTS_DIR / "scale-logs"
    logs.mkdir(parents=True, exist_ok=True)
    rows = news(args.docs)
    try:
        with shared_stores(root, args.embed_threads) as stack:
            with api(stack.env, 1, logs / "api-ingest.log") as server:
                runs = [("ingest_1_worker", "ingest-1", 1, False)]
                if "shared" in args.phases:
                    runs += [
                        ("ingest_2_workers", "ingest-2", 2, False),
                        ("ingest_2_workers_one_killed", "ingest-2-killed", 2, True),
                    ]
                else:  # `sse` alone: one KB to ask, indexed by 2 workers
                    runs = [("ingest_2_workers", "ingest-2", 2, False)]
                for key, name, workers, kill in runs:
                    report[key] = ingest_workers.run(
                        server.url, stack, server.pid, rows, name, workers, kill, logs
                    )
                kb_id = next(
                    kb["id"]
                    for kb in httpx.get(f"{server.url}/api/knowledge-bases").json()
                    if kb["name"] == "ingest-2"
                )
            if "shared" in args.phases:
                throughput_runs(args, stack, kb_id, logs, report)
            if "sse" in args.phases:
                report["sse"] = sse.run(stack, "ingest-2", args.sse_asks, logs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if "shared" in args.phases:
        report["ratios"] = ratios(report)
        log(f"ratios: {report['ratios']}")


def throughput_runs(args: Any, stack: Any, kb_id: str, logs: Path, report: dict[str, Any]) -> None:
    """Retrieve and ask throughput against 1, then 2 API processes, with CPU per group."""
    from bench.stack import api

    for workers in (1, 2):
        with api(stack.env, workers, logs / f"api-{workers}.log") as server:
            for kind in ("retrieve", "ask"):
                # warm-up: each process's first requests load what they need (BM25 index…)
                asyncio.run(
                    hammer(server.url, kb_id, args.clients, 3.0, kind == "ask", keepalive=False)
                )
                meter = stack.meter(api=lambda s=server: [s.pid]).start()
                result = asyncio.run(
                    hammer(server.url, kb_id, args.clients, args.seconds, kind == "ask",
                           keepalive=False)
                )  # fmt: skip
                result["cpu"] = meter.stop()
                serving = "planrag serve" if workers == 1 else "api process"
                result["cpu_s_per_api_process"] = [
                    p["cpu_s"] for p in result["cpu"]["processes"] if p["role"].startswith(serving)
                ]
                report[f"{kind}_{workers}_processes"] = result
                log(f"{kind}, {workers} API process(es): {result}")


def ratios(report: dict[str, Any]) -> dict[str, Any]:
    from bench import ingest_workers

    def per_s(key: str) -> float:
        return float(report[key]["per_s"])

    def api_cpu(key: str) -> float:
        return float(report[key]["cpu"]["cpu_s"]["api"])

    return {
        "ingest_2_over_1": ingest_workers.ratio(
            report["ingest_1_worker"], report["ingest_2_workers"]
        ),
        "ingest_2_one_killed_over_1": round(
            report["ingest_2_workers_one_killed"]["docs_per_s"]
            / report["ingest_1_worker"]["docs_per_s"], 2
        ),
        "retrieve_2_over_1": round(
            per_s("retrieve_2_processes") / per_s("retrieve_1_processes"), 2
        ),
        "ask_2_over_1": round(per_s("ask_2_processes") / per_s("ask_1_processes"), 2),
        "retrieve_api_cpu_2_over_1": round(
            api_cpu("retrieve_2_processes") / max(api_cpu("retrieve_1_processes"), 1e-9), 2
        ),
        "ask_api_cpu_2_over_1": round(
            api_cpu("ask_2_processes") / max(api_cpu("ask_1_processes"), 1e-9), 2
        ),
    }  # fmt: skip


def main() -> None:
    import argparse

    from bench import throughput

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--phases", nargs="*", choices=["shared", "sse", "batching"],
        default=["shared", "sse", "batching"],
    )  # fmt: skip
    parser.add_argument("--docs", type=int, default=2000, help="news items ingested (shared)")
    parser.add_argument("--sse-asks", type=int, default=500, help="concurrent SSE asks (sse)")
    throughput.add_arguments(parser)  # --chunks, --clients, --seconds, --embed-threads
    args = parser.parse_args()
    report: dict[str, Any] = {
        "cores": os.cpu_count(),
        "load_at_start": load_average(),
        "docs": args.docs,
        "chunks": args.chunks,
    }
    started = time.perf_counter()
    if {"shared", "sse"} & set(args.phases):
        shared_phase(args, report)
    if "batching" in args.phases:
        report["batching"] = throughput.run(args, ["store", "retrieve"])
    report["minutes"] = round((time.perf_counter() - started) / 60, 1)
    report["machine"] = machine()  # its load average is the one at the end
    # `scale.json` for every phase; a subset writes its own file (no run overwrites another's)
    name = (
        "scale"
        if set(args.phases) == {"shared", "sse", "batching"}
        else "-".join(["scale", *args.phases])
    )
    log(f"wrote {write_json(RESULTS_DIR / f'{name}.json', report)}")


if __name__ == "__main__":
    main()
