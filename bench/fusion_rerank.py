"""Rerankers built from our own parts, replayed over the exports (issue 25, session 12): does
reordering the product's fused top N by what a chunk's best sentence says move nDCG@10, held out?

    python -m bench.fusion_rerank [--folder <copy of /work/benchdata/e5/export>] [--sets …]

The product as it is (`bench.fusion_docs`'s replay: BM25 over the product's tokens, the KB
recalibrated by the code under test, the per-query spread-matched weight), then the top N chunks
of its fused order rescored as (1 − λ) × fused + λ × feature, both min-max scaled over those N
(the chunks below N keep their place). Features of a chunk, for the query:

- `dmax`: its best sentence's e5 cosine to the query (sentences "passage: "-embedded, the query
  vector the export's); `dtop2`: the mean of its two best;
- `scov`: the best sentence's share of the query's BM25 terms, idf-weighted (where the words
  meet: BM25 ignores order); `wcov`: the same over windows of two adjacent sentences;
- `dmax+scov`: the mean of the two, each min-max scaled.

Sentence vectors are cached under `<folder>/../rerank/` (only the sentences of chunks some query
has in its top 30), the recalibrated calibration too. Leave-one-set-out: each feature's N and λ
chosen on the other sets (the best worst gain over the product there, ties to the smaller λ),
scored on the held-out one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.fusion_lexical import product_weight, recalibrated
from bench.fusion_offline import FOLDER, POOL, TOP_K, Legs, fused, matched_weights, per_query
from bench.fusion_prf import Lexical
from planrag.services.metrics import ndcg_at
from planrag.text.korean import split_sentences

SETS = ["publichealthqa_ko", "allganize_rag_ko", "hotpotqa_200", "cisi"]
DEPTHS = [10, 20, 30]
LAMBDAS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.7]


@dataclasses.dataclass
class Ranked:
    """One query's product order: candidate chunk indexes and their fused scores, best first."""

    cand: np.ndarray
    scores: np.ndarray


def product_orders(legs: Legs, weights: np.ndarray, base: float, top: float) -> list[Ranked]:
    """Each query's fused candidates in the product's order (`per_query`'s branches)."""
    out = []
    for i in range(len(legs.queries)):
        w = weights[i]
        if w >= 1.0 or (w > 0.0 and not (legs.lex[i] > 0).any()):
            cand = np.argsort(-legs.cos[i], kind="stable")[:POOL]
            scores = legs.cos[i][cand]
        elif w <= 0.0:
            cand = legs.pools(i)
            cand = cand[legs.lex[i][cand] > 0]
            scores = legs.lex[i][cand]
        else:
            cand = legs.pools(i)
            scores = fused("atoptb", legs.cos[i][cand], legs.lex[i][cand], w, base, top)
        order = np.argsort(-scores, kind="stable")
        out.append(Ranked(cand[order], np.asarray(scores)[order]))
    return out


def ndcg(legs: Legs, i: int, chunks: np.ndarray) -> float:
    ranking = list(dict.fromkeys(legs.docs[c] for c in chunks[:TOP_K]))
    return ndcg_at(ranking, legs.qrels[legs.queries[i]], 10)


class Sentences:
    """The sentences of the chunks some query has in its top 30, their e5 passage vectors
    (cached) and their BM25 terms."""

    def __init__(self, legs: Legs, chunks: list[int], cache: Path | None) -> None:
        self.owner: list[int] = []
        texts: list[str] = []
        for c in chunks:
            text = legs.texts[c]
            spans = split_sentences(text) or [(0, len(text))]
            for a, b in spans:
                self.owner.append(c)
                texts.append(text[a:b])
        self.vectors = _vectors(texts, cache) if cache else None
        tokenize = lexical_tokenize()
        self.terms = [set(t) for t in tokenize(texts)]
        from planrag.text.tokenizer import LexicalTokenizer

        words = LexicalTokenizer().tokenize_many(legs.texts[c] for c in chunks)
        self.words = dict(zip(chunks, words, strict=True))  # content words in text order
        self.of: dict[int, list[int]] = {}
        for j, c in enumerate(self.owner):
            self.of.setdefault(c, []).append(j)


def lexical_tokenize() -> Callable[[list[str]], list[list[str]]]:
    from bench.fusion_lexical import variant

    return variant("product")


