"""The lexical leg rebuilt offline over an export's chunk texts (no stores, no re-embedding):
tokenisation variants, BM25 parameters and document aggregation, each replayed through the
product's fusion at its calibrated weight.

    python -m bench.fusion_lexical [--folder …/export] [--sets …] [--variants base join …]

Per set and variant: BM25 alone and hybrid nDCG@10 (the exported cosines, the product's weight
from the exported calibration). BM25 is bm25s (Lucene, k1 1.5, b 0.75) over the variant's
tokens, normalised as the product does (raw / Σ idf of the query's known terms / (1 + k1)).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bm25s  # noqa: E402
import numpy as np  # noqa: E402

from bench.fusion_offline import FOLDER, Legs, matched_weights, per_query, quality_of  # noqa: E402
from planrag.core.types import LegQuality  # noqa: E402
from planrag.executors.calibration import weights_for  # noqa: E402
from planrag.stores.bm25 import K1, B  # noqa: E402
from planrag.text import tokenizer as tok  # noqa: E402
from planrag.text.korean import get_kiwi  # noqa: E402

Tokenize = Callable[[list[str]], list[list[str]]]
_VERB_TAGS = frozenset({"VV", "VA", "VV-I", "VA-I", "VV-R", "VA-R"})


def _kiwi_tokens(texts: list[str]) -> list[list[object]]:
    kiwi = get_kiwi()
    return [list(kiwi.tokenize(t)) if tok._NEEDS_KIWI.search(t) else [] for t in texts]


def _nouns(tokens: Iterable[object]) -> list[object]:
    return [
        t
        for t in tokens
        if t.tag in tok._NOUN_TAGS and t.tag != "SN" and not t.form.isascii()  # type: ignore[attr-defined]
    ]


def variant(name: str) -> Tokenize:
    """texts → tokens for one named variant: `product` (the product's BM25 terms), `nouns`
    (its content words only, the terms before compounds), or a `+`-joined list of changes to
    `nouns` (split, join, verbs, bigram, nostem)."""
    if name == "product":
        return tok.LexicalTokenizer().index_tokens_many
    if name == "nouns":
        return tok.LexicalTokenizer().tokenize_many
    parts = set(name.split("+"))

    def run(texts: list[str]) -> list[list[str]]:
        analysed = _kiwi_tokens(texts)
        out = []
        for text, tokens in zip(texts, analysed, strict=True):
            latin = tok._latin_tokens(text) if "nostem" not in parts else _unstemmed(text)
            nouns = _nouns(tokens)
            kept = [tok._SPACE.sub("_", t.form) for t in nouns]  # type: ignore[attr-defined]
            extra: list[str] = []
            if "split" in parts:  # a multi-word noun also counts as its words
                extra += [w for t in kept if "_" in t for w in t.split("_")]
            if "join" in parts:  # adjacent nouns (a compound Kiwi split) also count joined
                extra += _joined(nouns)
            if "verbs" in parts:
                extra += [t.form for t in tokens if t.tag in _VERB_TAGS]  # type: ignore[attr-defined]
            if "bigram" in parts:
                extra += [g for t in kept for g in _bigrams(t)]
            out.append(latin + kept + extra)
        return out

    return run


def _unstemmed(text: str) -> list[str]:
    return [
        w
        for w in tok._LATIN_WORD.findall(text.lower())
        if w not in tok.ENGLISH_STOPWORDS and (len(w) > 1 or w.isdigit())
    ]


def _joined(nouns: list[object]) -> list[str]:
    """Adjacent noun morphemes written without a space between them, joined."""
    out = []
    for a, b in zip(nouns, nouns[1:], strict=False):
        if a.start + a.len == b.start:  # type: ignore[attr-defined]
            out.append(a.form + b.form)  # type: ignore[attr-defined]
    return out


def _bigrams(token: str) -> list[str]:
    return [token[i : i + 2] for i in range(len(token) - 1)] if len(token) >= 3 else []


def lexical_matrix(legs: Legs, tokenize: Tokenize, k1: float = K1, b: float = B) -> np.ndarray:
    """queries × chunks, unclipped normalised BM25 as the product computes it."""
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
    retriever.index(tokenize(legs.texts), show_progress=False)
    vocab = retriever.vocab_dict
    df = np.diff(retriever.scores["indptr"])
    n = retriever.scores["num_docs"]
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    out = np.zeros((len(legs.queries), len(legs.texts)), dtype=np.float32)
    for i, tokens in enumerate(tokenize(legs.query_texts)):
        query = [t for t in tokens if t in vocab and vocab[t] < len(idf)]
        bound = sum(idf[vocab[t]] for t in query) / (1 + k1)
        if query and bound > 0:
            out[i] = np.asarray(retriever.get_scores(query)) / bound
    return out


def recalibrated(legs: Legs) -> Legs:
    """The set with the calibration the code under test measures on its chunks (the product's
    `FusionCalibrator`, its content-ordered sample taken from the export's texts)."""
    import hashlib

    from planrag.core.settings import EmbeddingSettings
    from planrag.core.types import KnowledgeBase
    from planrag.executors.fusion import FusionCalibrator
    from planrag.llm.embedders import EmbedderRegistry

    def sample(_kb: str, n: int, seed: int) -> list[tuple[str, str]]:
        rows = [(str(i), t) for i, t in enumerate(legs.texts)]
        salt = str(seed).encode()
        rows.sort(key=lambda row: (hashlib.blake2b(salt + row[1].encode()).digest(), row[0]))
        return rows[:n]

    embedder = EmbedderRegistry(EmbeddingSettings(threads=1)).get()
    kb = KnowledgeBase.model_construct(id=legs.name, user_words=[])
    calibrator = FusionCalibrator(sample, lambda *_: None, lambda _: kb, lambda _: 0, None)  # type: ignore[arg-type]
    calibration = calibrator._measure(kb, embedder, len(legs.texts))
    return dataclasses.replace(legs, calibration=calibration.model_dump(mode="json"))


def product_weight(legs: Legs) -> tuple[float, float, float]:
    quality = quality_of(legs)
    weighting = weights_for(LegQuality(**quality) if quality else None)
    base = float(quality.get("dense_base") or np.median(legs.cos))
    top = float(quality.get("dense_top") or 1.0)
    return weighting.dense, base, top


def replay(legs: Legs, method: str = "spread") -> dict[str, float]:
    """Each leg and hybrid at the calibrated weight (`atop`: main before issue 25 session 7;
    `atoptb`: sloped below the baseline; `spread`: and the weight matched per query to the
    legs' spreads, the product after)."""
    w, base, top = product_weight(legs)
    weights = matched_weights(legs, w, base, top) if method == "spread" else w
    fusion = "atoptb" if method == "spread" else method
    return {
        "bm25": float(per_query(legs, fusion, 0.0, base).mean()),
        "ann": float(per_query(legs, fusion, 1.0, base).mean()),
        "hybrid": float(per_query(legs, fusion, weights, base, top).mean()),
        "weight": w,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--sets", nargs="*")
    parser.add_argument("--variants", nargs="*", default=["exported", "nouns", "product"])
    parser.add_argument("--k1", type=float, default=K1)
    parser.add_argument("--b", type=float, default=B)
    parser.add_argument("--method", default="spread", choices=["atop", "atoptb", "spread"])
    parser.add_argument(
        "--recalibrate", action="store_true", help="weights from the code under test's calibration"
    )
    args = parser.parse_args()
    names = args.sets or sorted(p.stem for p in args.folder.glob("*.npz"))
    results: dict[str, dict[str, dict[str, float]]] = {}
    for name in names:
        legs = Legs.load(name, args.folder)
        for v in args.variants:
            run = legs
            if v != "exported":
                lex = lexical_matrix(legs, variant(v), args.k1, args.b)
                run = dataclasses.replace(legs, lex=lex)
                if args.recalibrate:
                    run = recalibrated(run)
            row = replay(run, args.method)
            results.setdefault(name, {})[v] = row
            print(
                f"{name:20} {v:22} bm25 {row['bm25']:.3f} ann {row['ann']:.3f} "
                f"hybrid {row['hybrid']:.3f} (w {row['weight']:.2f})",
                flush=True,
            )
    out = args.folder / f"lexical-{'-'.join(names)}.json"
    out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
