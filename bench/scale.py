"""Throughput beyond one request at a time (issue 14), two parts, each optional (`--phases`):

shared — several processes over shared stores: Milvus Lite's gRPC server + PostgreSQL
(pgserver), the ingestion queue in the metadata DB.
  1. Ingestion of `--docs` Korean news items (../shared/data/ko_news_2017) with 1 worker
     process, then (a fresh KB) with 2 — one of them SIGKILLed midway: documents/s of each, and
     the check that every document ended `completed` once with no duplicate passages.
  2. Retrieve throughput (hybrid, `--clients` concurrent clients for `--seconds`) against
     `serve --workers 1` and `--workers 2`: requests/s and p50/p95; the same for `/ai/v2/ask`
     without an LLM (whole SSE answers).
batching — the micro-batchers off against on, at `--chunks` chunks of synthetic vectors in
embedded Milvus Lite (bench.throughput: the store alone with `--clients` threads, then
`/retrieve` over HTTP with both batchers off, query embedding only, both on).

Ratios are within one run; the machine (2 cores) is shared: see the load averages in the report.

A run of about 15 minutes on 2 quiet cores (an estimate from its parts, not run whole: under a
load average of 10–15 the batching phase at 100k chunks took ≈ 5 min to fill, ≈ 2 min for the
store runs and ≈ 14 min for the three servers' retrieve runs; quiet, ≈ 8 min is expected; the
shared phase with 200 documents ≈ 6 min):

  python -m bench.scale --docs 200 --chunks 100000 --clients 50 --seconds 20

The issue's ingestion figure wants `--docs 2000` (the default; ingestion then dominates, well over
the quarter hour). Quick checks: `--phases batching --chunks 20000 --seconds 10` (≈ 4 min);
`--phases shared --docs 20 --clients 4 --seconds 5` (≈ 3 min). Results: bench/results/scale.json.
"""

from __future__ import annotations

import asyncio
import csv
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.report import RESULTS_DIR, load_average, log, machine, summarise_ms, write_json
from bench.server import free_port

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
NEWS_CSV = SHARED / "data" / "ko_news_2017" / "korean_newspapers_twitter_2017.csv"
CONNECT_TIMEOUT_S = 120  # every client of the Milvus Lite server retries connecting this long
QUERIES = [
    "북한 미사일 발사",
    "사드 배치 논란",
    "부동산 대책",
    "일자리 정책",
    "탈원전",
    "최저임금 인상",
]


def wait_for_port(port: int, proc: subprocess.Popen[bytes], deadline_s: float) -> None:
    """Until the server accepts connections (a loaded machine starts it slowly)."""
    deadline = time.monotonic() + deadline_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"milvus-lite server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"milvus-lite server silent for {deadline_s} s") from None
            time.sleep(0.5)


