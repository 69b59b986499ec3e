"""Retrieval quality of the same datasets on both vector stores (Milvus Lite, pgvector).

    nice -n 10 python -m bench.store_quality [--sets hotpotqa_200 cisi publichealthqa_ko]

Exactly what `planrag eval --store milvus|pgvector` does, in one process: each set is ingested
once per store into a throw-away KB (default settings; the embedded PostgreSQL is started in the
temporary data dir), then `ann`, `hybrid` and `ann` with title weighting (weights.title 0.3, the
corpus titles as document titles) run every judged query through `RetrievalService`. Latency
includes the query embedding and shares the machine with whatever else runs: read the quality.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.datasets import RESULTS, all_datasets
from bench.report import log, machine, markdown_table, write_json
from planrag.core.settings import Settings
from planrag.runtime import Runtime
from planrag.services.evaluation import BeirDataset, EvalSession

STORES = ("milvus", "pgvector")
RUNS: list[tuple[str, str, dict[str, Any]]] = [
    ("ann", "ann", {}),
    ("hybrid", "hybrid", {}),
    ("ann, weights.title 0.3", "ann", {"weights": {"chunk": 0.7, "title": 0.3}}),
]


def evaluate_set(runtime: Runtime, path: Path) -> dict[str, dict[str, Any]]:
    dataset = BeirDataset.load(path)
    results: dict[str, dict[str, Any]] = {}
    for store in STORES:
        with EvalSession(runtime, dataset, {"vector_store": store}) as session:
            results[store] = {"ingest_s": round(session.ingest_s, 1)}
            for label, strategy, extra in RUNS:
                report = session.run(strategy, **extra)  # type: ignore[arg-type]
                results[store][label] = report.as_json()
                log(f"{path.stem} {store} {label}: {json.dumps(report.as_json())}")
    return results


def table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    rows = []
    for name, by_store in results.items():
        for label, _, _ in RUNS:
            m, p = by_store["milvus"][label], by_store["pgvector"][label]
            rows.append(
                [
                    name,
                    label,
                    f"{m['ndcg@10']:.3f} / {p['ndcg@10']:.3f}",
                    f"{m['recall@5']:.3f} / {p['recall@5']:.3f}",
                    f"{m['mrr@10']:.3f} / {p['mrr@10']:.3f}",
                    f"{m['latency_ms']['p50']:.1f} / {p['latency_ms']['p50']:.1f}",
                ]
            )
        rows.append(
            [
                name,
                "ingest s",
                "",
                "",
                "",
                f"{by_store['milvus']['ingest_s']} / {by_store['pgvector']['ingest_s']}",
            ]
        )
    headers = ["set", "run", "nDCG@10 (M / pg)", "Recall@5", "MRR@10", "p50 ms (M / pg)"]
    return markdown_table(headers, rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="*", default=["hotpotqa_200", "cisi", "publichealthqa_ko"])
    parser.add_argument("--out", type=Path, default=RESULTS / "store_quality.json")
    args = parser.parse_args()
    datasets = all_datasets()
    results: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="planrag-bench-quality-") as tmp:
        Path(tmp).chmod(0o711)  # the embedded PostgreSQL runs as the postgres user when root
        settings = Settings(_env_file=None, data_dir=Path(tmp))  # type: ignore[call-arg]
        runtime = Runtime.open(settings)
        try:
            for name in args.sets:
                results[name] = evaluate_set(runtime, datasets[name])
        finally:
            runtime.close()
    write_json(args.out, {"sets": args.sets, "machine": machine(), "results": results})
    print(table(results))


if __name__ == "__main__":
    main()
