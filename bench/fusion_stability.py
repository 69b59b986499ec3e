"""Issue 25's stability check through the HTTP API: the same set ingested several times, each
into a fresh data dir by a server whose string hashing and global random generators are seeded
differently (`bench.seeded`), documents uploaded one request each (with their title) and
indexed by the server's own workers; then nDCG@10 of every judged query per strategy
(`bench.fusion_http.run_set`) and the KB's calibrated weights.

    flock /work/bench.lock python -m bench.fusion_stability --sets publichealthqa_ko \
        allganize_rag_ko --seeds 1 2 3

The issue's bar: each strategy's nDCG@10 within 0.003 across the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx  # noqa: E402

from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.fusion_http import STRATEGIES, run_set  # noqa: E402
from bench.server import planrag_server  # noqa: E402
from planrag.services.evaluation import BeirDataset, _document_text  # noqa: E402

TOLERANCE = 0.003
POLL_S = 2.0
SETTLE_S = 300.0  # how long to wait for the calibration that covers every chunk


def ingest(url: str, name: str, dataset: BeirDataset) -> dict[str, Any]:
    """A KB `set-<name>` filled over HTTP; returns it once every document is indexed."""
    response = httpx.post(f"{url}/api/knowledge-bases", json={"name": f"set-{name}"}, timeout=60)
    response.raise_for_status()
    kb = response.json()
    documents = f"{url}/api/knowledge-bases/{kb['id']}/documents"
    for cid, entry in dataset.corpus.items():
        text = _document_text(entry)
        if not text:
            continue
        title = entry.title.strip()[:1000]
        response = httpx.post(
            documents,
            files=[("files", (f"{cid}.txt", text.encode(), "text/plain"))],
            data={"title": title} if title else {},
            timeout=300,
        )
        response.raise_for_status()
    while True:
        statuses = [d["status"] for d in httpx.get(documents, timeout=300).json()]
        if all(s in ("completed", "error") for s in statuses):
            break
        time.sleep(POLL_S)
    if "error" in statuses:
        raise SystemExit(f"{name}: {statuses.count('error')} documents failed")
    return settled(url, kb["id"])


def settled(url: str, kb_id: str) -> dict[str, Any]:
    """The KB once its calibration covers every chunk (or after SETTLE_S: code that does not
    recalibrate when indexing is done leaves it covering fewer)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        kb = dict(httpx.get(f"{url}/api/knowledge-bases/{kb_id}", timeout=60).json())
        covered = (kb.get("calibration") or {}).get("chunk_count")
        if covered == kb["stats"]["chunk_count"] or time.monotonic() > deadline:
            return kb
        time.sleep(POLL_S)


def run_once(name: str, dataset: BeirDataset, seed: int, root: Path) -> dict[str, Any]:
    data_dir = root / f"{name}-seed{seed}" / "data"
    shutil.rmtree(data_dir.parent, ignore_errors=True)
    data_dir.mkdir(parents=True)
    with planrag_server(data_dir, data_dir.parent / "server.log", seed=seed) as server:
        started = time.perf_counter()
        kb = ingest(server.base_url, name, dataset)
        ingest_s = round(time.perf_counter() - started)
        scores = run_set(server.base_url, name, dataset, fresh=False)
    calibration = kb.get("calibration") or {}
    return {
        "seed": seed,
        "ingest_s": ingest_s,
        "chunks": kb["stats"]["chunk_count"],
        "calibrated_on": calibration.get("chunk_count"),
        "calibration": calibration.get("scripts"),
        **scores,
    }


def spreads(runs: list[dict[str, Any]]) -> dict[str, float]:
    return {
        s: round(max(r[s] for r in runs) - min(r[s] for r in runs), 4)
        for s in STRATEGIES
        if all(s in r for r in runs)
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--root", type=Path, default=RESULTS / "stability")
    parser.add_argument("--out", type=Path, default=RESULTS / "fusion_stability.json")
    args = parser.parse_args()
    datasets = all_datasets()
    results: dict[str, Any] = {}
    for name in args.sets:
        dataset = BeirDataset.load(datasets[name])
        runs = [run_once(name, dataset, seed, args.root.resolve()) for seed in args.seeds]
        spread = spreads(runs)
        results[name] = {
            "runs": runs,
            "spread": spread,
            "within": all(v <= TOLERANCE for v in spread.values()),
        }
        print(name, json.dumps(results[name]["spread"]), flush=True)
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
