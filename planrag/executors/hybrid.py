"""`hybrid`: BM25 and dense retrieval fused with leg-aware weights.

- `sequential` (default): BM25 candidates (plus the dense leg's own candidates when it carries
  weight), ordered by the weighted sum of normalised BM25 score and cosine similarity. With
  equal legs this is spec 001's "BM25 candidates, then vector ordering".
- `parallel`: both legs independently, ordered by weighted Reciprocal Rank Fusion (k
  configurable).

Every candidate gets both leg scores, and its shown score is the same weighted sum, in [0, 1].
The weights and why they were chosen are reported (`FusionInfo`).
"""

from __future__ import annotations

from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.fusion import FusionCalibrator

POOL_FACTOR = 4
MIN_POOL = 40


class HybridExecutor:
    name = "hybrid"

    def __init__(self, calibrator: FusionCalibrator) -> None:
        self._calibrator = calibrator

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        rrf_k = params.rrf_k if params.hybrid_mode == "parallel" else None
        fusion = self._calibrator.fusion(ctx, params.hybrid_mode, rrf_k)
        ctx.fusion = fusion
        pool = max(MIN_POOL, params.top_k * POOL_FACTOR)
        w_dense, w_lex = fusion.dense_weight, fusion.lexical_weight

        lexical = ctx.bm25.search(ctx.kb.id, ctx.tokens, pool, params.where)
        dense = (
            ctx.vectors.search(ctx.kb.id, ctx.vector, pool, params.where)
            if w_dense > 0 or not lexical
            else []
        )
        lex_scores = {h.chunk_id: h.score for h in lexical}
        dense_scores = {h.chunk_id: h.score for h in dense}
        docs = {h.chunk_id: h.doc_id for h in lexical}
        docs.update({h.chunk_id: h.doc_id for h in dense})
        missing_dense = [c for c in docs if c not in dense_scores]
        dense_scores.update(ctx.dense_scores(missing_dense) if w_dense > 0 else {})
        missing_lex = [c for c in docs if c not in lex_scores]
        if missing_lex:
            lex_scores.update(ctx.bm25.scores_for(ctx.kb.id, ctx.tokens, missing_lex))

        def fused(chunk_id: str) -> float:
            return w_lex * lex_scores.get(chunk_id, 0.0) + w_dense * dense_scores.get(chunk_id, 0.0)

        if params.hybrid_mode == "parallel":
            order = self._rrf(
                [h.chunk_id for h in lexical],
                [h.chunk_id for h in dense],
                w_lex,
                w_dense,
                params.rrf_k,
            )
        else:
            order = sorted(docs, key=fused, reverse=True)
        return [
            Candidate(
                chunk_id=c,
                doc_id=docs[c],
                score=min(1.0, max(0.0, fused(c))),
                dense=dense_scores.get(c),
                lexical=lex_scores.get(c),
            )
            for c in order[: params.top_k]
        ]

    @staticmethod
    def _rrf(
        lexical: list[str], dense: list[str], w_lex: float, w_dense: float, k: int
    ) -> list[str]:
        fused: dict[str, float] = {}
        for weight, ranking in ((w_lex, lexical), (w_dense, dense)):
            for rank, chunk_id in enumerate(ranking, start=1):
                fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
        return sorted(fused, key=lambda c: fused[c], reverse=True)
