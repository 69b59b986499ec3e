"""`hybrid`: BM25 and dense retrieval fused with leg-aware weights.

- `sequential` (default): BM25 candidates (plus the dense leg's own candidates when it carries
  weight), ordered by the weighted sum of the normalised BM25 score and the cosine similarity
  on the KB's own scale: its baseline (the cosine unrelated passages get, measured at
  calibration: e5 rates everything 0.7–0.9, so a raw cosine would barely move the sum) → 0 and
  the cosine a typical match gets → 1; a passage in another script than the query's is compared
  with that script's baseline. The KB's calibrated weights are matched per query to how widely
  each leg's scores spread over the candidates (`spread_matched`). With equal legs this is spec
  001's "BM25 candidates, then vector ordering".
- `parallel`: both legs independently, ordered by weighted Reciprocal Rank Fusion (k
  configurable). The shown score is the RRF score scaled by (k + 1) — 1.0 for a chunk first in
  both legs, in [0, 1] — so hits are in score order (the weighted sum would not be).

Every candidate gets both leg scores; in `sequential` its shown score is their weighted sum, in
[0, 1].
The weights and why they were chosen are reported (`FusionInfo`).
"""

from __future__ import annotations

import statistics
from bisect import bisect_right

from planrag.core.types import FusionInfo
from planrag.executors.calibration import FLOOR, script_of
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register
from planrag.stores.lexical import LexicalHit
from planrag.stores.vector import VectorHit

POOL_FACTOR = 4
MIN_POOL = 40
# Below the dense baseline a cosine orders candidates without outweighing a word match (the
# calibrated scale is narrow: 0.05 of cosine under the baseline would cost a full BM25 match).
BELOW_BASE_SLOPE = 0.01
# Legs whose scores spread less than this over the candidates are not re-weighted per query.
MIN_SPREAD = 1e-6
# When true, a passage in another script than the query's, which BM25 scores 0, is ordered by
# its dense score alone (as if the lexical leg agreed with it). Off: in a mixed-language KB it let
# English passages outrank the Korean passage that matched both legs for a Korean question
# (tests/app/test_ask_steps.py); cross-lingual top 3 was 24/34 with it and without it.
CROSS_SCRIPT_IMPUTE = False


@register
class HybridExecutor(BaseExecutor):
    name = "hybrid"
    summary = "BM25 and dense legs fused with weights calibrated per knowledge base"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        rrf_k = params.rrf_k if params.hybrid_mode == "parallel" else None
        fusion = self.deps.calibrator.fusion(ctx, params.hybrid_mode, rrf_k)
        pool = max(MIN_POOL, params.top_k * POOL_FACTOR)
        lexical = ctx.stores.lexical.search(ctx.kb.id, ctx.tokens, pool, params.where)
        if not lexical:  # nothing matches a query word: only the dense leg can answer
            fusion = fusion.model_copy(
                update={"dense_weight": 1.0, "lexical_weight": 0.0, "reason": "no lexical match"}
            )
        ctx.fusion = fusion
        dense = (
            ctx.dense_search(pool, params.where, params.title_weight)
            if fusion.dense_weight > 0
            else []
        )
        legs = _Legs(ctx, lexical, dense, fusion.dense_weight > 0, params.title_weight)
        if params.hybrid_mode == "parallel":
            scores = _rrf(legs, fusion, params.rrf_k)
        else:
            fusion = ctx.fusion = spread_matched(fusion, *legs.spreads(fusion))
            scores = {c: legs.fused(c, fusion) for c in legs.docs}
        order = sorted(scores, key=lambda c: scores[c], reverse=True)
        return [legs.candidate(c, scores[c]) for c in order[: params.top_k]]


def ranks(scores: dict[str, float]) -> dict[str, int]:
    """Each chunk's rank by its score (1 + the number of chunks scored higher: ties share)."""
    ordered = sorted(scores.values())
    return {c: 1 + len(ordered) - bisect_right(ordered, s) for c, s in scores.items()}


