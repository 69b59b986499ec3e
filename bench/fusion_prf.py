"""Pseudo-relevance feedback replayed over the exports (issue 25, session 9): does feeding a
query's first results back into either leg move hybrid nDCG@10, held out?

    python -m bench.fusion_prf [--folder /work/benchdata/e5/export] [--sets …]

Per set, the product as it is (BM25 over the product's tokens, the KB recalibrated by the code
under test, per-query spread-matched weight: `bench.fusion_lexical --variants product
--recalibrate`), then:

- `rocchio k β`: the dense leg's query vector moved toward the mean of its own top k chunks'
  vectors, q' = (q + β · mean) normalised; the hybrid re-run with the new cosines (each leg's
  pool, the spread-matched weight, the KB's baseline/top as the product uses them);
- `rm3 k m`: the lexical leg's query expanded with the m terms weighing most in the BM25 top k
  chunks (each chunk's term frequencies, weighted by its normalised score; the query's own
  terms left out), the original terms counted twice;
- leave-one-set-out: each variant's parameters chosen on the other sets (the best worst margin to
  the set's best leg), scored on the held-out one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import Counter
from pathlib import Path

import bm25s
import numpy as np

from bench.fusion_lexical import product_weight, recalibrated, variant
from bench.fusion_offline import FOLDER, Legs, matched_weights, per_query
from planrag.stores.bm25 import K1, B

ROCCHIO = [(k, beta) for k in (3, 5, 10) for beta in (0.2, 0.4, 0.7)]
RM3 = [(k, m) for k in (3, 5, 10) for m in (5, 10, 20)]


def hybrid(legs: Legs) -> dict[str, float]:
    w, base, top = product_weight(legs)
    weights = matched_weights(legs, w, base, top)
    return {
        "bm25": float(per_query(legs, "atoptb", 0.0, base).mean()),
        "ann": float(per_query(legs, "atoptb", 1.0, base).mean()),
        "hybrid": float(per_query(legs, "atoptb", weights, base, top).mean()),
    }


def rocchio(legs: Legs, query_vectors: np.ndarray, k: int, beta: float) -> Legs:
    cv = legs.chunk_vectors
    sims = query_vectors @ cv.T
    top = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    moved = query_vectors + beta * cv[top].mean(axis=1)
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    return dataclasses.replace(legs, cos=np.clip(moved @ cv.T, 0.0, 1.0))


class Lexical:
    """BM25 over the product's tokens, queried with weighted term lists."""

    def __init__(self, legs: Legs) -> None:
        tokenize = variant("product")
        self.chunk_terms = [Counter(t) for t in tokenize(legs.texts)]
        self.query_terms = tokenize(legs.query_texts)
        self.index = bm25s.BM25(method="lucene", k1=K1, b=B)
        self.index.index([list(c.elements()) for c in self.chunk_terms], show_progress=False)
        self.vocab = self.index.vocab_dict
        df = np.diff(self.index.scores["indptr"])
        n = self.index.scores["num_docs"]
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5))

    def scores(self, terms: list[str]) -> np.ndarray:
        known = [t for t in terms if t in self.vocab and self.vocab[t] < len(self.idf)]
        bound = sum(self.idf[self.vocab[t]] for t in known) / (1 + K1)
        if not known or bound <= 0:
            return np.zeros(len(self.chunk_terms), dtype=np.float32)
        return np.asarray(self.index.get_scores(known)) / bound

    def rm3(self, base: np.ndarray, k: int, m: int) -> np.ndarray:
        out = np.zeros_like(base)
        for i, terms in enumerate(self.query_terms):
            row = base[i]
            top = [c for c in np.argsort(-row, kind="stable")[:k] if row[c] > 0]
            if not top:
                continue
            weight: Counter[str] = Counter()
            for c in top:
                total = sum(self.chunk_terms[c].values()) or 1
                for term, tf in self.chunk_terms[c].items():
                    if term in self.vocab and self.vocab[term] < len(self.idf):
                        weight[term] += float(row[c]) * tf / total * self.idf[self.vocab[term]]
            own = set(terms)
            extra = [t for t, _ in weight.most_common(m + len(own)) if t not in own][:m]
            out[i] = self.scores([*terms, *terms, *extra])
        return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument(
        "--sets",
        nargs="*",
        default=["publichealthqa_ko", "allganize_rag_ko", "hotpotqa_200", "cisi"],
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results/fusion_prf.json"))
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, float]]] = {}
    for name in args.sets:
        legs = Legs.load(name, args.folder)
        lexical = Lexical(legs)
        base_lex = (
            np.stack([lexical.scores(t) for t in lexical.query_terms]) if legs.queries else legs.lex
        )
        legs = recalibrated(dataclasses.replace(legs, lex=base_lex))
        arrays = np.load(args.folder / f"{name}.npz")
        qv = arrays["query_vectors"]
        row = {"product": hybrid(legs)}
        for k, beta in ROCCHIO:
            row[f"rocchio {k} {beta}"] = hybrid(rocchio(legs, qv, k, beta))
        for k, m in RM3:
            row[f"rm3 {k} {m}"] = hybrid(dataclasses.replace(legs, lex=lexical.rm3(base_lex, k, m)))
        results[name] = row
        for label, r in row.items():
            print(
                f"{name:18} {label:16} bm25 {r['bm25']:.3f} ann {r['ann']:.3f} "
                f"hybrid {r['hybrid']:.3f}",
                flush=True,
            )
        args.out.write_text(json.dumps(results, indent=1))
    print(json.dumps(held_out(results), indent=1))


def held_out(results: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, object]]:
    """Per family, each set scored with the parameters best on the other sets (worst margin of
    hybrid to max(product's ann, product's bm25))."""

    def margin(name: str, label: str) -> float:
        p = results[name]["product"]
        return results[name][label]["hybrid"] - max(p["ann"], p["bm25"])

    out: dict[str, dict[str, object]] = {}
    for family in ("rocchio", "rm3"):
        labels = [label for label in next(iter(results.values())) if label.startswith(family)]
        for name in results:
            others = [n for n in results if n != name]
            if not others:
                continue
            best = max(labels, key=lambda lab: min(margin(n, lab) for n in others))
            out.setdefault(family, {})[name] = {
                "chosen": best,
                "hybrid": round(results[name][best]["hybrid"], 4),
                "product": round(results[name]["product"]["hybrid"], 4),
                "margin": round(margin(name, best), 4),
            }
    return out


if __name__ == "__main__":
    main()
