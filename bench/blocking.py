"""Searches during indexing: retrieve latency on knowledge base B while a 1 MB Korean text is
indexed into knowledge base A, against the same searches with nothing indexing (issue 16).

    python -m bench.blocking [--queries 15] [--no-priority]

Both KBs live in one Runtime, as in `planrag serve` (one process, one model). The questions are
distinct (the query-vector cache never answers), the strategy is hybrid (both legs). Each phase
reports p50/p95/max in ms; the busy phase counts only searches issued while the document was
still `processing`, and samples its `progress` (`chunks embedded n/N`). `--no-priority` sends
passages to the model in one call per indexing step, as before the fix, for comparison.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

from bench.corpus import korean_paragraphs
from planrag.core.settings import Settings
from planrag.core.types import DocumentStatus
from planrag.llm.query_batching import BatchingEmbedder
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest

MB = 1 << 20


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 0.5), 1),
        "p95": round(percentile(values, 0.95), 1),
        "max": round(max(values), 1),
    }


def big_korean_text(paragraphs: list[str], size: int = MB) -> str:
    parts, total, i = [], 0, 0
    while total < size:
        text = paragraphs[i % len(paragraphs)]
        parts.append(text)
        total += len(text.encode()) + 2
        i += 1
    return "\n\n".join(parts)


def timed_search(runtime: Runtime, kb_id: str, question: str) -> float:
    began = time.perf_counter()
    runtime.retrieval.retrieve(kb_id, RetrieveRequest(query=question, strategy="hybrid", top_k=5))
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=15)
    parser.add_argument("--no-priority", action="store_true")
    args = parser.parse_args()
    if args.no_priority:  # as before: one model call per indexing step, no giving way
        BatchingEmbedder.embed = lambda self, texts: self.inner.embed(texts)  # type: ignore[method-assign]
    paragraphs = [p.text for p in korean_paragraphs()]
    firsts = (p.text.split(".")[0][:60].strip() for p in korean_paragraphs()[::3])
    questions = [q for q in firsts if len(q) >= 5]
    with tempfile.TemporaryDirectory(prefix="bench-blocking-") as tmp:
        runtime = Runtime.open(Settings(_env_file=None, data_dir=Path(tmp)))  # type: ignore[call-arg]
        try:
            report = run(runtime, paragraphs, questions, args.queries)
        finally:
            runtime.close()
    report["priority"] = not args.no_priority
    print(json.dumps(report, ensure_ascii=False))


def run(runtime: Runtime, paragraphs: list[str], questions: list[str], n: int) -> dict:
    kbs = runtime.knowledge_bases
    b = kbs.create(KnowledgeBaseCreate(name="b"))
    a = kbs.create(KnowledgeBaseCreate(name="a"))
    items = [
        UploadItem(filename=f"{i}.txt", data=t.encode()) for i, t in enumerate(paragraphs[:15])
    ]
    for doc in runtime.ingestion.upload(b.id, items, background=False):
        runtime.ingestion.index(doc.id)
    timed_search(runtime, b.id, "워밍업")  # models loaded, BM25 built
    idle = [timed_search(runtime, b.id, q) for q in questions[:n]]

    text = big_korean_text(paragraphs)
    (doc,) = runtime.ingestion.upload(a.id, [UploadItem(filename="big.txt", data=text.encode())])
    started = time.perf_counter()
    busy, progress_seen = [], []
    for question in questions[n : 2 * n]:
        current = runtime.metadata.get_document(doc.id)
        if current.status != DocumentStatus.processing and busy:
            break
        if current.progress:
            progress_seen.append(current.progress)
        busy.append(timed_search(runtime, b.id, question))
    still = runtime.metadata.get_document(doc.id).status.value
    return {
        "document_bytes": len(text.encode()),
        "idle_ms": summary(idle),
        "during_indexing_ms": summary(busy),
        "ratio_p95": round(summary(busy)["p95"] / summary(idle)["p95"], 2) if busy else None,
        "status_after_busy_phase": still,
        "progress_samples": progress_seen[:3] + progress_seen[-2:],
        "busy_phase_s": round(time.perf_counter() - started, 1),
        "threads": threading.active_count(),
    }


if __name__ == "__main__":
    main()
