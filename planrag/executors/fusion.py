"""Leg-aware fusion for hybrid retrieval.

A naive fusion of BM25 with an embedding model that cannot read the KB's language destroys the
lexical leg (MiniLM on Korean). So each knowledge base is calibrated without labels, per script
(hangul, latin): sampled chunks are cut in two halves, and each leg is asked to find a chunk's
second half from its first half among the sample's second halves (mean reciprocal rank). Unlike
verbatim pseudo-queries, which favour the lexical leg whatever the model, matching halves needs
what a real question needs: the same topic in different words. A query is fused with the
weights of its own script; a leg much weaker than the other gets no weight at all, so hybrid is
never worse than its better leg.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime

import bm25s
import numpy as np

from planrag.core.types import FusionCalibration, FusionInfo, KnowledgeBase, LegQuality
from planrag.executors.context import QueryContext
from planrag.llm.embedders import Embedder, EmbedderRegistry
from planrag.stores.bm25 import K1, B
from planrag.text.korean import split_sentences
from planrag.text.tokenizer import LexicalTokenizer, tokenizer_for

Sampler = Callable[[str, int, int], list[tuple[str, str]]]  # (kb_id, n, seed) → (chunk_id, text)
Saver = Callable[[str, FusionCalibration], None]

SAMPLES_PER_SCRIPT = 48
MIN_PAIRS = 8
MIN_WORDS = 8
MAX_CHARS = 1500
MIN_CHUNKS = 8
# Recalibrate when the KB has doubled or halved since: each calibration embeds 2 × 48 halves,
# which at every 25 % of growth cost e5 ~60 % on top of indexing a 2,000-chunk corpus (a KB
# filled document by document recalibrated ~25 times); doubling bounds it to ~8 times.
RECALIBRATE_FACTOR = 2.0
# A leg whose MRR is below this share of the other's gets no weight.
WEAK_LEG_RATIO = 0.6
# The dense weight is r^SHARPNESS / (r^SHARPNESS + 1), r = DENSE_PRIOR · dense MRR / lexical MRR.
# Matching halves flatters the lexical leg a little (halves share names and terms, real
# questions paraphrase): the dense MRR counts 3 % more. The calibration's ratio predicts which
# leg a set wants well, but the legs' MRRs sit within ±7 % of each other on every set we have,
# so the mapping is steep. e5 on the evaluation sets (bench/): allganize 0.95 → dense 0.42,
# CISI 0.95 → 0.40, publichealthqa 1.05 → 0.79, HotpotQA-200 1.06 → 0.81 (each near its set's
# best weight; the old squared ratio with a 1.2 prior gave 0.56–0.62 everywhere;
# docs/benchmarks.md).
DENSE_PRIOR = 1.03
SHARPNESS = 16
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LETTER = re.compile(r"[^\W\d_]")


def script_of(text: str) -> str:
    letters = len(_LETTER.findall(text))
    if letters == 0:
        return "latin"
    return "hangul" if len(_HANGUL.findall(text)) / letters >= 0.3 else "latin"


def halves(text: str) -> tuple[str, str] | None:
    """A chunk cut in two at a sentence boundary (or mid-way through its words)."""
    spans = split_sentences(text)
    if len(spans) >= 2:
        middle = len(spans) // 2
        return text[spans[0][0] : spans[middle - 1][1]], text[spans[middle][0] : spans[-1][1]]
    words = text.split()
    if len(words) < MIN_WORDS:
        return None
    middle = len(words) // 2
    return " ".join(words[:middle]), " ".join(words[middle:])


def weights_for(quality: LegQuality | None) -> tuple[float, str]:
    """(dense weight, reason) from measured leg quality."""
    if quality is None or quality.queries == 0:
        return 0.5, "not calibrated: equal weights"
    dense, lexical = quality.dense_mrr, quality.lexical_mrr
    if dense == lexical == 0.0:
        return 0.5, "calibrated, but neither leg found a single half: equal weights"
    if dense < WEAK_LEG_RATIO * lexical:
        return 0.0, f"dense leg too weak here (MRR {dense:.2f} vs lexical {lexical:.2f})"
    if lexical < WEAK_LEG_RATIO * dense:
        return 1.0, f"lexical leg too weak here (MRR {lexical:.2f} vs dense {dense:.2f})"
    ratio = (DENSE_PRIOR * dense / lexical) ** SHARPNESS
    weight = ratio / (ratio + 1.0)
    return weight, f"calibrated (MRR dense {dense:.2f}, lexical {lexical:.2f})"


class FusionCalibrator:
    """Measures a KB's legs when indexing finishes (and on demand), never during a search: a
    search reads the stored calibration, so concurrent searches use the previous weights while
    a new calibration is measured."""

    def __init__(
        self,
        sample: Sampler,
        save: Saver,
        load: Callable[[str], KnowledgeBase],
        count: Callable[[str], int],
        embedders: EmbedderRegistry,
    ) -> None:
        self._sample = sample
        self._save = save
        self._load = load
        # searchable chunks of a KB: a count in the metadata DB, not the BM25 index (building
        # that after every indexed document cost O(KB size) per document, O(n²) per KB)
        self._count = count
        self._embedders = embedders
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def fusion(self, ctx: QueryContext, mode: str, rrf_k: int | None) -> FusionInfo:
        """The weights of the query's script, from the KB's stored calibration."""
        calibration = ctx.kb.calibration
        script = script_of(ctx.text)
        quality = calibration.scripts.get(script) if calibration else None
        if quality is None and calibration and calibration.scripts:
            quality = next(iter(calibration.scripts.values()))  # the KB's only script
        dense, reason = weights_for(quality)
        return FusionInfo(
            mode=mode,
            dense_weight=round(dense, 4),
            lexical_weight=round(1.0 - dense, 4),
            reason=f"{script} query; {reason}",
            rrf_k=rrf_k,
            dense_base=quality.dense_base if quality else None,
        )

    def refresh(self, kb_id: str, force: bool = False) -> FusionCalibration | None:
        """Calibrate the KB when it has none or has doubled (or halved) since (any time with
        `force`); one calibration per KB at a time. Returns the current one."""
        with self._guard:
            lock = self._locks.setdefault(kb_id, threading.Lock())
        with lock:
            kb = self._load(kb_id)
            size = self._count(kb_id)
            if size < MIN_CHUNKS:
                return kb.calibration
            current = kb.calibration
            fresh = (
                current is not None
                and current.chunk_count / RECALIBRATE_FACTOR
                < size
                < current.chunk_count * RECALIBRATE_FACTOR
            )
            if fresh and not force:
                return current
            embedder = self._embedders.for_knowledge_base(kb.embedding_model, kb.embedding_dim)
            calibration = self._measure(kb, embedder, size)
            self._save(kb_id, calibration)
            return calibration

    def _measure(self, kb: KnowledgeBase, embedder: Embedder, size: int) -> FusionCalibration:
        pairs: dict[str, list[tuple[str, str]]] = {}
        for _chunk_id, text in self._sample(kb.id, SAMPLES_PER_SCRIPT * 4, size):
            split = halves(text[:MAX_CHARS])
            bucket = pairs.setdefault(script_of(text), [])
            if split and len(bucket) < SAMPLES_PER_SCRIPT:
                bucket.append(split)
        tokenizer = tokenizer_for(kb.user_words)
        scripts = {
            script: _quality(embedder, tokenizer, items)
            for script, items in pairs.items()
            if len(items) >= MIN_PAIRS
        }
        return FusionCalibration(scripts=scripts, chunk_count=size, calibrated_at=datetime.now(UTC))


def _reciprocal_rank(scores: np.ndarray, target: int) -> float:
    return 1.0 / (1 + int(np.sum(scores > scores[target])))


def _quality(
    embedder: Embedder, tokenizer: LexicalTokenizer, pairs: list[tuple[str, str]]
) -> LegQuality:
    """MRR of each leg at finding a chunk's second half from its first half."""
    firsts, seconds = [a for a, _ in pairs], [b for _, b in pairs]
    similarity = np.asarray(embedder.embed_queries(firsts)) @ np.asarray(embedder.embed(seconds)).T
    dense = [_reciprocal_rank(similarity[i], i) for i in range(len(pairs))]
    index = bm25s.BM25(method="lucene", k1=K1, b=B)
    index.index(tokenizer.tokenize_many(seconds), show_progress=False)
    lexical = []
    for i, tokens in enumerate(tokenizer.tokenize_many(firsts)):
        known = [t for t in tokens if t in index.vocab_dict]
        lexical.append(_reciprocal_rank(index.get_scores(known), i) if known else 0.0)
    unrelated = similarity[~np.eye(len(pairs), dtype=bool)]
    return LegQuality(
        dense_mrr=float(np.mean(dense)),
        lexical_mrr=float(np.mean(lexical)),
        queries=len(pairs),
        dense_base=round(float(np.median(unrelated)), 4),
    )
