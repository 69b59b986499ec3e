"""Graph search (spec 001 §3.8.2): the question's entities → matched graph nodes (normalised
key, then fuzzy) → traversal of `hops` relations → the chunks that mention what was reached,
scored by path → merged into the base strategy's candidates with a boost (×1.5 for the best
path, see `merge`). When the graph finds nothing, the base strategy's result stands, flagged.

Path weights: a matched entity starts at 1 (0.8 when fuzzy); each hop multiplies by 0.5 and by
how well the relation fits the question (1 when it names a relation word of the question, 0.6
for plain co-occurrence, 0.8 otherwise). An entity mentioned in many chunks counts less (÷ √n).
A chunk's path score is the sum over the reached entities it mentions, scaled so the best is 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from planrag.core.errors import InvalidInput
from planrag.core.types import (
    GraphAnalysis,
    GraphMatchInfo,
    GraphMetadata,
    GraphQuery,
    GraphTriple,
)
from planrag.executors.context import Candidate, QueryContext, SearchParams
from planrag.stores.graph import DEFAULT_RELATION, Edge, Entity, GraphStore
from planrag.stores.restricted_graph import restricted
from planrag.text.entities import find_mentions, normalize, question_pattern

if TYPE_CHECKING:
    from planrag.executors.registry import Executor

HOP_DECAY = 0.5
GRAPH_BOOST = 1.5  # spec 001: graph-found chunks ×1.5 (PLANRAG_GRAPH__BOOST)
MIN_GRAPH_CHUNKS = 20  # graph chunks fetched at least, whatever the top_k
FUZZY_WEIGHT = 0.8
FRONTIER = 40  # entities carried to the next hop, best first
MAX_TRIPLES_SHOWN = 50
MENTIONS_LIMIT = 3000

_EN_WORDS = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_KO_WORDS = re.compile(r"[가-힣]{2,}")
_QUESTION_WORDS = {
    *("what", "which", "who", "whom", "whose", "where", "when", "how", "the", "that", "this"),
    *("was", "were", "are", "did", "does", "for", "and", "from", "with", "name", "also"),
}


def analyse(question: str, hops: int) -> GraphAnalysis:
    """Multi-hop pattern and relation words of a question (heuristic, no LLM)."""
    pattern = question_pattern(question)
    mentioned = {normalize(m.name) for m in find_mentions(question)}
    words = [w.casefold() for w in _EN_WORDS.findall(question)] + _KO_WORDS.findall(question)
    hints = [
        w
        for w in dict.fromkeys(words)
        if w not in _QUESTION_WORDS and normalize(w) not in mentioned
    ]
    return GraphAnalysis(
        multi_hop=pattern is not None, pattern=pattern, relation_hints=hints[:12], hops=hops
    )


def _relation_weight(type_: str, hints: list[str]) -> float:
    folded = type_.casefold()
    if any(h in folded or folded in h for h in hints if len(h) >= 2):
        return 1.0
    return 0.6 if type_ == DEFAULT_RELATION else 0.8


@dataclass
class GraphHit:
    chunk_id: str
    doc_id: str
    score: float  # path score in (0, 1], the best chunk 1
    entities: list[str]
    hops: int = 0  # the fewest relations between a question entity and what it mentions


@dataclass
class GraphResult:
    hits: list[GraphHit]
    metadata: GraphMetadata
    reached: dict[str, float] = field(default_factory=dict)
    entities: list[Entity] = field(default_factory=list)  # matched, then reached, best first
    edges: list[Edge] = field(default_factory=list)  # traversed, best first


class GraphSearch:
    """Graph search against one knowledge base's graph store."""

    def __init__(
        self, store: GraphStore, backend: str, df_power: float = 0.5, min_hops: int = 0
    ) -> None:
        self._store = store
        self._backend = backend
        self._df_power = df_power  # an entity in n chunks counts ÷ n^df_power
        self._min_hops = min_hops  # chunks scored only by entities this many hops away or more

    def search(self, kb_id: str, question: str, hops: int, limit: int) -> GraphResult:
        analysis = analyse(question, hops)
        names = [m.name for m in find_mentions(question)]
        keys = list(dict.fromkeys(k for k in (normalize(n) for n in names) if k))
        meta = GraphMetadata(backend=self._backend, extracted_entities=names, analysis=analysis)
        if not keys:
            return self._nothing(meta, "no entity found in the question")
        matches = self._store.match(kb_id, keys, limit=3)
        meta.queries.append(matches.query)
        meta.matched_entities = [
            GraphMatchInfo(query=m.query, entity=m.entity.name, exact=m.exact)
            for m in matches.matches
        ]
        reached: dict[str, float] = {}
        named: dict[str, str] = {}
        for m in matches.matches:
            weight = 1.0 if m.exact else FUZZY_WEIGHT
            reached[m.entity.key] = max(reached.get(m.entity.key, 0.0), weight)
            named[m.entity.key] = m.entity.name
        if not reached:
            return self._nothing(meta, "no question entity is in the graph")
        seeds = set(reached)
        depth = dict.fromkeys(seeds, 0)
        edges = self._traverse(
            kb_id, reached, named, depth, hops, analysis.relation_hints, meta.queries
        )
        meta.triples = [
            GraphTriple(source=e.source.name, type=e.type, target=e.target.name)
            for e in edges[:MAX_TRIPLES_SHOWN]
        ]
        meta.expanded_entities = [named[k] for k in reached if k not in seeds][:100]
        hits = self._score_chunks(kb_id, reached, named, depth, limit, meta.queries)
        meta.graph_chunks = len(hits)
        known = {m.entity.key: m.entity for m in matches.matches}
        for edge in edges:
            known.setdefault(edge.source.key, edge.source)
            known.setdefault(edge.target.key, edge.target)
        entities = [known[k] for k in sorted(reached, key=lambda k: -reached[k]) if k in known]
        if not hits:
            result = self._nothing(meta, "the matched entities have no source chunks")
            result.entities, result.edges = entities, edges
            return result
        return GraphResult(hits, meta, reached, entities, edges)

    @staticmethod
    def _nothing(meta: GraphMetadata, reason: str) -> GraphResult:
        meta.fallback, meta.fallback_reason = True, reason
        return GraphResult(hits=[], metadata=meta)

    def _traverse(
        self,
        kb_id: str,
        reached: dict[str, float],
        named: dict[str, str],
        depth: dict[str, int],
        hops: int,
        hints: list[str],
        queries: list[GraphQuery],
    ) -> list[Edge]:
        """Breadth-first over `hops` relations; `reached` gains each entity's best path weight."""
        frontier = sorted(reached, key=lambda k: -reached[k])[:FRONTIER]
        traversed: list[Edge] = []
        for hop in range(1, hops + 1):
            expansion = self._store.expand(kb_id, frontier, limit=FRONTIER * 25)
            queries.append(expansion.query)
            gained: dict[str, float] = {}
            current = set(frontier)
            for edge in expansion.edges:
                ends = ((edge.source, edge.target), (edge.target, edge.source))
                for here, there in ends:
                    if here.key not in current:
                        continue
                    weight = reached[here.key] * HOP_DECAY * _relation_weight(edge.type, hints)
                    named.setdefault(there.key, there.name)
                    if weight > max(reached.get(there.key, 0.0), gained.get(there.key, 0.0)):
                        gained[there.key] = weight
                traversed.append(edge)
            reached.update(gained)
            for key in gained:
                depth.setdefault(key, hop)
            frontier = sorted(gained, key=lambda k: -gained[k])[:FRONTIER]
            if not frontier:
                break
        unique = {(e.source.key, e.type, e.target.key): e for e in traversed}
        return sorted(
            unique.values(),
            key=lambda e: -(reached.get(e.source.key, 0) + reached.get(e.target.key, 0)),
        )

    def _score_chunks(
        self,
        kb_id: str,
        reached: dict[str, float],
        named: dict[str, str],
        depth: dict[str, int],
        limit: int,
        queries: list[GraphQuery],
    ) -> list[GraphHit]:
        ranked = sorted(reached, key=lambda k: -reached[k])[: FRONTIER * 3]
        mentions = self._store.mentions(kb_id, ranked, limit=MENTIONS_LIMIT)
        queries.append(mentions.query)
        per_entity: dict[str, int] = {}
        for m in mentions.mentions:
            per_entity[m.key] = per_entity.get(m.key, 0) + 1
        scores: dict[str, float] = {}
        docs: dict[str, str] = {}
        entities: dict[str, list[str]] = {}
        nearest: dict[str, int] = {}
        for m in mentions.mentions:
            hop = depth.get(m.key, 0)
            if hop < self._min_hops:
                continue
            weight = reached.get(m.key, 0.0) / per_entity[m.key] ** self._df_power
            scores[m.chunk_id] = scores.get(m.chunk_id, 0.0) + weight
            docs[m.chunk_id] = m.doc_id
            entities.setdefault(m.chunk_id, []).append(named.get(m.key, m.key))
            nearest[m.chunk_id] = min(nearest.get(m.chunk_id, hop), hop)
        if not scores:
            return []
        best = max(scores.values())
        chosen = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
        return [GraphHit(c, docs[c], scores[c] / best, entities[c], nearest[c]) for c in chosen]