def _vectors(texts: list[str], cache: Path) -> np.ndarray:
    """e5 passage vectors of `texts`, from the cache where it has them (keyed by text)."""
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        stored = np.load(cache, allow_pickle=False)
        known = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))
    missing = sorted({t for t in texts if t not in known})
    if missing:
        from planrag.core.settings import EmbeddingSettings
        from planrag.llm.embedders import EmbedderRegistry

        embedder = EmbedderRegistry(EmbeddingSettings(threads=2)).get()
        for start in range(0, len(missing), 256):
            batch = missing[start : start + 256]
            known.update(
                zip(batch, np.asarray(embedder.embed(batch), dtype=np.float32), strict=True)
            )
            keys = list(known)
            np.savez(cache, texts=np.asarray(keys), vectors=np.stack([known[k] for k in keys]))
            print(f"  embedded {start + len(batch)}/{len(missing)} sentences", flush=True)
    return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def features(
    legs: Legs, lexical: Lexical, sents: Sentences, i: int, chunks: np.ndarray
) -> dict[str, np.ndarray]:
    """Each feature of the query's candidate chunks (see the module's docstring)."""
    qv = QUERY_VECTORS[legs.name][i]
    terms = {
        t
        for t in lexical.query_terms[i]
        if t in lexical.vocab and lexical.vocab[t] < len(lexical.idf)
    }
    idf = {t: float(lexical.idf[lexical.vocab[t]]) for t in terms}
    total = sum(idf.values()) or 1.0
    out: dict[str, list[float]] = {k: [] for k in ("dmax", "dtop2", "scov", "wcov", "prox")}
    for c in chunks:
        out["prox"].append(proximity(sents.words[int(c)], idf))
        rows = sents.of[int(c)]
        if sents.vectors is not None:
            sims = np.sort(sents.vectors[rows] @ qv)[::-1]
            out["dmax"].append(float(sims[0]))
            out["dtop2"].append(float(sims[:2].mean()))
        covers = [sum(idf[t] for t in terms & sents.terms[j]) / total for j in rows]
        out["scov"].append(max(covers))
        pairs = [
            sum(idf[t] for t in terms & (sents.terms[a] | sents.terms[b])) / total
            for a, b in zip(rows, rows[1:], strict=False)
        ]
        out["wcov"].append(max(pairs or covers))
    arrays = {k: np.asarray(v) for k, v in out.items() if v}
    if sents.vectors is None:
        return arrays
    arrays["dmax+scov"] = (minmax(arrays["dmax"]) + minmax(arrays["scov"])) / 2
    arrays["dtop2+scov"] = (minmax(arrays["dtop2"]) + minmax(arrays["scov"])) / 2
    return arrays


QUERY_VECTORS: dict[str, np.ndarray] = {}


def proximity(words: list[str], idf: dict[str, float]) -> float:
    """Term-pair proximity (BM25TP-like): for each pair of the query's terms the chunk holds,
    the smaller idf over the squared distance of their nearest occurrences, as a share of all
    pairs at distance 1."""
    terms = sorted(idf)
    at: dict[str, list[int]] = {}
    for k, word in enumerate(words):
        if word in idf:
            at.setdefault(word, []).append(k)
    total = score = 0.0
    for x, a in enumerate(terms):
        for b in terms[x + 1 :]:
            weight = min(idf[a], idf[b])
            total += weight
            if a in at and b in at:
                d = min(abs(p - q) for p in at[a] for q in at[b])
                score += weight / max(d, 1) ** 2
    return score / total if total else 0.0


def minmax(x: np.ndarray) -> np.ndarray:
    span = float(x.max() - x.min()) if len(x) else 0.0
    return (x - x.min()) / span if span > 0 else np.zeros_like(x, dtype=float)


def reranked(r: Ranked, feature: np.ndarray, depth: int, lam: float) -> np.ndarray:
    head = r.cand[:depth]
    score = (1 - lam) * minmax(r.scores[:depth]) + lam * minmax(feature[:depth])
    order = np.argsort(-score, kind="stable")
    return np.concatenate([head[order], r.cand[depth:]])