@contextmanager
def shared_stores(root: Path) -> Iterator[dict[str, str]]:
    """A Milvus Lite gRPC server and an embedded PostgreSQL; the env that points at them."""
    from planrag.stores.postgres import EmbeddedPostgres, sqlalchemy_url

    port = free_port()
    milvus = subprocess.Popen(
        [str(Path(sys.executable).with_name("milvus-lite")), "server", "--data-dir",
         str(root / "milvus"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_for_port(port, milvus, deadline_s=120)
    (root / "pg").mkdir(mode=0o755)
    postgres = EmbeddedPostgres(root / "pg" / "data")
    postgres.start()
    try:
        conninfo = postgres.conninfo("postgres")
        yield {
            **os.environ,
            "PLANRAG_DATA_DIR": str(root / "data"),
            "PLANRAG_MILVUS__URI": f"http://127.0.0.1:{port}",
            "PLANRAG_MILVUS__CONNECT_TIMEOUT_S": str(CONNECT_TIMEOUT_S),
            "PLANRAG_DB__URL": sqlalchemy_url(conninfo),
            "PLANRAG_PG__URL": conninfo,
            "PLANRAG_INGEST__QUEUE": "database",
            "PLANRAG_INGEST__LEASE_S": "10",
            "PLANRAG_INGEST__CONCURRENCY": "1",
            "PLANRAG_LOG_LEVEL": "WARNING",
            "HF_HUB_OFFLINE": "1",
            "OMP_NUM_THREADS": "1",
        }
    finally:
        postgres.stop()
        milvus.terminate()
        milvus.wait(timeout=30)


def planrag(args: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    out = log_path.open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "planrag.cli.main", *args], env=env, stdout=out, stderr=out
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def api(env: dict[str, str], workers: int, log_path: Path) -> Iterator[str]:
    port = free_port()
    proc = planrag(
        ["serve", "--workers", str(workers), "--no-worker", "--port", str(port)], env, log_path
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited; see {log_path}")
            time.sleep(0.5)
        yield url
    finally:
        stop(proc)


def news(n: int) -> list[dict[str, str]]:
    return list(csv.DictReader(NEWS_CSV.open(encoding="utf-8")))[:n]


def upload(url: str, kb_id: str, rows: list[dict[str, str]]) -> None:
    with httpx.Client(timeout=300) as client:
        for start in range(0, len(rows), 50):
            files = [
                ("files", (f"news-{start + i}.txt", row["text"].encode(), "text/plain"))
                for i, row in enumerate(rows[start : start + 50])
            ]
            client.post(
                f"{url}/api/knowledge-bases/{kb_id}/documents", files=files
            ).raise_for_status()


def statuses(url: str, kb_id: str) -> list[dict[str, Any]]:
    return httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=120).json()


def ingestion(
    url: str, env: dict[str, str], rows: list, workers: int, kill: bool, logs: Path
) -> dict:
    name = f"ingest-{workers}"
    kb = httpx.post(f"{url}/api/knowledge-bases", json={"name": name}, timeout=60).json()
    upload(url, kb["id"], rows)
    started = time.perf_counter()
    procs = [planrag(["worker"], env, logs / f"{name}-w{i}.log") for i in range(workers)]
    killed_at = None
    try:
        while True:
            docs = statuses(url, kb["id"])
            done = sum(d["status"] in ("completed", "error") for d in docs)
            if kill and killed_at is None and done >= len(rows) // 2:
                procs[0].send_signal(signal.SIGKILL)
                killed_at = done
            if done == len(rows):
                break
            time.sleep(1)
    finally:
        elapsed = time.perf_counter() - started
        for proc in procs:
            stop(proc)
    from planrag.stores.milvus import MilvusStore

    store = MilvusStore(env["PLANRAG_MILVUS__URI"], connect_timeout_s=CONNECT_TIMEOUT_S)
    vectors = store.count(kb["id"])
    store.close()
    completed = [d for d in docs if d["status"] == "completed"]
    return {
        "workers": workers,
        "documents": len(rows),
        "completed": len(completed),
        "errors": len(docs) - len(completed),
        "seconds": round(elapsed, 1),
        "docs_per_s": round(len(rows) / elapsed, 2),
        "killed_worker_after_docs": killed_at,
        "vectors_equal_chunks": vectors == sum(d["chunk_count"] for d in completed),
        "load": load_average(),
    }


async def hammer(
    url: str,
    kb_id: str,
    clients: int,
    seconds: float,
    ask: bool,
    queries: list[str] = QUERIES,
    strategy: str = "hybrid",
) -> dict:
    """`clients` concurrent clients asking (SSE, whole answers) or retrieving (`strategy`,
    top 5) for `seconds`, cycling through `queries`."""
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + seconds

    async def client_loop(i: int) -> None:
        nonlocal errors
        async with httpx.AsyncClient(timeout=300) as client:
            n = i
            while time.monotonic() < deadline:
                query = queries[n % len(queries)]
                n += clients
                started = time.perf_counter()
                body: dict[str, Any]
                try:
                    if ask:
                        body = {"question": query, "knowledge_bases": ["ingest-2"]}
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
    root = Path(tempfile.mkdtemp(prefix="planrag-bench-scale-"))
    root.chmod(0o755)
    logs = RESULTS_DIR / "scale-logs"
    logs.mkdir(parents=True, exist_ok=True)
    rows = news(args.docs)
    try:
        with shared_stores(root) as env:
            with api(env, 1, logs / "api-ingest.log") as url:
                report["ingest_1_worker"] = ingestion(url, env, rows, 1, False, logs)
                log(f"ingestion, 1 worker: {report['ingest_1_worker']}")
                report["ingest_2_workers_one_killed"] = ingestion(url, env, rows, 2, True, logs)
                log(f"ingestion, 2 workers (one killed): {report['ingest_2_workers_one_killed']}")
                kb_id = next(
                    kb["id"]
                    for kb in httpx.get(f"{url}/api/knowledge-bases").json()
                    if kb["name"] == "ingest-2"
                )
            for workers in (1, 2):
                with api(env, workers, logs / f"api-{workers}.log") as url:
                    for kind in ("retrieve", "ask"):
                        result = asyncio.run(
                            hammer(url, kb_id, args.clients, args.seconds, kind == "ask")
                        )
                        report[f"{kind}_{workers}_processes"] = result
                        log(f"{kind}, {workers} API process(es): {result}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    one, two = report["ingest_1_worker"], report["ingest_2_workers_one_killed"]
    report["ratios"] = {
        "ingest_2_over_1": round(two["docs_per_s"] / one["docs_per_s"], 2),
        "retrieve_2_over_1": round(
            report["retrieve_2_processes"]["per_s"] / report["retrieve_1_processes"]["per_s"], 2
        ),
        "ask_2_over_1": round(
            report["ask_2_processes"]["per_s"] / report["ask_1_processes"]["per_s"], 2
        ),
    }
    log(f"ratios: {report['ratios']}")


def main() -> None:
    import argparse

    from bench import throughput

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--phases", nargs="*", choices=["shared", "batching"], default=["shared", "batching"]
    )
    parser.add_argument("--docs", type=int, default=2000, help="news items ingested (shared)")
    throughput.add_arguments(parser)  # --chunks, --clients, --seconds, --embed-threads
    args = parser.parse_args()
    report: dict[str, Any] = {"machine": machine(), "docs": args.docs, "chunks": args.chunks}
    started = time.perf_counter()
    if "shared" in args.phases:
        shared_phase(args, report)
    if "batching" in args.phases:
        report["batching"] = throughput.run(args, ["store", "retrieve"])
    report["minutes"] = round((time.perf_counter() - started) / 60, 1)
    log(f"wrote {write_json(RESULTS_DIR / 'scale.json', report)}")


if __name__ == "__main__":
    main()