def merge(
    base: list[tuple[str, str, float]],
    graph: list[GraphHit],
    base_scores: Callable[[list[str]], dict[str, float]],
    boost: float,
) -> list[tuple[str, str, float, GraphHit | None]]:
    """Base candidates (chunk, doc, score) and graph hits as one list, best first.

    A graph-found chunk scores `base × (1 + (boost − 1) · path)`: its base score (a graph-only
    chunk's from `base_scores`, e.g. its cosine to the question) boosted ×1.5 for the best path.
    Scores over 1 are rescaled so the best is 1 (order and ratios kept). (Letting the path score
    lift a chunk above its base score — `max(base, path · top)` — cost 0.2 nDCG@10 on HotpotQA.)"""
    by_graph = {g.chunk_id: g for g in graph}
    merged: dict[str, tuple[str, float, GraphHit | None]] = {
        chunk: (doc, score, by_graph.get(chunk)) for chunk, doc, score in base
    }
    missing = [g.chunk_id for g in graph if g.chunk_id not in merged]
    fresh = base_scores(missing) if missing else {}
    for chunk in missing:
        merged[chunk] = (by_graph[chunk].doc_id, fresh.get(chunk, 0.0), by_graph[chunk])
    scored = []
    for chunk, (doc, score, hit) in merged.items():
        if hit is not None:
            score = score * (1.0 + (boost - 1.0) * hit.score)
        scored.append((chunk, doc, score, hit))
    best = max((s for _, _, s, _ in scored), default=0.0)
    scale = 1.0 / best if best > 1.0 else 1.0
    scored = [(c, d, min(1.0, s * scale), h) for c, d, s, h in scored]
    scored.sort(key=lambda item: (-item[2], item[0]))
    return scored


