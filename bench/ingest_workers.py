"""Ingestion by `planrag worker` processes over the shared stores (bench.scale's shared phase).

One run: a fresh KB, every news item uploaded first (the API enqueues; no worker runs yet),
then `workers` worker processes started and timed until the queue is empty. Each worker embeds
with 1 thread and one job at a time (OMP_NUM_THREADS=1, PLANRAG_INGEST__CONCURRENCY=1), so 2
workers can use 2 cores. Reported: documents/s over the whole run (worker start-up included)
and in the steady part (from 10 % to 90 % of the documents done, which leaves out start-up and
the tail), the CPU seconds of each process group (bench.procstats) and the check:

- every document `completed`, listed once, the queue empty;
- no duplicate passages: per document, the chunk ids in Milvus are exactly the chunk ids the
  metadata DB holds (so vectors = chunks document by document, not only in total), no two
  vectors of a document carry the same text, and no vector belongs to a document not listed;
- how many documents a worker indexed more than once (worker logs at INFO): after a SIGKILL the
  killed worker's job is re-run by another once its lease expires — expected, and harmless when
  the check above holds.
"""

from __future__ import annotations

import re
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.report import load_average, log
from bench.stack import Stack, planrag, stop, upload

INDEXED = re.compile(r"indexed (\S+): (?:DocumentStatus\.)?completed")
POLL_S = 1.0
STALL_S = 900  # a worker's start-up on a loaded machine took ≈ 1 min; 15 without progress is stuck


def queue_depth(url: str) -> int:
    """`planrag_ingest_queue_depth` from /metrics (a count in the DB; cheaper than listing)."""
    text = httpx.get(f"{url}/metrics", timeout=60).text
    for line in text.splitlines():
        if line.startswith("planrag_ingest_queue_depth "):
            return int(float(line.split()[1]))
    raise RuntimeError("/metrics has no planrag_ingest_queue_depth")


def run(
    url: str, stack: Stack, api_pid: int, rows: list[dict[str, str]], name: str,
    workers: int, kill: bool, logs: Path,
) -> dict[str, Any]:  # fmt: skip
    """Index `rows` into a new KB `name` with `workers` worker processes (the first SIGKILLed
    at half the documents when `kill`)."""
    kb = httpx.post(f"{url}/api/knowledge-bases", json={"name": name}, timeout=60).json()
    doc_ids = upload(url, kb["id"], rows)
    total = len(doc_ids)
    worker_env = {**stack.env, "PLANRAG_LOG_LEVEL": "INFO"}
    procs: list = []
    meter = stack.meter(api=lambda: [api_pid], workers=lambda: [p.pid for p in procs]).start()
    started = time.monotonic()
    marks: dict[str, tuple[float, int]] = {}  # when 10 % and 90 % were done, and how many
    killed_at = None
    log_paths = [logs / f"{name}-w{i}.log" for i in range(workers)]
    for path in log_paths:
        path.unlink(missing_ok=True)
    procs.extend(planrag(["worker"], worker_env, path) for path in log_paths)
    progress_at, last_done = time.monotonic(), -1
    try:
        while True:
            done = total - queue_depth(url)
            now = time.monotonic() - started
            if done != last_done:
                progress_at, last_done = time.monotonic(), done
            stalled(procs, progress_at, log_paths)
            for mark, share in (("10%", 0.1), ("90%", 0.9)):
                if mark not in marks and done >= share * total:
                    marks[mark] = (now, done)
            if kill and killed_at is None and done >= total // 2:
                procs[0].send_signal(signal.SIGKILL)
                killed_at = done
            if done >= total:
                break
            time.sleep(POLL_S)
    finally:
        elapsed = time.monotonic() - started
        cpu = meter.stop()
        for proc in procs:
            stop(proc)
    (t10, n10), (t90, n90) = marks.get("10%", (0.0, 0)), marks.get("90%", (elapsed, total))
    steady_docs, steady_s = n90 - n10, t90 - t10
    if steady_s < 2 * POLL_S:  # too short a run to tell: the whole run's rate
        steady_docs, steady_s = total, elapsed
    result = {
        "workers": workers,
        "killed": kill,
        "documents": total,
        "seconds": round(elapsed, 1),
        "docs_per_s": round(total / elapsed, 2),
        "steady_docs_per_s": round(steady_docs / steady_s, 2),
        "killed_worker_after_docs": killed_at,
        "cpu": cpu,
        "load": load_average(),
    }
    result["check"] = check(url, stack, kb["id"], doc_ids, log_paths)
    log(f"{name}: {result}")
    return result


