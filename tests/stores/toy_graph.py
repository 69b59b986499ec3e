"""A toy graph backend in one module: every KB's graph in Python dicts. It exists to show (and
`test_graph_toy.py` to check) that a new graph store is this module plus a ten-line subclass of
the shipped conformance suite. `GraphQuery` speaks SPARQL or Cypher, so each lookup is reported
as the Cypher it stands for (fixed text, the values as parameters)."""

from __future__ import annotations

from dataclasses import dataclass, field

from planrag.core.types import GraphQuery
from planrag.stores.graph import (
    ChunkGraph,
    Edge,
    Entity,
    EntityInfo,
    EntityMatch,
    Expansion,
    GraphStats,
    KeyIndex,
    Matches,
    Mention,
    Mentions,
    RelationProvenance,
    RelationSource,
    Triple,
    first_per_entity,
    sort_sources,
)


def _query(text: str, **params: object) -> GraphQuery:
    return GraphQuery(language="cypher", text=text, params=params)


@dataclass
class _Graph:
    entities: dict[str, Entity] = field(default_factory=dict)
    sources: dict[str, set[str]] = field(default_factory=dict)  # entity key → chunk ids
    # → supporting chunk → where it was read
    relations: dict[Triple, dict[str, RelationSource]] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)  # chunk id → doc id
    # entity key → chunk id → the aliases and alias keys that chunk gave it
    aliases: dict[str, dict[str, tuple[list[str], list[str]]]] = field(default_factory=dict)

    def degree(self, key: str) -> int:
        return sum(1 for s, _, t in self.relations if key in (s, t))


