"""Graph search as an executor step (spec 001 §3.8.2): the base strategy's candidates and the
chunks the graph's paths reach (`GraphSearch`, executors/graph_search.py), merged with a boost
(×2 for the best path) below the base's top few (see `merge`). When the graph finds nothing, or
the question has neither a multi-hop pattern nor an exactly matched entity, the base result
stands, flagged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from planrag.core.errors import InvalidInput
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.executors.graph_paths import on_path
from planrag.executors.graph_questions import QuestionReader, rule_reading
from planrag.executors.graph_search import GraphHit, GraphSearch
from planrag.stores.restricted_graph import restricted

if TYPE_CHECKING:
    from planrag.executors.registry import Executor

GRAPH_BOOST = 2.0  # spec 001 says ×1.5; ×2 below the kept top measured better (…__BOOST)
MIN_GRAPH_CHUNKS = 20  # graph chunks fetched at least, whatever the top_k
POOL = 30  # base candidates the graph re-ranks, at least (the pool bench.graph_tune tuned on)
# Chunks are scored by the entities a question reaches through at least one relation: the base
# strategy already finds the passages naming the question's own entities.
BRIDGE_HOPS = 1


KEEP = 7  # the base's top candidates kept in place (at most half the hits asked for)
ADD = 5  # graph-only chunks appended after the base's candidates
PROMOTE = 1  # chunks titled after a reached entity placed right below the kept top


def merge(
    base: list[tuple[str, str, float]],
    graph: list[GraphHit],
    base_scores: Callable[[list[str]], dict[str, float]],
    boost: float,
    keep: int = KEEP,
    add: int = ADD,
    promote: int = PROMOTE,
) -> list[tuple[str, str, float, GraphHit | None]]:
    """Base candidates (chunk, doc, score, best first) and graph hits as one list, best first.

    The base's top `keep` stay as they are: the base finds the passages that name the
    question's entities; the graph's value is the bridge passage the base ranks lower. Right
    below them come up to `promote` graph hits about a reached entity (`GraphHit.about`: their
    document is titled after it), best path first, at the last kept candidate's score. Below
    them a graph-found candidate scores `base × (1 + (boost − 1) · path)` — ×2 (the default) for
    the best path — but never above the last kept candidate. The `add` graph-only chunks with
    the best path × cosine (`base_scores`) follow the base's candidates, at its lowest score: a
    cosine is not on the scale of fusion scores (and e5's cosines are all high), so it never
    places them.
    Without base candidates they score their cosine, boosted alike."""
    by_graph = {g.chunk_id: g for g in graph}
    top = [(c, d, s, by_graph.get(c)) for c, d, s in base[:keep]]
    cap = top[-1][2] if top else 1.0
    kept = {c for c, _, _, _ in top}
    lifted = [g for g in graph if g.about and g.chunk_id not in kept][:promote] if top else []
    promoted = [(g.chunk_id, g.doc_id, cap, g) for g in lifted]
    skip = kept | {g.chunk_id for g in lifted}
    ranked = []
    for position, (chunk, doc, score) in enumerate(base[keep:]):
        hit = by_graph.get(chunk)
        if chunk in skip:
            continue
        boosted = score * (1.0 + (boost - 1.0) * hit.score) if hit is not None else score
        # Capped ones tie at the cap: the higher boosted score first, then the base's order.
        ranked.append(
            (-min(cap, boosted), -boosted, position, (chunk, doc, min(cap, boosted), hit))
        )
    rest = [item for *_, item in sorted(ranked, key=lambda r: r[:3])]
    known = {c for c, _, _ in base}
    fresh = [g for g in graph if g.chunk_id not in known and g.chunk_id not in skip]
    if not fresh or add <= 0:
        return top + promoted + rest
    cosine = base_scores([g.chunk_id for g in fresh])
    fresh.sort(key=lambda g: (-g.score * cosine.get(g.chunk_id, 0.0), g.chunk_id))
    floor = min((s for _, _, s in base), default=None)
    new = []
    for g in fresh[:add]:
        boosted = cosine.get(g.chunk_id, 0.0) * (1.0 + (boost - 1.0) * g.score)
        new.append((g.chunk_id, g.doc_id, min(1.0, boosted) if floor is None else floor, g))
    if floor is None:
        new.sort(key=lambda item: (-item[2], item[0]))
    return top + promoted + rest + new


class GraphExecutor:
    """Graph search as an executor step (spec 001's "+Graph" / "+Ontology"): the base
    strategy's executor runs, then the knowledge base's graph — `ctx.stores.graph`, read like
    `ctx.stores.vector` and `.lexical` — adds the chunks its paths reach, merged with `boost`.
    What the graph did is left on `ctx.graph` (as hybrid leaves its fusion on `ctx.fusion`).

    Not a strategy: the plan's `graph` flag and `/retrieve`'s `enable_graph_search` put it
    around any strategy (`ExecutorRegistry.get(strategy, graph_hops=…)`). Chunks only the
    graph found pass the request's filters through `ctx.chunk_filter`; when the graph finds
    nothing (or the filters exclude all it found) the base result stands, flagged."""

    def __init__(
        self,
        base: Executor,
        hops: int,
        boost: float = GRAPH_BOOST,
        reader: QuestionReader = rule_reading,
    ) -> None:
        self.base = base
        self.hops = hops
        self.boost = boost
        self.reader = reader

    @property
    def name(self) -> str:
        return self.base.name

    def run(self, ctx: QueryContext, params: SearchParams) -> list[Candidate]:
        store = ctx.stores.graph
        if store is None:
            raise InvalidInput(
                f"knowledge base '{ctx.kb.name}' has no graph (graph_backend 'none'): graph "
                "search needs a knowledge base created with graph_backend 'ontology' or 'neo4j'"
            )
        pool = params.model_copy(update={"top_k": max(params.top_k, POOL)})
        candidates = self.base.run(ctx, pool)
        limit = max(params.top_k, MIN_GRAPH_CHUNKS)
        store = restricted(store, ctx.documents)  # a per-user KB: the asker's documents only
        search = GraphSearch(
            store,
            store.backend,
            min_hops=BRIDGE_HOPS,
            titles=ctx.title_texts,
            texts=ctx.chunk_texts,
            reader=self.reader,
        )
        result = search.search(ctx.kb.id, ctx.text, self.hops, limit)
        ctx.graph = meta = result.metadata
        known = {c.chunk_id for c in candidates}
        fresh = [h.chunk_id for h in result.hits if h.chunk_id not in known]
        passing = _passing(ctx, fresh, params)
        hits = [h for h in result.hits if h.chunk_id in known or h.chunk_id in passing]
        if hits and not (meta.analysis.multi_hop or any(m.exact for m in meta.matched_entities)):
            # Only a fuzzy name and no relational shape: the graph would vouch for look-alikes.
            hits, meta.fallback_reason = [], "no multi-hop pattern and no exact entity match"
            meta.fallback = True
        if not hits:
            if not result.metadata.fallback:
                result.metadata.fallback = True
                result.metadata.fallback_reason = "the filters exclude every graph chunk"
            return candidates
        result.metadata.graph_chunks = len(hits)
        keep = min(KEEP, max(1, params.top_k // 2))
        merged = self._merged(ctx, candidates, hits, keep)
        if meta.path is not None:
            merged = on_path(meta.path, merged, lambda ids: _passing(ctx, ids, params))
        return merged

    def _merged(
        self, ctx: QueryContext, candidates: list[Candidate], hits: list[GraphHit], keep: int
    ) -> list[Candidate]:
        by_id = {c.chunk_id: c for c in candidates}
        merged = merge(
            [(c.chunk_id, c.doc_id, c.score) for c in candidates],
            hits,
            ctx.dense_scores,
            self.boost,
            keep=keep,
        )
        out = []
        for chunk_id, doc_id, score, hit in merged:
            base = by_id.get(chunk_id) or Candidate(chunk_id=chunk_id, doc_id=doc_id, score=0.0)
            update: dict[str, object] = {"score": score}
            if hit is not None:
                update |= {"graph": round(hit.score, 4), "graph_entities": hit.entities[:20]}
            out.append(base.model_copy(update=update))
        return out


def _passing(ctx: QueryContext, chunk_ids: list[str], params: SearchParams) -> set[str]:
    """The chunks (found by the graph alone) that the request's filters allow."""
    if params.where is None:
        return set(chunk_ids)
    if ctx.chunk_filter is None or not chunk_ids:
        return set()
    return ctx.chunk_filter(chunk_ids, params.where)
