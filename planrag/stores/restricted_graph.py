"""A knowledge base's graph seen through some of its documents only (a per-user knowledge base:
the asking user's), so that graph search never names what only other documents say.

The graph is one per knowledge base: an entity or relation may come from any user's document.
Through `RestrictedGraph` an entity exists only if a chunk of the allowed documents mentions
it, a relation only if one such chunk mentions both its ends (a relation is always extracted
from a chunk that lists both), and mentions are those of the allowed documents. Reads go to the
real store and are filtered here, so every backend behaves alike. (A relation's *type* is not
traced to its chunk: when two entities both appear in an allowed chunk, a relation between
them that another document stated still shows.)

Every read is restricted: graph search uses `match`, `expand` and `mentions`, and a relation's
`provenance` keeps only the allowed documents' sources (their sentences); the console's graph
pages also `entities` (sources and degree counted in the allowed documents) and `top_entities`
(the most connected of the allowed entities among the KB's `TOP_POOL`× most connected). `stats`
stays the whole graph's counts (numbers only, no names).
"""

from __future__ import annotations

from planrag.stores.graph import (
    ChunkGraph,
    EntityInfo,
    Expansion,
    GraphStats,
    GraphStore,
    Matches,
    Mentions,
    RelationProvenance,
    Triple,
)

MENTIONS_LIMIT = 10_000  # per visibility check; beyond it an entity reads as not mentioned
TOP_POOL = 5  # top_entities looks at this many times `limit` of the KB's most connected


class RestrictedGraph:
    def __init__(self, store: GraphStore, documents: frozenset[str]) -> None:
        self.backend = store.backend
        self._store = store
        self._documents = documents
        self._chunks: dict[str, frozenset[str]] = {}  # entity key → allowed chunks mentioning it

    def _load(self, kb_id: str, keys: list[str]) -> None:
        missing = [k for k in dict.fromkeys(keys) if k not in self._chunks]
        if not missing:
            return
        found: dict[str, set[str]] = {k: set() for k in missing}
        for m in self._store.mentions(kb_id, missing, limit=MENTIONS_LIMIT).mentions:
            if m.doc_id in self._documents and m.key in found:
                found[m.key].add(m.chunk_id)
        self._chunks.update((k, frozenset(v)) for k, v in found.items())

    def match(self, kb_id: str, keys: list[str], limit: int = 20, fuzzy: bool = True) -> Matches:
        found = self._store.match(kb_id, keys, limit, fuzzy)
        self._load(kb_id, [m.entity.key for m in found.matches])
        visible = [m for m in found.matches if self._chunks[m.entity.key]]
        return found.model_copy(update={"matches": visible})

    def expand(self, kb_id: str, keys: list[str], limit: int = 500) -> Expansion:
        found = self._store.expand(kb_id, keys, limit)
        self._load(kb_id, [k for e in found.edges for k in (e.source.key, e.target.key)])
        visible = [
            e for e in found.edges if self._chunks[e.source.key] & self._chunks[e.target.key]
        ]
        return found.model_copy(update={"edges": visible})

    def provenance(self, kb_id: str, relations: list[Triple]) -> list[RelationProvenance]:
        """Only the sources in the allowed documents (no sentence of another's document)."""
        found = []
        for rel in self._store.provenance(kb_id, relations):
            sources = [s for s in rel.sources if s.doc_id in self._documents]
            if sources:
                found.append(rel.model_copy(update={"sources": sources}))
        return found

    def mentions(self, kb_id: str, keys: list[str], limit: int = 1000) -> Mentions:
        found = self._store.mentions(kb_id, keys, limit)
        visible = [m for m in found.mentions if m.doc_id in self._documents]
        return found.model_copy(update={"mentions": visible})

    # Writes and the counts are the real store's.
    def create_graph(self, kb_id: str) -> None:
        self._store.create_graph(kb_id)

    def drop_graph(self, kb_id: str) -> None:
        self._store.drop_graph(kb_id)

    def add(self, kb_id: str, chunks: list[ChunkGraph]) -> None:
        self._store.add(kb_id, chunks)

    def delete_documents(self, kb_id: str, doc_ids: list[str]) -> None:
        self._store.delete_documents(kb_id, doc_ids)

    def doc_ids(self, kb_id: str) -> set[str]:
        return self._store.doc_ids(kb_id) & self._documents

    def entities(self, kb_id: str, keys: list[str]) -> list[EntityInfo]:
        self._load(kb_id, keys)
        infos = [i for i in self._store.entities(kb_id, keys) if self._chunks[i.entity.key]]
        degrees = self._degrees(kb_id, [i.entity.key for i in infos])
        return [
            i.model_copy(
                update={
                    "sources": len(self._chunks[i.entity.key]),
                    "degree": degrees.get(i.entity.key, 0),
                }
            )
            for i in infos
        ]

    def _degrees(self, kb_id: str, keys: list[str]) -> dict[str, int]:
        """Visible relations per entity, both directions."""
        if not keys:
            return {}
        wanted, found = set(keys), dict.fromkeys(keys, 0)
        for edge in self.expand(kb_id, keys, limit=MENTIONS_LIMIT).edges:
            for key in {edge.source.key, edge.target.key} & wanted:
                found[key] += 1
        return found

    def top_entities(self, kb_id: str, limit: int = 20) -> list[EntityInfo]:
        pool = self._store.top_entities(kb_id, limit=limit * TOP_POOL)
        infos = self.entities(kb_id, [i.entity.key for i in pool])
        return sorted(infos, key=lambda i: (-i.degree, -i.sources, i.entity.key))[:limit]

    def stats(self, kb_id: str) -> GraphStats:
        return self._store.stats(kb_id)

    def close(self) -> None:
        """The real store is not this view's to close."""


def restricted(store: GraphStore, documents: frozenset[str] | None) -> GraphStore:
    """The store itself when every document is visible (None), else the restricted view."""
    return store if documents is None else RestrictedGraph(store, documents)
