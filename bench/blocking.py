"""Searches during indexing: hybrid retrieve latency on knowledge base B while a 1 MB Korean text
is indexed into knowledge base A, against the same searches with nothing indexing (issue 16).

    python -m bench.blocking [--rounds 2] [--variants process,inproc] [--busy-s 75]

Two ways of indexing are compared in the same run, alternately (process, inproc, process,
inproc, …) so that a machine whose load changes meanwhile treats both alike:
- `process`: passages are tokenised and embedded in the niced helper process
  (PLANRAG_INGEST__EMBED_PROCESS=true, the default);
- `inproc`: in the server's own process, in slices that give way to questions (false).

Each round opens a fresh Runtime as `planrag serve` does (one process, default model e5), indexes
15 documents into B, runs `--queries` searches on B with nothing indexing (idle), then uploads the
1 MB text into A and searches B (busy) until `--queries` searches ran while chunks were being
embedded, the document left `processing`, or `--busy-s` seconds passed. Searches are paced
(`--pause-s` between them, as users are) and every question is a distinct question of the
Korean evaluation sets (the query-vector cache never answers). The busy searches are split by
what the indexing was doing when they started: `prepare` (parse, chunk, tokenise; no progress
yet) and `embed` (progress `chunks embedded n/N` shown). The load average is printed before and
after, and one JSON line per round for machines to read.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import time
from pathlib import Path

from bench.corpus import korean_paragraphs, korean_queries
from planrag.core.settings import Settings
from planrag.core.types import DocumentStatus
from planrag.runtime import Runtime
from planrag.services.ingestion import UploadItem
from planrag.services.knowledge_bases import KnowledgeBaseCreate
from planrag.services.retrieval import RetrieveRequest

MB = 1 << 20
VARIANTS = {"process": True, "inproc": False}


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


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def one_round(variant: str, args: argparse.Namespace, questions: list[str]) -> dict:
    paragraphs = [p.text for p in korean_paragraphs()]
    with tempfile.TemporaryDirectory(prefix="bench-blocking-") as tmp:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=Path(tmp),
            ingest={"embed_process": VARIANTS[variant]},
        )
        runtime = Runtime.open(settings)
        indexing: list[str] = []
        try:
            report = measure(runtime, paragraphs, questions, args, indexing)
        finally:
            runtime.close()
            for doc_id in indexing:
                runtime.ingestion.wait_for(doc_id)  # the indexing thread stops before tmp goes
    return {"variant": variant, **report}


def measure(
    runtime: Runtime,
    paragraphs: list[str],
    questions: list[str],
    args: argparse.Namespace,
    indexing: list[str],
) -> dict:
    kbs, n = runtime.knowledge_bases, args.queries
    b = kbs.create(KnowledgeBaseCreate(name="b"))
    a = kbs.create(KnowledgeBaseCreate(name="a"))
    items = [
        UploadItem(filename=f"{i}.txt", data=t.encode()) for i, t in enumerate(paragraphs[:15])
    ]
    for doc in runtime.ingestion.upload(b.id, items, background=False):
        runtime.ingestion.index(doc.id)
    timed_search(runtime, b.id, "워밍업")  # models loaded, BM25 built
    idle = []
    for question in questions[:n]:
        idle.append(timed_search(runtime, b.id, question))
        time.sleep(args.pause_s)

    text = big_korean_text(paragraphs)
    (doc,) = runtime.ingestion.upload(a.id, [UploadItem(filename="big.txt", data=text.encode())])
    indexing.append(doc.id)
    started = time.perf_counter()
    phases: dict[str, list[float]] = {"prepare": [], "embed": []}
    progress, prepare_s = None, None
    for question in questions[n:]:
        current = runtime.metadata.get_document(doc.id)
        if current.status != DocumentStatus.processing and any(phases.values()):
            break
        if time.perf_counter() - started > args.busy_s or len(phases["embed"]) >= n:
            break
        progress = current.progress or progress
        phase = "embed" if current.progress else "prepare"
        if phase == "embed" and prepare_s is None:
            prepare_s = time.perf_counter() - started
        phases[phase].append(timed_search(runtime, b.id, question))
        time.sleep(args.pause_s)
    busy = phases["prepare"] + phases["embed"]
    return {
        "idle_ms": summary(idle),
        "busy_ms": summary(busy),
        "prepare_ms": summary(phases["prepare"]),
        "embed_ms": summary(phases["embed"]),
        "ratio_p95": round(summary(busy)["p95"] / summary(idle)["p95"], 2) if busy else None,
        "last_progress": progress,
        "prepare_s": None if prepare_s is None else round(prepare_s, 1),
        "busy_phase_s": round(time.perf_counter() - started, 1),
        "_idle": idle,
        "_busy": busy,
    }


def cell(s: dict) -> str:
    return f"{s['p50']:,.0f} / {s['p95']:,.0f} ({s['n']})" if s.get("n") else "–"


def print_table(rounds: list[dict], raw: dict[str, dict[str, list[float]]]) -> None:
    print(
        "\n| variant | run | idle p50 / p95 (n) | busy p50 / p95 (n) | prepare | embed |"
        " p95 ratio | embedding began after | progress seen |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, r in enumerate(rounds, 1):
        print(
            f"| {r['variant']} | {i} | {cell(r['idle_ms'])} | {cell(r['busy_ms'])} | "
            f"{cell(r['prepare_ms'])} | {cell(r['embed_ms'])} | {r['ratio_p95']}× | "
            f"{'–' if r['prepare_s'] is None else str(r['prepare_s']) + ' s'} | "
            f"{r['last_progress'] or '–'} |"
        )
    print("\nAll rounds pooled:\n")
    print("| variant | idle p50 / p95 (n) | busy p50 / p95 (n) | p95 ratio |")
    print("| --- | --- | --- | --- |")
    for variant, samples in raw.items():
        idle, busy = summary(samples["idle"]), summary(samples["busy"])
        ratio = round(busy["p95"] / idle["p95"], 2) if busy.get("n") and idle.get("n") else None
        print(f"| {variant} | {cell(idle)} | {cell(busy)} | {ratio}× |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", default="process,inproc")
    parser.add_argument("--queries", type=int, default=15, help="idle searches per round")
    parser.add_argument("--busy-s", type=float, default=75.0, help="longest busy phase")
    parser.add_argument("--pause-s", type=float, default=0.25)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("bm25s").setLevel(logging.ERROR)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    questions = korean_queries()
    print(f"load average before: {load()}", flush=True)
    rounds: list[dict] = []
    raw: dict[str, dict[str, list[float]]] = {v: {"idle": [], "busy": []} for v in variants}
    for _ in range(args.rounds):
        for variant in variants:
            result = one_round(variant, args, questions)
            result["load_after"] = load()
            raw[variant]["idle"] += result.pop("_idle")
            raw[variant]["busy"] += result.pop("_busy")
            rounds.append(result)
            print(json.dumps(result, ensure_ascii=False), flush=True)
    print(f"load average after: {load()}")
    print_table(rounds, raw)


if __name__ == "__main__":
    main()
