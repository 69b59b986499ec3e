"""Leg-aware fusion for hybrid retrieval.

A naive fusion of BM25 with an embedding model that cannot read the KB's language destroys the
lexical leg (MiniLM on Korean). So each knowledge base is calibrated without labels: pseudo-
queries are drawn from its own chunks (a window of one sentence with every third word dropped),
and each leg's mean reciprocal rank at finding the source chunk is measured per script (hangul,
latin). A query is fused with the weights of its own script; a leg much weaker than the other
gets no weight at all, so hybrid is never worse than its better leg.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from planrag.core.types import FusionCalibration, FusionInfo, LegQuality
from planrag.executors.context import QueryContext
from planrag.ingest.tokenizer import LexicalTokenizer

Sampler = Callable[[str, int, int], list[tuple[str, str]]]  # (kb_id, n, seed) → (chunk_id, text)
Saver = Callable[[str, FusionCalibration], None]

SAMPLES_PER_SCRIPT = 40
MIN_CHUNKS = 8
RECALIBRATE_GROWTH = 0.25
# A leg whose MRR is below this share of the other's gets no weight.
WEAK_LEG_RATIO = 0.6
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")


def script_of(text: str) -> str:
    letters = len(_LETTER.findall(text))
    if letters == 0:
        return "latin"
    return "hangul" if len(_HANGUL.findall(text)) / letters >= 0.3 else "latin"


def pseudo_query(text: str, rng: random.Random) -> str | None:
    """A question-like probe: up to 10 words of one sentence, every third word dropped."""
    sentences = [s.split() for s in _SENTENCE.split(text) if len(s.split()) >= 5]
    if not sentences:
        return None
    words = rng.choice(sentences)
    start = rng.randrange(0, max(1, len(words) - 10))
    window = words[start : start + 10]
    kept = [w for i, w in enumerate(window) if i % 3 != 2]
    return " ".join(kept) if len(kept) >= 3 else None


def weights_for(quality: LegQuality | None) -> tuple[float, str]:
    """(dense weight, reason) from measured leg quality."""
    if quality is None or quality.queries == 0:
        return 0.5, "not calibrated: equal weights"
    dense, lexical = quality.dense_mrr, quality.lexical_mrr
    if dense < WEAK_LEG_RATIO * lexical:
        return 0.0, f"dense leg too weak here (MRR {dense:.2f} vs lexical {lexical:.2f})"
    if lexical < WEAK_LEG_RATIO * dense:
        return 1.0, f"lexical leg too weak here (MRR {lexical:.2f} vs dense {dense:.2f})"
    weight = dense**2 / (dense**2 + lexical**2)
    return weight, f"calibrated (MRR dense {dense:.2f}, lexical {lexical:.2f})"


class FusionCalibrator:
    def __init__(self, sample: Sampler, save: Saver) -> None:
        self._sample = sample
        self._save = save
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def fusion(self, ctx: QueryContext, mode: str, rrf_k: int | None) -> FusionInfo:
        calibration = self.calibration(ctx)
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
        )

    def calibration(self, ctx: QueryContext) -> FusionCalibration | None:
        size = len(ctx.bm25.index(ctx.kb.id))
        if size < MIN_CHUNKS:
            return None
        with self._guard:
            lock = self._locks.setdefault(ctx.kb.id, threading.Lock())
        with lock:
            current = ctx.kb.calibration
            if (
                current
                and abs(size - current.chunk_count) <= RECALIBRATE_GROWTH * current.chunk_count
            ):
                return current
            calibration = self._measure(ctx, size)
            self._save(ctx.kb.id, calibration)
            ctx.kb = ctx.kb.model_copy(update={"calibration": calibration})
            return calibration

    def _measure(self, ctx: QueryContext, size: int) -> FusionCalibration:
        rng = random.Random(size)
        probes: dict[str, list[tuple[str, str]]] = {}
        for chunk_id, text in self._sample(ctx.kb.id, SAMPLES_PER_SCRIPT * 4, size):
            query = pseudo_query(text, rng)
            bucket = probes.setdefault(script_of(text), [])
            if query and len(bucket) < SAMPLES_PER_SCRIPT:
                bucket.append((chunk_id, query))
        scripts = {script: self._quality(ctx, items) for script, items in probes.items() if items}
        return FusionCalibration(scripts=scripts, chunk_count=size, calibrated_at=datetime.now(UTC))

    @staticmethod
    def _quality(ctx: QueryContext, items: list[tuple[str, str]]) -> LegQuality:
        queries = [q for _, q in items]
        vectors = ctx.embedder.embed(queries)
        token_lists = LexicalTokenizer(ctx.kb.user_words).tokenize_many(queries)
        dense_rr = lexical_rr = 0.0
        for (chunk_id, _), vector, tokens in zip(items, vectors, token_lists, strict=True):
            dense = [h.chunk_id for h in ctx.vectors.search(ctx.kb.id, vector, 10)]
            lexical = [h.chunk_id for h in ctx.bm25.search(ctx.kb.id, tokens, 10)]
            dense_rr += 1 / (dense.index(chunk_id) + 1) if chunk_id in dense else 0.0
            lexical_rr += 1 / (lexical.index(chunk_id) + 1) if chunk_id in lexical else 0.0
        n = len(items)
        return LegQuality(dense_mrr=dense_rr / n, lexical_mrr=lexical_rr / n, queries=n)
