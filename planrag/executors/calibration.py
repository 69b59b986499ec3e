"""Label-free measurement of a knowledge base's two retrieval legs, and the dense weight the
measurement justifies.

Each sampled chunk gives one pseudo-query and its target (the rest of the chunk, which does not
contain the query): each leg must find every target from its query among the sample's targets;
the per-query reciprocal ranks of both legs are kept. Their paired difference has a mean (which
leg is better) and a spread; with the number of queries that gives a standard error, and the
weight moves away from an even split only as far as that evidence carries it (a normal prior on
the difference, shrunk by the evidence: `weights_for`).
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import bm25s
import numpy as np

from planrag.core.types import FusionCalibration, LegFeedback, LegQuality
from planrag.executors.unrelated_questions import UNRELATED_QUESTIONS
from planrag.llm.embedders import Embedder
from planrag.stores.bm25 import K1, B
from planrag.text.korean import split_sentences
from planrag.text.tokenizer import LexicalTokenizer

PairKind = Literal["halves", "question"]
MIN_WORDS = 8
MAX_CHARS = 1500
MAX_HEADING = 120
MAX_QUESTION = 300
# Neither leg's weight goes below FLOOR (nor above 1 − FLOOR) unless the evidence is strong:
# the weaker leg's MRR under WEAK_LEG_RATIO × the stronger's, at STRONG_Z standard errors.
FLOOR = 0.2
WEAK_LEG_RATIO = 0.6
STRONG_Z = 4.0
# The prior spread of the true MRR difference between the legs: a measured difference is
# believed in proportion τ² / (τ² + se²) (its confidence), se its standard error.
PRIOR_SD = 0.05
# Dense weight per point of (shrunk) MRR difference, around 0.5.
GAIN = 5.0
# The spread assumed for calibrations stored before spreads were recorded.
DEFAULT_DIFF_SD = 0.35
# Real asks' feedback (the legs' ranks of the passages answers cited) counts from this many
# asks on; its spread is taken as at least MIN_FEEDBACK_SD (a few identical asks prove little).
MIN_FEEDBACK_ASKS = 8
MIN_FEEDBACK_SD = 0.2
# A cross-lingual passage is evidence when it is at least as similar to the question as this
# quantile of unrelated questions' best passage of the KB (`evidence_floors`; 1: the best of
# them all), its text cut as the reader's evidence check cuts it. The 90th percentile let an
# unrelated English question of the ask tests ("How do I bake sourdough bread?", 0.758) through
# on our fixture corpus (floor 0.754); the maximum (0.769) refuses it (issue 25, session 10).
FLOOR_QUANTILE = 1.0
EVIDENCE_CHARS = 1000

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LETTER = re.compile(r"[^\W\d_]")
_HEADING_MARK = re.compile(r"^\s*#+\s*")
_SENTENCE_END = re.compile(r"[.!?。？！]\s*$")


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


def question(text: str) -> tuple[str, str] | None:
    """What a user might ask of a chunk, and the rest of the chunk: its heading (a short first
    line without a sentence end, e.g. a title or a Markdown heading), else its first sentence."""
    first, _, rest = text.strip().partition("\n")
    heading = _HEADING_MARK.sub("", first).strip()
    is_heading = 2 <= len(heading) <= MAX_HEADING and not _SENTENCE_END.search(heading)
    if is_heading and len(rest.split()) >= MIN_WORDS // 2:
        return heading, rest.strip()
    spans = split_sentences(text)
    if len(spans) < 2:
        return None
    query = text[spans[0][0] : spans[0][1]]
    target = text[spans[1][0] : spans[-1][1]]
    if len(query) > MAX_QUESTION or len(query.split()) < 2:
        return None
    return query, target


def pair_of(text: str, kind: PairKind) -> tuple[str, str] | None:
    text = text[:MAX_CHARS]
    return halves(text) if kind == "halves" else question(text)


def _reciprocal_rank(scores: np.ndarray, target: int) -> float:
    return 1.0 / (1 + int(np.sum(scores > scores[target])))


@dataclass(frozen=True)
class PairVectors:
    queries: np.ndarray
    targets: np.ndarray


def embed_pairs(embedder: Embedder, pairs: list[tuple[str, str]]) -> PairVectors:
    return PairVectors(
        np.asarray(embedder.embed_queries([a for a, _ in pairs])),
        np.asarray(embedder.embed([b for _, b in pairs])),
    )


def cross_base(queries: PairVectors, targets: PairVectors, same: bool = False) -> float | None:
    """The cosine a query of one script gets from unrelated passages of another, or of its own
    (`same`: every pair but the matching ones). e5 rates a passage in the query's own language
    higher whatever it says: without these baselines an English question over mostly Korean
    documents ranks the English passages first."""
    similarity = queries.queries @ targets.targets.T
    if same:
        similarity = similarity[~np.eye(len(similarity), dtype=bool)]
    return round(float(np.median(similarity)), 4) if similarity.size else None


def evidence_floors(
    embedder: Embedder,
    passages: dict[str, list[str]],
    stored: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, float]:
    """Per direction ('hangul>latin': a Korean question, an English passage), the e5 similarity
    a passage of the KB needs to be evidence for a question in the other script: the best
    that unrelated questions of that script reach among the KB's sampled passages of this one
    (FLOOR_QUANTILE of the questions' best). One absolute floor cannot serve every KB:
    e5 gives Korean questions 0.77–0.84 against unrelated English abstracts of one set and
    0.72–0.75 against unrelated English reports of another (issue 25, sessions 9–10).
    `stored`: vectors the KB already holds, by passage text (`passage_matrix`)."""
    floors: dict[str, float] = {}
    for target, texts in sorted(passages.items()):
        sources = [s for s in sorted(UNRELATED_QUESTIONS) if s != target]
        if not texts or not sources:
            continue
        asked = {source: unrelated_vectors(embedder, source) for source in sources}
        dimension = next(iter(asked.values())).shape[1]
        vectors = passage_matrix(embedder, texts, stored or {}, dimension)
        for source in sources:
            best = (asked[source] @ vectors.T).max(axis=1)
            floors[f"{source}>{target}"] = round(float(np.quantile(best, FLOOR_QUANTILE)), 4)
    return floors


def passage_matrix(
    embedder: Embedder, texts: list[str], stored: Mapping[str, Sequence[float]], dimension: int
) -> np.ndarray:
    """The passages' vectors as the evidence check embeds them (cut at EVIDENCE_CHARS): a
    stored chunk vector (of the model's `dimension`) where the vector store holds one for a
    text no longer than that (the same text, embedded when indexed), the model's for the rest.
    Embedding 64 passages per script cost e5 16 s a calibration on 2 threads (issue 25,
    session 11)."""
    rows: list[Sequence[float] | None] = []
    for text in texts:
        vector = stored.get(text) if len(text) <= EVIDENCE_CHARS else None
        rows.append(vector if vector is not None and len(vector) == dimension else None)
    missing = [i for i, row in enumerate(rows) if row is None]
    if missing:
        embedded = embedder.embed([texts[i][:EVIDENCE_CHARS] for i in missing])
        for i, vector in zip(missing, embedded, strict=True):
            rows[i] = vector
    return np.asarray(rows, dtype=np.float32)


_ASKED: weakref.WeakKeyDictionary[Embedder, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()
_ASKED_LOCK = threading.Lock()


def unrelated_vectors(embedder: Embedder, script: str) -> np.ndarray:
    """The unrelated questions of `script` as the embedder's query vectors, embedded once per
    embedder (every calibration of every KB asks the same questions)."""
    known: np.ndarray | None = None
    with _ASKED_LOCK, contextlib.suppress(TypeError):  # TypeError: no weak reference to it
        known = _ASKED.get(embedder, {}).get(script)
    if known is not None:
        return known
    questions = list(UNRELATED_QUESTIONS[script])
    vectors = np.asarray(embedder.embed_queries(questions), dtype=np.float32)
    with _ASKED_LOCK, contextlib.suppress(TypeError):
        _ASKED.setdefault(embedder, {})[script] = vectors
    return vectors


def measure(
    embedder: Embedder,
    tokenizer: LexicalTokenizer,
    pairs: list[tuple[str, str]],
    vectors: PairVectors | None = None,
) -> LegQuality:
    """Each leg's MRR at finding a pair's target from its query among every pair's targets, and
    the spread of the per-query difference."""
    queries, targets = [a for a, _ in pairs], [b for _, b in pairs]
    vectors = vectors or embed_pairs(embedder, pairs)
    similarity = vectors.queries @ vectors.targets.T
    dense = np.asarray([_reciprocal_rank(similarity[i], i) for i in range(len(pairs))])
    index = bm25s.BM25(method="lucene", k1=K1, b=B)
    index.index(tokenizer.index_tokens_many(targets), show_progress=False)
    lexical = np.zeros(len(pairs))
    for i, tokens in enumerate(tokenizer.index_tokens_many(queries)):
        known = [t for t in tokens if t in index.vocab_dict]
        lexical[i] = _reciprocal_rank(index.get_scores(known), i) if known else 0.0
    unrelated = similarity[~np.eye(len(pairs), dtype=bool)]
    return LegQuality(
        dense_mrr=float(dense.mean()),
        lexical_mrr=float(lexical.mean()),
        queries=len(pairs),
        dense_base=round(float(np.median(unrelated)), 4),
        dense_top=round(float(np.median(np.diag(similarity))), 4),
        diff_sd=round(float(np.std(dense - lexical, ddof=1)), 4) if len(pairs) > 1 else None,
    )


@dataclass(frozen=True)
class Weighting:
    dense: float
    confidence: float  # 0: no evidence (even weights), → 1: the measurement taken at its word
    reason: str


def weights_for(quality: LegQuality | None) -> Weighting:
    """The dense weight a calibration justifies: 0.5 + GAIN × the MRR difference shrunk by its
    confidence, kept within [FLOOR, 1 − FLOOR] unless one leg is clearly far weaker."""
    if quality is None or quality.queries == 0:
        return Weighting(0.5, 0.0, "not calibrated: even weights")
    dense, lexical = quality.dense_mrr, quality.lexical_mrr
    spread = quality.diff_sd if quality.diff_sd is not None else DEFAULT_DIFF_SD
    se = max(spread, 1e-3) / math.sqrt(quality.queries)
    confidence = PRIOR_SD**2 / (PRIOR_SD**2 + se**2)
    z = abs(dense - lexical) / se
    measured = f"MRR dense {dense:.2f}, lexical {lexical:.2f} on {quality.queries} queries"
    if z >= STRONG_Z and dense < WEAK_LEG_RATIO * lexical:
        return Weighting(0.0, confidence, f"dense leg far weaker ({measured}): lexical only")
    if z >= STRONG_Z and lexical < WEAK_LEG_RATIO * dense:
        return Weighting(1.0, confidence, f"lexical leg far weaker ({measured}): dense only")
    raw = 0.5 + GAIN * confidence * (dense - lexical)
    weight = min(1.0 - FLOOR, max(FLOOR, raw))
    bound = " (bounded)" if weight != raw else ""
    return Weighting(
        weight, confidence, f"calibrated ({measured}; confidence {confidence:.2f}){bound}"
    )


def with_feedback(weighting: Weighting, feedback: LegFeedback | None) -> tuple[Weighting, float]:
    """The calibrated weighting moved toward what real asks' cited passages say (the weight
    their legs' MRR difference justifies, within [FLOOR, 1 − FLOOR]) by the feedback's
    confidence — 0 under MIN_FEEDBACK_ASKS asks, growing with their number and agreement — and
    that confidence. Deterministic: sums over asks, no order."""
    if feedback is None or feedback.asks == 0:
        return weighting, 0.0
    n = feedback.asks
    dense, lexical = feedback.dense_rr / n, feedback.lexical_rr / n
    measured = f"cited passages of {n} asks: MRR dense {dense:.2f}, lexical {lexical:.2f}"
    if n < MIN_FEEDBACK_ASKS:
        return _noted(weighting, f"{measured} (under {MIN_FEEDBACK_ASKS}: not used yet)"), 0.0
    diff = dense - lexical
    variance = max(0.0, feedback.diff_sq - n * diff * diff) / (n - 1)
    se = max(math.sqrt(variance), MIN_FEEDBACK_SD) / math.sqrt(n)
    confidence = PRIOR_SD**2 / (PRIOR_SD**2 + se**2)
    target = min(1.0 - FLOOR, max(FLOOR, 0.5 + GAIN * diff))
    weight = weighting.dense + confidence * (target - weighting.dense)
    why = f"{measured} → {target:.2f}, confidence {confidence:.2f}: weight {weight:.2f}"
    blended = Weighting(weight, weighting.confidence, weighting.reason)
    return _noted(blended, why), confidence


def _noted(weighting: Weighting, note: str) -> Weighting:
    return Weighting(weighting.dense, weighting.confidence, f"{weighting.reason}; {note}")


def script_bases(calibration: FusionCalibration | None, script: str) -> dict[str, float]:
    """The dense baseline of passages in each script for a query in `script`: its own
    calibration's for its script, the measured cross-script one for the others."""
    if calibration is None:
        return {}
    own = calibration.scripts.get(script)
    out = {script: own.dense_base} if own is not None and own.dense_base is not None else {}
    for key, base in sorted(calibration.cross_base.items()):
        source, _, target = key.partition(">")
        if source == script:
            out[target] = base
    return out
