"""Reranking steps: the optional reranker after any strategy, and the `2-stage` strategy."""

from __future__ import annotations

from planrag.core.errors import ModelUnavailable
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register
from planrag.llm.rerankers import RerankerRegistry

TWO_STAGE_CANDIDATES = 25


def rerank(
    candidates: list[Candidate],
    query: str,
    texts: dict[str, str],
    registry: RerankerRegistry,
    top_k: int,
    threshold: float,
) -> list[Candidate]:
    """Reorder by reranker score; keep `top_k` at or above `threshold`; score = reranker score."""
    if not candidates:
        return []
    scores = registry.get().score(query, [texts.get(c.chunk_id, "") for c in candidates])
    rescored = [
        c.model_copy(update={"rerank": s, "score": s})
        for c, s in zip(candidates, scores, strict=True)
    ]
    rescored.sort(key=lambda c: c.score, reverse=True)
    return [c for c in rescored if c.score >= threshold][:top_k]


@register
class TwoStageExecutor(BaseExecutor):
    """ANN top 25 → cross-encoder rerank; the reranked order is kept, the score shown is the
    cosine similarity (spec 001 §3.3). Without a reranker the first stage is the answer, and
    the context's notes say that reranking was skipped and why."""

    name = "2-stage"
    summary = "ANN top 25, then the reranker's order"
    reranks = True

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        hits = ctx.dense_search(
            max(TWO_STAGE_CANDIDATES, params.top_k), params.where, params.title_weight
        )
        texts = {h.chunk_id: h.text for h in hits}
        candidates = [Candidate.from_vector_hit(h) for h in hits]
        try:
            reranker = self.deps.rerankers.get()
        except ModelUnavailable as exc:
            ctx.notes.append(f"reranking skipped: {exc.message}")
            return candidates[: params.top_k]
        scores = reranker.score(ctx.text, [texts[c.chunk_id] for c in candidates])
        ordered = sorted(
            (c.model_copy(update={"rerank": s}) for c, s in zip(candidates, scores, strict=True)),
            key=lambda c: c.rerank or 0.0,
            reverse=True,
        )
        return ordered[: params.top_k]
