"""The fusion replay checked against the product through its HTTP API: a real `planrag serve`
over a copy of the sets' data dir (`bench.fusion export`'s KBs `set-<name>`, a document's
filename `<corpus id>.txt`), every judged query through `POST …/retrieve` with each strategy,
nDCG@10 as `planrag eval` scores it (top 30 chunks → documents, first occurrence).

    python -m bench.fusion_http --data-dir bench/results/fuse/data --sets publichealthqa_ko \
        [--retokenise]

`--retokenise` first re-tokenises each KB's chunks for BM25 with the code under test (PATCH of
its user words, unchanged) and recalibrates it, as a deployment upgrading its tokenizer would.
Never point it at a shared data dir: the server opens it for writing.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx  # noqa: E402

from bench.datasets import RESULTS, all_datasets  # noqa: E402
from bench.server import planrag_server  # noqa: E402
from planrag.services.evaluation import BeirDataset  # noqa: E402
from planrag.services.metrics import ndcg_at  # noqa: E402

STRATEGIES = ["ann", "bm25", "hybrid"]
TOP_K = 30
MAX_QUERY_CHARS = 2000


def kb_of(url: str, name: str) -> dict[str, Any]:
    kbs = httpx.get(f"{url}/api/knowledge-bases", timeout=60).json()
    found = next((k for k in kbs if k["name"] == f"set-{name}"), None)
    if found is None:
        raise SystemExit(f"no knowledge base set-{name} in the data dir")
    return dict(found)


def corpus_ids(url: str, kb_id: str) -> dict[str, str]:
    """Document id → corpus id (the filename without `.txt`)."""
    listed = httpx.get(f"{url}/api/knowledge-bases/{kb_id}/documents", timeout=300).json()
    return {d["id"]: d["filename"].removesuffix(".txt") for d in listed}


def retokenise(url: str, kb: dict[str, Any]) -> None:
    response = httpx.patch(
        f"{url}/api/knowledge-bases/{kb['id']}",
        json={"user_words": kb.get("user_words") or []},
        timeout=3600,
    )
    response.raise_for_status()


def run_set(url: str, name: str, dataset: BeirDataset, fresh: bool) -> dict[str, Any]:
    kb = kb_of(url, name)
    if fresh:
        retokenise(url, kb)
    docs = corpus_ids(url, kb["id"])
    judged = {q: t for q, t in dataset.queries.items() if dataset.qrels.get(q)}
    out: dict[str, Any] = {}
    for strategy in STRATEGIES:
        scores, weights = [], []
        for qid, text in judged.items():
            body = {
                "query": text[:MAX_QUERY_CHARS],
                "strategy": strategy,
                "top_k": TOP_K,
                "score_threshold": 0.0,
            }
            response = httpx.post(
                f"{url}/api/knowledge-bases/{kb['id']}/retrieve", json=body, timeout=300
            )
            response.raise_for_status()
            hits = response.json()
            ranking = list(dict.fromkeys(docs[h["doc_id"]] for h in hits))
            scores.append(ndcg_at(ranking, dataset.qrels[qid], 10))
            fusion = (hits[0].get("metadata") or {}).get("fusion") if hits else None
            if fusion:
                weights.append(fusion.get("dense_weight"))
        out[strategy] = round(sum(scores) / len(scores), 4)
        if weights:
            out[f"{strategy} dense weights"] = sorted(set(weights))[:5]
        print(name, strategy, out[strategy], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--retokenise", action="store_true")
    parser.add_argument("--drop", nargs="*", default=[], help="sets whose KB to delete first")
    parser.add_argument("--out", type=Path, default=RESULTS / "fusion_http.json")
    args = parser.parse_args()
    datasets = all_datasets()
    small = datasets.get("hotpotqa_200")
    if small is not None:
        datasets["hotpotqa_24"] = small.with_name("hotpotqa_24.json")
    results: dict[str, Any] = {}
    with planrag_server(args.data_dir.resolve(), RESULTS / "fusion_http.log") as server:
        for name in args.drop:  # e.g. a set copied half-ingested: its indexing would resume
            kb = kb_of(server.base_url, name)
            httpx.delete(f"{server.base_url}/api/knowledge-bases/{kb['id']}", timeout=600)
        for name in args.sets:
            dataset = BeirDataset.load(datasets[name])
            results[name] = run_set(server.base_url, name, dataset, args.retokenise)
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
