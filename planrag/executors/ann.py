"""`ann`: approximate nearest neighbours in the vector store, cosine scores (title-weighted when
`title_weight` > 0)."""

from __future__ import annotations

from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register


@register
class AnnExecutor(BaseExecutor):
    name = "ann"
    summary = "approximate nearest neighbours in the vector store (cosine)"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        hits = ctx.dense_search(params.top_k, params.where, params.title_weight)
        return [Candidate.from_vector_hit(h) for h in hits]
