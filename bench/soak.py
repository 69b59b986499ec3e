"""A soak of the multi-process set-up (issue 14): asks, uploads and deletes mixed for minutes.

    python -m bench.soak [--minutes 10] [--askers 4] [--docs 200]

Milvus Lite's gRPC server + embedded PostgreSQL (bench.stack), `planrag serve --workers 2
--no-worker` and one `planrag worker`. A KB of `--docs` Korean news items is indexed first;
then for `--minutes`, at the same time:

- `--askers` clients each asking `/ai/v2/ask` (SSE, whole answers, no LLM) one after another;
- an uploader posting 1–3 new documents every ~2 s (news items not in the KB, each made unique
  by a counter, so none is a re-upload);
- a deleter deleting one of the documents the uploader added every ~3 s, whatever its status
  (queued, being indexed or indexed: deletion races indexing on purpose).

Every client opens a new connection per request, so that requests spread over both API
processes. Before the first sample, 40 asks warm both processes up (the e5 model and the KB's
BM25 index are loaded at a process's first ask: not growth). Every ~30 s (`--sample-s`): RSS
and open file descriptors of every planrag process (the API supervisor, its 2 processes, the
indexing worker and its helper process), the Milvus Lite server, PostgreSQL (its postmaster)
and the bench itself; the CPU seconds of each group over the soak. Errors: non-200 answers and
exceptions by operation and kind (an ask also fails on an `error` event or no `end` event),
with the first messages of each kind. At the end, once the queue is empty: no document left
`pending`/`processing`/`deleting`, every uploaded document not deleted is `completed`, every
deleted one answers 404, and the vectors of each document are exactly its chunks (no vector of
a deleted document left). Results: bench/results/soak.json (+ logs in bench/results/soak-logs).
The full run takes `--minutes` + about 4 minutes (start-up, first indexing, the final check).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.ingest_workers import check, queue_depth
from bench.report import RESULTS_DIR, load_average, log, machine, write_json
from bench.scale import QUERIES
from bench.sse import one_ask
from bench.stack import Stack, api, news, planrag, shared_stores, stop, upload

KB = "soak"
BUSY = {"pending", "processing", "deleting"}


class Tally:
    """Operations done and errors by kind, with the first examples of each kind."""

    def __init__(self) -> None:
        self.done: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        examples = self.examples.setdefault(kind, [])
        if len(examples) < 3:
            examples.append(detail[:300])


class Soak:
    def __init__(self, url: str, kb_id: str, rows: list[dict[str, str]], deadline: float) -> None:
        self.url, self.kb_id, self.rows, self.deadline = url, kb_id, rows, deadline
        self.tally = Tally()
        self.uploaded: list[str] = []  # documents the uploader added and nobody deleted yet
        self.deleted: list[str] = []
        self.added = 0

    def running(self) -> bool:
        return time.monotonic() < self.deadline

    async def asker(self, client: httpx.AsyncClient, n: int) -> None:
        while self.running():
            body = {"question": QUERIES[n % len(QUERIES)], "knowledge_bases": [KB]}
            n += 1
            result = await one_ask(client, self.url, body)
            if "error" in result:
                self.tally.error(f"ask: {result['error']}", str(result))
            else:
                self.tally.done["ask"] += 1

    async def uploader(self, client: httpx.AsyncClient) -> None:
        docs_url = f"{self.url}/api/knowledge-bases/{self.kb_id}/documents"
        while self.running():
            files = []
            for _ in range(random.randint(1, 3)):
                row = self.rows[self.added % len(self.rows)]
                text = f"{row['text']}\n(soak {self.added})"
                files.append(("files", (f"soak-{self.added}.txt", text.encode(), "text/plain")))
                self.added += 1
            try:
                response = await client.post(docs_url, files=files)
                if response.status_code != 202:
                    self.tally.error(f"upload: HTTP {response.status_code}", response.text)
                else:
                    self.uploaded += [d["id"] for d in response.json()]
                    self.tally.done["upload"] += len(files)
            except httpx.HTTPError as exc:
                self.tally.error(f"upload: {type(exc).__name__}", repr(exc))
            await asyncio.sleep(2.0)

    async def deleter(self, client: httpx.AsyncClient) -> None:
        while self.running():
            await asyncio.sleep(3.0)
            if not self.uploaded:
                continue
            doc_id = self.uploaded.pop(random.randrange(len(self.uploaded)))
            url = f"{self.url}/api/knowledge-bases/{self.kb_id}/documents/{doc_id}"
            try:
                response = await client.delete(url)
                if response.status_code != 204:
                    self.tally.error(f"delete: HTTP {response.status_code}", response.text)
                    self.uploaded.append(doc_id)
                else:
                    self.deleted.append(doc_id)
                    self.tally.done["delete"] += 1
            except httpx.HTTPError as exc:
                self.tally.error(f"delete: {type(exc).__name__}", repr(exc))

    async def run(self, askers: int) -> None:
        async with fresh_connections(askers + 2) as client:
            await asyncio.gather(
                *(self.asker(client, i) for i in range(askers)),
                self.uploader(client),
                self.deleter(client),
            )


def fresh_connections(n: int) -> httpx.AsyncClient:
    """A client that opens a new connection per request (no keep-alive), so that requests
    spread over the API processes (a kept connection stays with the process that accepted it)."""
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
    return httpx.AsyncClient(timeout=httpx.Timeout(300.0), limits=limits)


async def warm_up(url: str, asks: int = 40, concurrency: int = 8) -> int:
    """Asks before the first sample: each API process loads the e5 model and the KB's BM25
    index at its first ask, which is not growth. The number of failed asks."""
    body = {"question": QUERIES[0], "knowledge_bases": [KB]}
    async with fresh_connections(concurrency) as client:
        results = []
        for _ in range(asks // concurrency):
            results += await asyncio.gather(
                *(one_ask(client, url, body) for _ in range(concurrency))
            )
    return sum("error" in r for r in results)


def sample(meter: Any, started: float) -> dict[str, Any]:
    """RSS and descriptors of every process now (PostgreSQL: the postmaster; backends come
    and go with connections)."""
    snap = meter.snapshot()
    backends = len(snap["postgres"]) - 1
    snap["postgres"] = snap["postgres"][:1]
    return {"t_s": round(time.monotonic() - started, 1), "postgres_backends": backends, **snap}


def sampler(meter: Any, every_s: float, started: float, stop_at: float, out: list) -> None:
    """A snapshot every `every_s` seconds until `stop_at` (run in a thread)."""
    while time.monotonic() < stop_at - 1.0:
        out.append(sample(meter, started))
        time.sleep(min(every_s, max(stop_at - time.monotonic() - 0.5, 0.0)))


def growth(samples: list[dict]) -> list[dict[str, Any]]:
    """Per process seen in the first and last sample: RSS and descriptors first → last."""
    first, last = samples[0], samples[-1]
    rows = []
    for group, procs in first.items():
        if not isinstance(procs, list):
            continue
        later = {p["pid"]: p for p in last.get(group, [])}
        for p in procs:
            q = later.get(p["pid"])
            if q is None:
                rows.append({"group": group, "pid": p["pid"], "role": p["role"], "gone": True})
                continue
            rows.append(
                {
                    "group": group,
                    "pid": p["pid"],
                    "role": p["role"],
                    "rss_mb": [p["rss_mb"], q["rss_mb"]],
                    "rss_growth_mb": round(q["rss_mb"] - p["rss_mb"], 1),
                    "fds": [p["fds"], q["fds"]],
                    "fds_max": max(
                        s["fds"] for snap in samples for s in snap.get(group, [])
                        if s["pid"] == p["pid"]
                    ),
                }
            )  # fmt: skip
    return rows


def wait_drained(url: str, timeout_s: float) -> bool:
    """Until the ingestion queue is empty; False if it still is not after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while queue_depth(url) > 0:
        if time.monotonic() > deadline:
            return False
        time.sleep(1.0)
    return True


