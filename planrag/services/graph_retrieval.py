"""Graph search added to a base strategy's candidates (retrieve API, ask pipeline, spec 004):
the graph executor's chunks merged in with their boost, request filters applied to the chunks
only the graph found, and the graph metadata every resulting hit carries."""

from __future__ import annotations

from planrag.core.errors import InvalidInput
from planrag.core.filters import Filter
from planrag.core.types import GraphMetadata, KnowledgeBase
from planrag.executors.context import Candidate, QueryContext
from planrag.executors.graph import KEEP, GraphSearch, merge
from planrag.stores.graphs import GraphStores
from planrag.stores.metadata import MetadataStore
from planrag.stores.record_filter import matches

# Chunks are scored by the entities a question reaches through at least one relation: the
# base strategy already finds the passages naming the question's own entities.
BRIDGE_HOPS = 1
# Graph search re-ranks at least this many base candidates (the pool bench.graph tuned on).
POOL = 30


class GraphRetrieval:
    def __init__(self, graphs: GraphStores, metadata: MetadataStore, boost: float = 1.5) -> None:
        self._graphs = graphs
        self._metadata = metadata
        self._boost = boost

    def check(self, kb: KnowledgeBase) -> None:
        if kb.graph_backend == "none":
            raise InvalidInput(
                f"knowledge base '{kb.name}' has no graph (graph_backend 'none'): graph search"
                " needs a knowledge base created with graph_backend 'ontology' or 'neo4j'"
            )

    def augment(
        self,
        ctx: QueryContext,
        candidates: list[Candidate],
        hops: int,
        limit: int,
        where: Filter | None = None,
        wanted: int | None = None,
    ) -> tuple[list[Candidate], GraphMetadata]:
        """Candidates with the graph's merged in, best first, and what the graph did. Of the
        `wanted` hits, at most half are the base's kept top (see `merge`)."""
        kb = ctx.kb
        self.check(kb)
        store = self._graphs.get(kb.graph_backend)
        search = GraphSearch(store, kb.graph_backend, min_hops=BRIDGE_HOPS)
        result = search.search(kb.id, ctx.text, hops, limit)
        known = {c.chunk_id for c in candidates}
        hits = [h for h in result.hits if h.chunk_id in known or self._allowed(h.chunk_id, where)]
        meta = result.metadata
        if hits and not (meta.analysis.multi_hop or any(m.exact for m in meta.matched_entities)):
            # Only a fuzzy name and no relational shape: the graph would vouch for look-alikes.
            hits, meta.fallback_reason = [], "no multi-hop pattern and no exact entity match"
            meta.fallback = True
        if not hits:
            if not meta.fallback:
                meta.fallback, meta.fallback_reason = True, "the filters exclude every graph chunk"
            return candidates, meta
        by_id = {c.chunk_id: c for c in candidates}
        merged = merge(
            [(c.chunk_id, c.doc_id, c.score) for c in candidates],
            hits,
            ctx.dense_scores,
            self._boost,
            keep=min(KEEP, max(1, (wanted or limit) // 2)),
        )
        out = []
        for chunk_id, doc_id, score, hit in merged:
            base = by_id.get(chunk_id) or Candidate(chunk_id=chunk_id, doc_id=doc_id, score=0.0)
            update: dict[str, object] = {"score": score}
            if hit is not None:
                update |= {"graph": round(hit.score, 4), "graph_entities": hit.entities[:20]}
            out.append(base.model_copy(update=update))
        result.metadata.graph_chunks = len(hits)
        return out, result.metadata

    def _allowed(self, chunk_id: str, where: Filter | None) -> bool:
        if where is None:
            return True
        chunk = self._metadata.get_chunks([chunk_id]).get(chunk_id)
        if chunk is None:
            return False
        doc = self._metadata.get_documents([chunk.doc_id]).get(chunk.doc_id)
        if doc is None:
            return False
        meta = doc.metadata
        record: dict[str, object] = {
            "doc_id": doc.id,
            "chunk_id": chunk.id,
            "title": meta.title or doc.filename,
            "author": meta.author or "",
            "domain": meta.domain or "",
            "date": meta.date_int(),
            "text": chunk.text,
        }
        return matches(where, record)
