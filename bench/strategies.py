"""Every retrieval strategy on every evaluation set, each set ingested once.

    python -m bench.strategies [--sets publichealthqa_ko cisi …] [--model NAME] [--out FILE.json]

Prints a markdown table (nDCG@10, Recall@5, MRR@10, p50/p95 ms) for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.datasets import RESULTS, all_datasets  # noqa: E402
from planrag.core.settings import Settings  # noqa: E402
from planrag.runtime import Runtime  # noqa: E402
from planrag.services.evaluation import BeirDataset, EvalSession  # noqa: E402

RUNS: list[tuple[str, str, dict[str, object]]] = [
    ("ann", "ann", {}),
    ("keyword", "keyword", {}),
    ("bm25", "bm25", {}),
    ("hybrid (sequential)", "hybrid", {"hybrid_mode": "sequential"}),
    ("hybrid (parallel, RRF)", "hybrid", {"hybrid_mode": "parallel"}),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="*")
    parser.add_argument("--runs", nargs="*", help="run labels to include (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS / "strategies.json")
    parser.add_argument("--model", help="embedding model (default: PLANRAG's default)")
    args = parser.parse_args()
    datasets = all_datasets()
    names = args.sets or list(datasets)
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        extra = {"embedding": {"model": args.model}} if args.model else {}
        settings = Settings(_env_file=None, data_dir=Path(tmp), **extra)  # type: ignore[call-arg]
        runtime = Runtime.open(settings)
        try:
            for name in names:
                with EvalSession(runtime, BeirDataset.load(datasets[name])) as session:
                    results[name] = {"ingest_s": round(session.ingest_s, 1)}
                    for label, strategy, extra in RUNS:
                        if args.runs and label not in args.runs:
                            continue
                        report = session.run(strategy, **extra)  # type: ignore[arg-type]
                        results[name][label] = report.as_json()
                        print(name, label, json.dumps(report.as_json()), flush=True)
        finally:
            runtime.close()
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(table(results))


def table(results: dict[str, dict[str, object]]) -> str:
    lines = [
        "| set | strategy | nDCG@10 | Recall@5 | MRR@10 | p50 ms | p95 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, runs in results.items():
        for label, report in runs.items():
            if not isinstance(report, dict):
                continue
            lat = report["latency_ms"]
            lines.append(
                f"| {name} | {label} | {report['ndcg@10']:.3f} | {report['recall@5']:.3f} | "
                f"{report['mrr@10']:.3f} | {lat['p50']:.1f} | {lat['p95']:.1f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