class GraphExecutor:
    """Graph search as an executor step (spec 001's "+Graph" / "+Ontology"): the base
    strategy's executor runs, then the knowledge base's graph — `ctx.stores.graph`, read like
    `ctx.stores.vector` and `.lexical` — adds the chunks its paths reach, merged with `boost`.
    What the graph did is left on `ctx.graph` (as hybrid leaves its fusion on `ctx.fusion`).

    Not a strategy: the plan's `graph` flag and `/retrieve`'s `enable_graph_search` put it
    around any strategy (`ExecutorRegistry.get(strategy, graph_hops=…)`). Chunks only the
    graph found pass the request's filters through `ctx.chunk_filter`; when the graph finds
    nothing (or the filters exclude all it found) the base result stands, flagged."""

    def __init__(self, base: Executor, hops: int, boost: float = GRAPH_BOOST) -> None:
        self.base = base
        self.hops = hops
        self.boost = boost

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
        candidates = self.base.run(ctx, params)
        limit = max(params.top_k, MIN_GRAPH_CHUNKS)
        store = restricted(store, ctx.documents)  # a per-user KB: the asker's documents only
        result = GraphSearch(store, store.backend).search(ctx.kb.id, ctx.text, self.hops, limit)
        ctx.graph = result.metadata
        known = {c.chunk_id for c in candidates}
        fresh = [h.chunk_id for h in result.hits if h.chunk_id not in known]
        passing = _passing(ctx, fresh, params)
        hits = [h for h in result.hits if h.chunk_id in known or h.chunk_id in passing]
        if not hits:
            if not result.metadata.fallback:
                result.metadata.fallback = True
                result.metadata.fallback_reason = "the filters exclude every graph chunk"
            return candidates
        result.metadata.graph_chunks = len(hits)
        return self._merged(ctx, candidates, hits)

    def _merged(
        self, ctx: QueryContext, candidates: list[Candidate], hits: list[GraphHit]
    ) -> list[Candidate]:
        by_id = {c.chunk_id: c for c in candidates}
        merged = merge(
            [(c.chunk_id, c.doc_id, c.score) for c in candidates],
            hits,
            ctx.dense_scores,
            self.boost,
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
