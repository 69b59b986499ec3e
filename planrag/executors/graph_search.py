"""Graph search over one knowledge base's graph store (spec 001 §3.8.2): the question's
entities → matched graph nodes (normalised key, then fuzzy) → traversal of `hops` relations →
the chunks that mention what was reached, scored by path. `executors/graph.py` merges them into
the base strategy's candidates.

Path weights: a matched entity starts at 1 (0.8 when fuzzy — a fuzzy match of Latin names joins
whole words: "Ken" for "Ken Pruitt", never "Eth" for "Ethel"); each hop multiplies by 0.5 and by
how well the relation fits the question (1 when it names a relation word of the question, 0.6
for plain co-occurrence, 0.8 otherwise). An entity mentioned in many chunks counts less (÷ √n).
A chunk's path score is the sum over the reached entities it mentions (in the graph step, only
those at least one relation away: the bridge), scaled so the best is 1.

A document titled X is about entity X: a chunk of it that mentions a reached X counts X at
`ABOUT_WEIGHT` × its path weight, undivided by how many chunks mention X, and even when X is
one of the question's own entities — of the many passages naming a bridge entity, the one about
it is the one a multi-hop question needs (titles come from the documents' metadata, else their
file names; a trailing "(…)" is a disambiguation: "Kiss and Tell (1945 film)" is about "Kiss and
Tell").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from planrag.core.types import (
    GraphMatchInfo,
    GraphMetadata,
    GraphQuery,
    GraphTriple,
)
from planrag.executors.graph_paths import ChunkTexts, PathFinder
from planrag.executors.graph_questions import QuestionReader, rule_reading
from planrag.stores.graph import (
    DEFAULT_RELATION,
    Edge,
    Entity,
    GraphStore,
    Mention,
    RelationProvenance,
    Triple,
)
from planrag.text.entities import HANGUL, normalize, without_qualifier
from planrag.text.relation_cues import relation_chain

HOP_DECAY = 0.5
FUZZY_WEIGHT = 0.8
FRONTIER = 40  # entities carried to the next hop, best first
MAX_TRIPLES_SHOWN = 50
MENTIONS_LIMIT = 3000
ABOUT_WEIGHT = 1.0  # a chunk of the document titled after a reached entity (see above)
ABOUT_MAX = 5  # such a chunk is promoted (`about`) when its entity is in at most this many chunks
Titles = Callable[[list[str]], dict[str, str]]  # doc ids → their titles


def whole_words(query: str, key: str) -> bool:
    """Whether a fuzzy match joins whole words: "ken" in "ken_pruitt", not "eth" in
    "ethel_houbiers" nor "man" in "dogwoman". Korean keys match by containment (no spaces
    inside compounds: "서울" in "서울특별시")."""
    small, big = sorted((query, key), key=len)
    return bool(HANGUL.search(small)) or f"_{small}_" in f"_{big}_"


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
    # Its document is titled after an entity the question reached through a relation (a bridge:
    # the base strategy finds the documents about the question's own entities).
    about: bool = False


@dataclass
class GraphResult:
    hits: list[GraphHit]
    metadata: GraphMetadata
    reached: dict[str, float] = field(default_factory=dict)
    entities: list[Entity] = field(default_factory=list)  # matched, then reached, best first
    edges: list[Edge] = field(default_factory=list)  # traversed, best first
    # where the shown relations were read (spec 001's provenance), by (source, type, target) key
    provenance: dict[Triple, RelationProvenance] = field(default_factory=dict)


class GraphSearch:
    """Graph search against one knowledge base's graph store."""

    def __init__(
        self,
        store: GraphStore,
        backend: str,
        df_power: float = 0.5,
        min_hops: int = 0,
        titles: Titles | None = None,
        about_weight: float = ABOUT_WEIGHT,
        about_hops: int = 1,
        about_max: int = ABOUT_MAX,
        texts: ChunkTexts | None = None,
        reader: QuestionReader = rule_reading,
    ) -> None:
        self._store = store
        self._reader = reader  # the question's entities, hops and relation words
        self._texts = texts  # chunk ids → texts, for the path's step sentences
        self._backend = backend
        self._df_power = df_power  # an entity in n chunks counts ÷ n^df_power
        self._min_hops = min_hops  # chunks scored only by entities this many hops away or more
        self._titles = titles
        self._about_weight = about_weight
        self._about_hops = about_hops  # hits flagged `about` (promoted) only for entities this far
        self._about_max = about_max  # … and mentioned in at most this many chunks (specific)

    def search(self, kb_id: str, question: str, hops: int, limit: int) -> GraphResult:
        reading = self._reader(question, hops)
        analysis, names, hops = reading.analysis, reading.names, reading.analysis.hops
        keys = list(dict.fromkeys(k for k in (normalize(n) for n in names) if k))
        meta = GraphMetadata(backend=self._backend, extracted_entities=names, analysis=analysis)
        if not keys:
            return self._nothing(meta, "no entity found in the question")
        matches = self._store.match(kb_id, keys, limit=3)
        meta.queries.append(matches.query)
        matches.matches = [
            m for m in matches.matches if m.exact or whole_words(m.query, m.entity.key)
        ]
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
        steps = relation_chain(question)
        walk = min(max(hops, len(steps)), 5) if len(steps) >= 2 else hops
        edges = self._traverse(
            kb_id, reached, named, depth, walk, analysis.relation_hints, meta.queries
        )
        if len(steps) >= 2:
            finder = PathFinder(self._store, kb_id, self._texts, meta.queries)
            meta.path = finder.find(question, names, list(seeds), edges, steps)
        meta.triples = [
            GraphTriple(source=e.source.name, type=e.type, target=e.target.name)
            for e in edges[:MAX_TRIPLES_SHOWN]
        ]
        provenance = self._provenance(kb_id, edges, meta)
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
            result.entities, result.edges, result.provenance = entities, edges, provenance
            return result
        return GraphResult(hits, meta, reached, entities, edges, provenance)

    def _provenance(
        self, kb_id: str, edges: list[Edge], meta: GraphMetadata
    ) -> dict[Triple, RelationProvenance]:
        """The shown relations' and the path's sentences, extractors and documents, read in
        one store call and written into their triples."""
        by_names = {(e.source.name, e.type, e.target.name): e for e in edges}
        shown = [*meta.triples, *(meta.path.triples if meta.path else [])]
        wanted = {
            (t.source, t.type, t.target): (e.source.key, e.type, e.target.key)
            for t in shown
            if (e := by_names.get((t.source, t.type, t.target))) is not None
        }
        if not wanted:
            return {}
        found = {p.triple: p for p in self._store.provenance(kb_id, list(wanted.values()))}
        for triple in shown:
            kept = found.get(wanted.get((triple.source, triple.type, triple.target), ("", "", "")))
            if kept is not None:
                triple.sentence, triple.extracted_by = kept.sentence, kept.extracted_by
                triple.documents = list(dict.fromkeys(s.doc_id for s in kept.sources))
        return found

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
        about = self._about(mentions.mentions)
        titled: set[str] = set()
        for m in mentions.mentions:
            hop = depth.get(m.key, 0)
            if (m.doc_id, m.key) in about:
                weight = reached.get(m.key, 0.0) * self._about_weight
                if hop >= self._about_hops and per_entity[m.key] <= self._about_max:
                    titled.add(m.chunk_id)
            elif hop >= self._min_hops:
                weight = reached.get(m.key, 0.0) / per_entity[m.key] ** self._df_power
            else:
                continue
            scores[m.chunk_id] = scores.get(m.chunk_id, 0.0) + weight
            docs[m.chunk_id] = m.doc_id
            entities.setdefault(m.chunk_id, []).append(named.get(m.key, m.key))
            nearest[m.chunk_id] = min(nearest.get(m.chunk_id, hop), hop)
        scores = {c: s for c, s in scores.items() if s > 0}
        if not scores:
            return []
        best = max(scores.values())
        chosen = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
        return [
            GraphHit(c, docs[c], scores[c] / best, entities[c], nearest[c], c in titled)
            for c in chosen
        ]

    def _about(self, mentions: list[Mention]) -> set[tuple[str, str]]:
        """(doc id, entity key) of the mentioned entities the document is titled after."""
        if self._titles is None or self._about_weight <= 0 or not mentions:
            return set()
        keys = {m.key for m in mentions}
        titles = self._titles(sorted({m.doc_id for m in mentions}))
        return {(d, k) for d, t in titles.items() for k in title_keys(t) if k in keys}


def title_keys(title: str) -> set[str]:
    """The entity keys a document title names: the title, and the title without a trailing
    disambiguation in brackets ("Kiss and Tell (1945 film)" is about "Kiss and Tell")."""
    keys = {normalize(title), normalize(without_qualifier(title))}
    return {k for k in keys if k}