def evaluate(
    name: str, folder: Path, cache: Path, dense: bool, every: int, depth: int
) -> dict[str, float]:
    """The product and each reranked variant on the set's queries i with i % every == 0."""
    legs = Legs.load(name, folder)
    QUERY_VECTORS[name] = np.load(folder / f"{name}.npz")["query_vectors"]
    lexical = Lexical(legs)
    lex = np.stack([lexical.scores(t) for t in lexical.query_terms])
    legs = dataclasses.replace(legs, lex=lex)
    calib = cache / f"{name}.calibration.json"
    if calib.exists():
        legs = dataclasses.replace(legs, calibration=json.loads(calib.read_text()))
    else:
        legs = recalibrated(legs)
        calib.write_text(json.dumps(legs.calibration))
    w, base, top = product_weight(legs)
    weights = matched_weights(legs, w, base, top)
    orders = product_orders(legs, weights, base, top)
    product = np.array([ndcg(legs, i, r.cand) for i, r in enumerate(orders)])
    check = per_query(legs, "atoptb", weights, base, top)
    assert np.allclose(product, check), "the replay is not the product's"
    kept = [i for i in range(len(orders)) if i % every == 0]
    row = {
        "bm25": float(per_query(legs, "atoptb", 0.0, base)[kept].mean()),
        "ann": float(per_query(legs, "atoptb", 1.0, base)[kept].mean()),
        "product": float(product[kept].mean()),
        "queries": len(kept),
    }
    depths = [d for d in DEPTHS if d <= depth]
    for d in depths:  # the ceiling: a perfect reranker of the top d (gold documents first)
        grades = {i: legs.qrels[legs.queries[i]] for i in kept}
        best = [
            ndcg(
                legs,
                i,
                reranked(
                    orders[i],
                    np.array([float(grades[i].get(legs.docs[c], 0)) for c in orders[i].cand[:d]]),
                    d,
                    1.0,
                ),
            )
            for i in kept
        ]
        row[f"oracle {d}"] = float(np.mean(best))
    chunks = sorted({int(c) for i in kept for c in orders[i].cand[:depth]})
    sents = Sentences(legs, chunks, cache / f"{name}.sentences.npz" if dense else None)
    feats = {i: features(legs, lexical, sents, i, orders[i].cand[:depth]) for i in kept}
    for feature in feats[kept[0]]:
        for d in depths:
            for lam in LAMBDAS:
                scores = [
                    ndcg(legs, i, reranked(orders[i], feats[i][feature][:d], d, lam)) for i in kept
                ]
                row[f"{feature} {d} {lam}"] = float(np.mean(scores))
    return row


def held_out(results: dict[str, dict[str, float]]) -> dict[str, dict[str, dict[str, object]]]:
    """Per feature: each set scored with the (N, λ) whose worst gain over the product on the other
    sets is best (ties: the better mean gain, then the smaller λ)."""

    def gain(name: str, label: str) -> float:
        return results[name][label] - results[name]["product"]

    out: dict[str, dict[str, dict[str, object]]] = {}
    first = next(iter(results.values()))
    for feature in sorted({k.rsplit(" ", 2)[0] for k in first if k.count(" ") >= 2}):
        labels = [
            k
            for k in first
            if k.rsplit(" ", 2)[0] == feature and all(k in r for r in results.values())
        ]
        for name in results:
            others = [n for n in results if n != name]
            best = max(
                labels,
                key=lambda lab: (
                    round(min(gain(n, lab) for n in others), 4),
                    round(float(np.mean([gain(n, lab) for n in others])), 4),
                    -float(lab.split()[-1]),
                ),
            )
            out.setdefault(feature, {})[name] = {
                "chosen": best.split(" ", 1)[1],
                "held_out": round(results[name][best], 4),
                "product": round(results[name]["product"], 4),
                "gain": round(gain(name, best), 4),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--sets", nargs="*", default=SETS)
    parser.add_argument("--out", type=Path, default=Path("bench/results/fusion_rerank.json"))
    parser.add_argument("--dense", action="store_true", help="the e5 sentence features too")
    parser.add_argument("--every", nargs="*", type=int, default=[1], help="per set: 1 in k queries")
    parser.add_argument(
        "--depth", nargs="*", type=int, default=[30], help="per set: top N reranked"
    )
    args = parser.parse_args()
    every = dict(zip(args.sets, args.every * len(args.sets), strict=False))
    depth = dict(zip(args.sets, args.depth * len(args.sets), strict=False))
    cache = args.folder.parent / "rerank"
    cache.mkdir(exist_ok=True)
    results: dict[str, dict[str, float]] = {}
    for name in args.sets:
        results[name] = evaluate(name, args.folder, cache, args.dense, every[name], depth[name])
        r = results[name]
        print(
            f"{name}: bm25 {r['bm25']:.3f} ann {r['ann']:.3f} product {r['product']:.3f}",
            flush=True,
        )
        best = max((k for k in r if k.count(" ") >= 2), key=lambda k: r[k])
        print(f"  best {best}: {r[best]:.3f} ({r['queries']} queries)", flush=True)
        args.out.write_text(json.dumps(results, indent=1))
    print(json.dumps(held_out(results), indent=1))


if __name__ == "__main__":
    main()
