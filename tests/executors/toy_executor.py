"""A toy executor, as an outside contributor would add one: this module and nothing else.
Importing it registers the strategy `toy` (every chunk the dense leg finds, score 0.5)."""

from __future__ import annotations

from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register

TOY_SCORE = 0.5


@register
class ToyExecutor(BaseExecutor):
    name = "toy"
    summary = "the dense leg's chunks, all scored 0.5"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        hits = ctx.dense_search(params.top_k, params.where)
        return [Candidate(chunk_id=h.chunk_id, doc_id=h.doc_id, score=TOY_SCORE) for h in hits]
