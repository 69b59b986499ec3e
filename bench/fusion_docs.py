"""Document-level fusion replayed over the exports (issue 25, session 10): a document's two
legs taken separately before fusing, instead of fusing chunks and keeping each document's best.

    python -m bench.fusion_docs [--folder <copy of /work/benchdata/e5/export>] [--sets …]

The product as it is (`bench.fusion_prf`'s replay: BM25 over the product's tokens, the KB
recalibrated by the code under test, the per-query spread-matched weight), and `mix μ`: each
candidate document scored (1 − μ) × its best fused chunk (the product, μ = 0) + μ × the fusion
of its best dense chunk and its best BM25 chunk, which may be different chunks (μ = 1: fused at
the document level). A document whose answer is split over two chunks, one matching the
question's words and one its meaning, gets both. Leave-one-set-out: μ chosen on the other sets
by the best worst margin to the set's best leg, scored on the held-out one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from bench.fusion_lexical import product_weight, recalibrated
from bench.fusion_offline import FOLDER, TOP_K, Legs, matched_weights, per_query
from bench.fusion_prf import Lexical
from planrag.services.metrics import ndcg_at

MIXES = [0.0, 0.25, 0.5, 0.75, 1.0]


def dense_scaled(cos: np.ndarray, base: float, top: float) -> np.ndarray:
    scaled = (cos - base) / (top - base)
    return np.clip(scaled, 0.0, None) + 0.01 * np.clip(scaled, None, 0.0)


def mixed(legs: Legs, weights: np.ndarray, base: float, top: float, mu: float) -> np.ndarray:
    """nDCG@10 per query with documents scored as the module says (queries one leg answers
    alone are the product's)."""
    product = per_query(legs, "atoptb", weights, base, top)
    out = product.copy()
    for i in range(len(legs.queries)):
        w = weights[i]
        if w >= 1.0 or w <= 0.0 or not (legs.lex[i] > 0).any():
            continue
        cand = legs.pools(i)
        dense = dense_scaled(legs.cos[i][cand], base, top)
        lex = legs.lex[i][cand]
        chunk = w * dense + (1 - w) * lex
        order = np.argsort(-chunk, kind="stable")[:TOP_K]  # the product's top chunks' documents
        best: dict[str, list[float]] = {}
        for j, c in enumerate(cand):
            doc = legs.docs[c]
            d, x, f = best.setdefault(doc, [-1e9, -1e9, -1e9])
            best[doc] = [max(d, dense[j]), max(x, lex[j]), max(f, chunk[j])]
        docs = list(dict.fromkeys(legs.docs[cand[j]] for j in order))
        scored = {
            doc: (1 - mu) * best[doc][2] + mu * (w * best[doc][0] + (1 - w) * best[doc][1])
            for doc in best
        }
        ranking = sorted(scored, key=lambda doc: -scored[doc])[: max(len(docs), 10)]
        out[i] = ndcg_at(ranking, legs.qrels[legs.queries[i]], 10)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument(
        "--sets",
        nargs="*",
        default=["publichealthqa_ko", "allganize_rag_ko", "hotpotqa_200", "cisi"],
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results/fusion_docs.json"))
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for name in args.sets:
        legs = Legs.load(name, args.folder)
        lexical = Lexical(legs)
        lex = np.stack([lexical.scores(t) for t in lexical.query_terms])
        legs = recalibrated(dataclasses.replace(legs, lex=lex))
        w, base, top = product_weight(legs)
        weights = matched_weights(legs, w, base, top)
        row = {
            "bm25": float(per_query(legs, "atoptb", 0.0, base).mean()),
            "ann": float(per_query(legs, "atoptb", 1.0, base).mean()),
        }
        for mu in MIXES:
            row[f"mix {mu}"] = float(mixed(legs, weights, base, top, mu).mean())
        results[name] = row
        print(name, json.dumps({k: round(v, 4) for k, v in row.items()}), flush=True)
        args.out.write_text(json.dumps(results, indent=1))
    print(json.dumps(held_out(results), indent=1))


def held_out(results: dict[str, dict[str, float]]) -> dict[str, dict[str, object]]:
    def margin(name: str, label: str) -> float:
        r = results[name]
        return r[label] - max(r["ann"], r["bm25"])

    labels = [f"mix {mu}" for mu in MIXES]
    out: dict[str, dict[str, object]] = {}
    for name in results:
        others = [n for n in results if n != name]
        best = max(labels, key=lambda lab: (min(margin(n, lab) for n in others), lab == "mix 0.0"))
        out[name] = {
            "chosen": best,
            "hybrid": round(results[name][best], 4),
            "product": round(results[name]["mix 0.0"], 4),
        }
    return out


if __name__ == "__main__":
    main()