def final_check(url: str, stack: Stack, kb_id: str, living: list[str], deleted: list[str]) -> dict:
    """The documents after the soak: none busy, the living `completed` with exactly their
    vectors, the deleted gone (404, no vector left)."""
    docs = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=300).json()
    busy = [d for d in docs if d["status"] in BUSY]
    with httpx.Client(timeout=60) as client:
        deleted_found = sum(
            client.get(f"{url}/api/knowledge-bases/{kb_id}/documents/{d}").status_code != 404
            for d in deleted
        )
    result = check(url, stack, kb_id, living, [])
    result.pop("docs_indexed_more_than_once")
    result.update(
        busy=len(busy),
        busy_examples=[{k: d[k] for k in ("id", "status", "filename")} for d in busy[:5]],
        deleted=len(deleted),
        deleted_still_found=deleted_found,
    )
    result["ok"] = bool(result["ok"] and not busy and not deleted_found)
    return result


def soak(args: argparse.Namespace, stack: Stack, logs: Path) -> dict[str, Any]:
    with api(stack.env, 2, logs / "api.log") as server:
        worker = planrag(["worker"], stack.env, logs / "worker.log")
        try:
            url = server.url
            kb_id = httpx.post(f"{url}/api/knowledge-bases", json={"name": KB}, timeout=60).json()[
                "id"
            ]
            initial = upload(url, kb_id, news(args.docs))
            if not wait_drained(url, 1800):
                raise RuntimeError("the first documents were not indexed in 30 minutes")
            warm_up_errors = asyncio.run(warm_up(url))
            log(f"soak: {len(initial)} documents indexed; soaking {args.minutes} min")
            meter = stack.meter(api=lambda: [server.pid], worker=lambda: [worker.pid])
            started = time.monotonic()
            deadline = started + args.minutes * 60
            samples: list[dict[str, Any]] = []
            thread = threading.Thread(
                target=sampler, args=(meter, args.sample_s, started, deadline, samples)
            )
            meter.start()
            thread.start()
            load_before = load_average()
            run = Soak(url, kb_id, news(args.extra, skip=args.docs), deadline)
            asyncio.run(run.run(args.askers))
            thread.join()
            samples.append(sample(meter, started))
            cpu = meter.stop()
            load_after = load_average()
            drained = wait_drained(url, 600)
            consistency = final_check(url, stack, kb_id, initial + run.uploaded, run.deleted)
        finally:
            stop(worker)
    return {
        "minutes": args.minutes,
        "askers": args.askers,
        "initial_documents": len(initial),
        "operations": dict(run.tally.done),
        "errors": sum(run.tally.errors.values()),
        "errors_by_kind": dict(run.tally.errors),
        "error_examples": run.tally.examples,
        "warm_up_errors": warm_up_errors,
        "queue_drained_after": drained,
        "consistency": consistency,
        "growth": growth(samples),
        "samples": samples,
        "cpu": cpu,
        "load_before": load_before,
        "load_after": load_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--askers", type=int, default=4, help="concurrent ask loops")
    parser.add_argument("--docs", type=int, default=200, help="news items indexed first")
    parser.add_argument("--extra", type=int, default=500, help="news items the uploader cycles")
    parser.add_argument("--sample-s", type=float, default=30.0, help="RSS/fd sampling period")
    args = parser.parse_args()
    report: dict[str, Any] = {"cores": os.cpu_count(), "load_at_start": load_average()}
    root = Path(tempfile.mkdtemp(prefix="planrag-bench-soak-"))
    root.chmod(0o755)
    logs = RESULTS_DIR / "soak-logs"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        with shared_stores(root) as stack:
            report.update(soak(args, stack, logs))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["wall_minutes"] = round((time.perf_counter() - started) / 60, 1)
    report["machine"] = machine()
    summary = {k: report[k] for k in ("operations", "errors", "errors_by_kind")}
    log(f"soak: {summary}; consistency ok: {report['consistency']['ok']}")
    log(f"wrote {write_json(RESULTS_DIR / 'soak.json', report)}")


if __name__ == "__main__":
    main()