class _Legs:
    """Both legs' results, each candidate completed with the other leg's score."""

    def __init__(
        self,
        ctx: QueryContext,
        lexical: list[LexicalHit],
        dense: list[VectorHit],
        use_dense: bool,
        title_weight: float = 0.0,
    ) -> None:
        self.lexical_order = [h.chunk_id for h in lexical]
        self.dense_order = [h.chunk_id for h in dense]
        self.docs = {h.chunk_id: h.doc_id for h in lexical}
        self.docs.update({h.chunk_id: h.doc_id for h in dense})
        self.lexical = {h.chunk_id: h.score for h in lexical}
        self.dense = {h.chunk_id: h.score for h in dense}  # title-weighted by the search
        self.titles = {h.chunk_id: h.title_score for h in dense if h.title_score is not None}
        self.scripts = {h.chunk_id: script_of(h.text) for h in dense}
        if use_dense:
            extra = ctx.dense_scores([c for c in self.docs if c not in self.dense])
            extra, titles = ctx.weigh_titles(extra, self.docs, title_weight)
            self.dense.update(extra)
            self.titles.update(titles)
        missing = [c for c in self.docs if c not in self.lexical]
        if missing:
            self.lexical.update(ctx.stores.lexical.scores_for(ctx.kb.id, ctx.tokens, missing))
        # Ordering uses BM25 unclipped (the shown score is clipped at 1, which ties the best).
        self.unclipped = ctx.stores.lexical.scores_for(
            ctx.kb.id, ctx.tokens, list(self.docs), clip=False
        )
        # Each leg's ranking of every candidate: what an answer's citations teach (feedback).
        self.lexical_ranks = ranks({c: self.unclipped.get(c, 0.0) for c in self.docs})
        self.dense_ranks = (
            ranks({c: self.dense.get(c, 0.0) for c in self.docs}) if use_dense else {}
        )

    def fused(self, chunk_id: str, fusion: FusionInfo) -> float:
        """The order key, unbounded: BM25 unclipped above a full match; below the baseline
        the cosine still counts, faintly (BELOW_BASE_SLOPE), so candidates under it keep their
        dense order instead of tying at 0. `candidate` shows it clamped to [0, 1]."""
        lexical = self.unclipped.get(chunk_id, 0.0)
        scaled = self.scaled(chunk_id, fusion)
        if lexical <= 0.0 and fusion.dense_weight > 0.0 and self.foreign(chunk_id, fusion):
            return (
                scaled  # BM25 cannot read it: judged by the dense leg alone (CROSS_SCRIPT_IMPUTE)
            )
        return fusion.lexical_weight * lexical + fusion.dense_weight * scaled

    def foreign(self, chunk_id: str, fusion: FusionInfo) -> bool:
        """A passage in another script than the query's (a Korean question, an English
        passage): no query word can match it, so a missing BM25 score says nothing about it."""
        if not CROSS_SCRIPT_IMPUTE:
            return False
        script = self.scripts.get(chunk_id)
        return script is not None and fusion.query_script not in (None, script)

    def scaled(self, chunk_id: str, fusion: FusionInfo) -> float:
        """The dense leg's score on the KB's scale (`rescale`), sloped faintly below 0."""
        cosine = self.dense.get(chunk_id, 0.0)
        base = fusion.script_base.get(self.scripts.get(chunk_id, ""))
        if base is not None and fusion.dense_base is not None:  # another language's baseline
            cosine += fusion.dense_base - base
        scaled = rescale(cosine, fusion.dense_base, fusion.dense_top, clip=False)
        return max(0.0, scaled) + BELOW_BASE_SLOPE * min(0.0, scaled)

    def spreads(self, fusion: FusionInfo) -> tuple[float, float]:
        """The standard deviation of each leg's scores over the candidates (dense, lexical)."""
        if len(self.docs) < 2:
            return 0.0, 0.0
        dense = [self.scaled(c, fusion) for c in self.docs]
        lexical = [self.unclipped.get(c, 0.0) for c in self.docs]
        return statistics.pstdev(dense), statistics.pstdev(lexical)

    def candidate(self, chunk_id: str, score: float) -> Candidate:
        return Candidate(
            chunk_id=chunk_id,
            doc_id=self.docs[chunk_id],
            score=min(1.0, max(0.0, score)),  # the order key is unbounded both ways
            dense=self.dense.get(chunk_id),
            lexical=self.lexical.get(chunk_id),
            title=self.titles.get(chunk_id),
            dense_rank=self.dense_ranks.get(chunk_id),
            lexical_rank=self.lexical_ranks.get(chunk_id),
        )


def spread_matched(fusion: FusionInfo, dense_sd: float, lexical_sd: float) -> FusionInfo:
    """The KB's weights for this query, per unit of each leg's spread over its candidates: a
    leg whose scores are spread wider than the other's (e5's cosines for a long query, or
    BM25's for a query one passage matches word for word) would otherwise decide the order
    whatever its weight. Weights of 0 or 1 and legs without spread are left alone; the result
    stays within [FLOOR, 1 − FLOOR]."""
    weight = fusion.dense_weight
    if not 0.0 < weight < 1.0 or min(dense_sd, lexical_sd) < MIN_SPREAD:
        return fusion
    dense, lexical = weight / dense_sd, (1.0 - weight) / lexical_sd
    matched = round(min(1.0 - FLOOR, max(FLOOR, dense / (dense + lexical))), 4)
    why = (
        f"; per query: score spreads dense {dense_sd:.2f}, lexical {lexical_sd:.2f} → "
        f"dense weight {matched:.2f} (calibrated {weight:.2f})"
    )
    return fusion.model_copy(
        update={
            "dense_weight": matched,
            "lexical_weight": round(1.0 - matched, 4),
            "calibrated_dense_weight": weight,
            "reason": fusion.reason + why,
        }
    )


def rescale(
    cosine: float, base: float | None, top: float | None = None, clip: bool = True
) -> float:
    """A cosine on the KB's own scale: its baseline (unrelated passages) → 0, what a passage
    typically scores for a query it answers (`top`, measured by calibration; identical when
    unknown) → 1. Above `top` it keeps growing, as unclipped BM25 does past a full match; below
    the baseline it is 0, or negative when not `clip`ped."""
    if base is None or base >= 1.0:
        return cosine
    ceiling = top if top is not None and base < top < 1.0 else 1.0
    scaled = (cosine - base) / (ceiling - base)
    return max(0.0, scaled) if clip else scaled


def _rrf(legs: _Legs, fusion: FusionInfo, k: int) -> dict[str, float]:
    """Weighted Reciprocal Rank Fusion, Σ weight / (k + rank) over the legs, scaled by (k + 1)
    into [0, 1] (the weights sum to 1)."""
    fused: dict[str, float] = {}
    for weight, ranking in (
        (fusion.lexical_weight, legs.lexical_order),
        (fusion.dense_weight, legs.dense_order),
    ):
        for rank, chunk_id in enumerate(ranking, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight * (k + 1) / (k + rank)
    return {c: min(1.0, s) for c, s in fused.items()}