class ToyGraphStore:
    backend = "toy"

    def __init__(self) -> None:
        self._graphs: dict[str, _Graph] = {}

    def _g(self, kb_id: str) -> _Graph:
        return self._graphs.setdefault(kb_id, _Graph())

    def create_graph(self, kb_id: str) -> None:
        self._g(kb_id)

    def drop_graph(self, kb_id: str) -> None:
        self._graphs.pop(kb_id, None)

    def add(self, kb_id: str, chunks: list[ChunkGraph]) -> None:
        g = self._g(kb_id)
        for chunk in chunks:
            g.docs[chunk.chunk_id] = chunk.doc_id
            for entity in chunk.entities:
                kept = g.entities.setdefault(entity.key, entity.model_copy(deep=True))
                kept.aliases += [a for a in entity.aliases if a not in kept.aliases]
                kept.alias_keys += [k for k in entity.alias_keys if k not in kept.alias_keys]
                g.sources.setdefault(entity.key, set()).add(chunk.chunk_id)
                given = g.aliases.setdefault(entity.key, {})
                given[chunk.chunk_id] = (list(entity.aliases), list(entity.alias_keys))
            for rel in chunk.relations:
                g.relations.setdefault((rel.source, rel.type, rel.target), {})[chunk.chunk_id] = (
                    RelationSource(
                        chunk_id=chunk.chunk_id,
                        doc_id=chunk.doc_id,
                        sentence=rel.sentence,
                        extracted_by=rel.extracted_by,
                    )
                )

    def delete_documents(self, kb_id: str, doc_ids: list[str]) -> None:
        g = self._g(kb_id)
        gone = {c for c, d in g.docs.items() if d in doc_ids}
        for chunk_id in gone:
            del g.docs[chunk_id]
        for key in list(g.sources):
            g.sources[key] -= gone
            if not g.sources[key]:
                del g.sources[key], g.entities[key]
                g.aliases.pop(key, None)
            else:
                self._drop_aliases(g, key, gone)
        for triple in list(g.relations):
            for chunk_id in gone:
                g.relations[triple].pop(chunk_id, None)
            if not g.relations[triple] or not {triple[0], triple[2]} <= g.entities.keys():
                del g.relations[triple]

    @staticmethod
    def _drop_aliases(g: _Graph, key: str, gone: set[str]) -> None:
        """The aliases only the deleted chunks gave the entity."""
        given = g.aliases.get(key, {})
        dropped = [given.pop(c) for c in list(given) if c in gone]
        kept_names = {a for names, _ in given.values() for a in names}
        kept_keys = {k for _, keys in given.values() for k in keys}
        lost_names = {a for names, _ in dropped for a in names} - kept_names
        lost_keys = {k for _, keys in dropped for k in keys} - kept_keys
        entity = g.entities[key]
        entity.aliases = [a for a in entity.aliases if a not in lost_names]
        entity.alias_keys = [k for k in entity.alias_keys if k not in lost_keys]

    def doc_ids(self, kb_id: str) -> set[str]:
        return set(self._g(kb_id).docs.values())

    def match(self, kb_id: str, keys: list[str], limit: int = 20, fuzzy: bool = True) -> Matches:
        g = self._g(kb_id)
        found = [
            EntityMatch(query=k, entity=g.entities[k], exact=True) for k in keys if k in g.entities
        ]
        found += [
            EntityMatch(query=k, entity=e, exact=True)
            for k in keys
            if k not in g.entities
            for e in g.entities.values()
            if k in e.alias_keys
        ]
        exact = {m.query for m in found}
        index = KeyIndex(g.entities)
        for k in keys:
            if fuzzy and k not in exact and len(k) >= 2:
                found += [
                    EntityMatch(query=k, entity=g.entities[f], exact=False)
                    for f in index.fuzzy(k, limit)
                ]
        text = "MATCH (e:Entity {kb: $kb}) WHERE e.normalized IN $keys RETURN e"
        return Matches(matches=first_per_entity(found, limit), query=_query(text, keys=keys))

    def expand(self, kb_id: str, keys: list[str], limit: int = 500) -> Expansion:
        g, wanted = self._g(kb_id), set(keys)
        edges = [
            Edge(source=g.entities[s], target=g.entities[t], type=r)
            for s, r, t in g.relations
            if s in wanted or t in wanted
        ]
        text = "MATCH (a:Entity)-[r]-(b:Entity) WHERE a.normalized IN $keys RETURN a, r, b"
        return Expansion(edges=edges[:limit], query=_query(text, keys=keys, limit=limit))

    def provenance(self, kb_id: str, relations: list[Triple]) -> list[RelationProvenance]:
        g = self._g(kb_id)
        return [
            RelationProvenance(
                source=s, type=t, target=o, sources=sort_sources(g.relations[(s, t, o)].values())
            )
            for s, t, o in dict.fromkeys(relations)
            if (s, t, o) in g.relations
        ]

    def mentions(self, kb_id: str, keys: list[str], limit: int = 1000) -> Mentions:
        g = self._g(kb_id)
        found = [
            Mention(key=k, chunk_id=c, doc_id=g.docs[c])
            for k in keys
            for c in sorted(g.sources.get(k, ()))
        ]
        text = "MATCH (e:Entity)-[:HAS_SOURCE]->(s:Source) WHERE e.normalized IN $keys RETURN s"
        return Mentions(mentions=found[:limit], query=_query(text, keys=keys, limit=limit))

    def entities(self, kb_id: str, keys: list[str]) -> list[EntityInfo]:
        g = self._g(kb_id)
        return [
            EntityInfo(entity=g.entities[k], sources=len(g.sources[k]), degree=g.degree(k))
            for k in dict.fromkeys(keys)
            if k in g.entities
        ]

    def top_entities(self, kb_id: str, limit: int = 20) -> list[EntityInfo]:
        infos = self.entities(kb_id, list(self._g(kb_id).entities))
        return sorted(infos, key=lambda i: (-i.degree, -i.sources, i.entity.key))[:limit]

    def stats(self, kb_id: str) -> GraphStats:
        g = self._g(kb_id)
        return GraphStats(entities=len(g.entities), relations=len(g.relations))

    def close(self) -> None:
        self._graphs.clear()
