"""`ann`: approximate nearest neighbours in the vector store, cosine scores."""

from __future__ import annotations

from planrag.executors.context import Candidate, QueryContext, SearchParams


class AnnExecutor:
    name = "ann"

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        hits = ctx.vectors.search(ctx.kb.id, ctx.vector, params.top_k, params.where)
        return [
            Candidate(chunk_id=h.chunk_id, doc_id=h.doc_id, score=h.score, dense=h.score)
            for h in hits
        ]
