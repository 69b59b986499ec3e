"""`bm25`: BM25 over Kiwi morphemes (Latin words stemmed), scores normalised to [0, 1]."""

from __future__ import annotations

from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.registry import BaseExecutor, register


@register
class BM25Executor(BaseExecutor):
    name = "bm25"
    summary = "BM25 over Kiwi morphemes and stemmed Latin words"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        hits = ctx.stores.lexical.search(ctx.kb.id, ctx.tokens, params.top_k, params.where)
        return [
            Candidate(chunk_id=h.chunk_id, doc_id=h.doc_id, score=h.score, lexical=h.score)
            for h in hits
        ]