def stalled(procs: list, progress_at: float, log_paths: list[Path]) -> None:
    """Raise when every worker has exited (the killed one included), or nothing finished for
    STALL_S seconds (a bench must end, with the logs to read)."""
    if all(p.poll() is not None for p in procs):
        raise RuntimeError(f"every worker exited; see {', '.join(map(str, log_paths))}")
    if time.monotonic() - progress_at > STALL_S:
        raise RuntimeError(f"no document finished for {STALL_S} s; see {log_paths[0]}")


def check(
    url: str, stack: Stack, kb_id: str, doc_ids: list[str], log_paths: list[Path]
) -> dict[str, Any]:
    """Every document `completed` once, no duplicate passages (see the module docstring)."""
    docs = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=300).json()
    statuses = Counter(d["status"] for d in docs)
    listed = Counter(d["id"] for d in docs)
    vectors = stack.vectors_by_doc(kb_id, list(listed))
    metadata = {doc_id: chunk_ids(url, kb_id, doc_id) for doc_id in listed}
    mismatched = [d for d in listed if set(vectors.get(d, {})) != metadata[d]]
    duplicate_texts = [d for d, by_id in vectors.items() if len(set(by_id.values())) != len(by_id)]
    stray = sorted(set(stack.vector_doc_ids(kb_id)) - set(listed))
    indexed = Counter(
        m.group(1) for path in log_paths for m in INDEXED.finditer(path.read_text(errors="replace"))
    )
    return {
        "uploaded": len(doc_ids),
        "listed": len(docs),
        "listed_twice": sum(n > 1 for n in listed.values()),
        "statuses": dict(statuses),
        "all_completed": statuses.get("completed", 0) == len(doc_ids) == len(docs),
        "queue_depth": queue_depth(url),
        "vectors": sum(len(v) for v in vectors.values()),
        "chunks": sum(d["chunk_count"] for d in docs),
        "docs_vectors_not_their_chunks": len(mismatched),
        "docs_with_duplicate_passages": len(duplicate_texts),
        "vectors_of_unlisted_docs": len(stray),
        "docs_indexed_more_than_once": sum(n > 1 for n in indexed.values()),
        "ok": (
            statuses.get("completed", 0) == len(doc_ids) == len(docs)
            and not mismatched and not duplicate_texts and not stray
        ),
    }  # fmt: skip


def chunk_ids(url: str, kb_id: str, doc_id: str) -> set[str]:
    """The ids of the chunks the metadata DB holds for a document (parents have no vector)."""
    chunks = httpx.get(
        f"{url}/api/knowledge-bases/{kb_id}/documents/{doc_id}/chunks", timeout=120
    ).json()
    return {c["id"] for c in chunks if c.get("kind") != "parent"}


def ratio(one: dict[str, Any], two: dict[str, Any]) -> dict[str, float]:
    return {
        "steady": round(two["steady_docs_per_s"] / one["steady_docs_per_s"], 2),
        "whole_run": round(two["docs_per_s"] / one["docs_per_s"], 2),
        "cpu_workers_2_over_1": round(
            two["cpu"]["cpu_s"]["workers"] / max(one["cpu"]["cpu_s"]["workers"], 1e-9), 2
        ),
    }
