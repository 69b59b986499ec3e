"""The `ontology` graph backend: RDF in one named graph per knowledge base, read and written with
SPARQL 1.1 (embedded pyoxigraph, or a SPARQL server such as Fuseki — see `sparql.py`).

The spec's shape (001 §3.8.3, §5.3.1), IRIs percent-encoding names:

    <entity/Elon_Musk> rdf:type <type/PERSON> ; rdfs:label "Elon Musk" ;
                       schema:normalized "elon_musk" ; relation:hasSource <source/chunk_123> .
    <entity/Elon_Musk> <relation/is_CEO_of> <entity/SpaceX> .
    <source/chunk_123> schema:chunkId "chunk_123" ; schema:documentId "doc_1" .

A relation's provenance is a reified statement per (subject, relation, object, chunk) —
`<statement/…> rdf:subject …; rdf:predicate …; rdf:object …; relation:hasSource <source/…>` —
so deleting a document removes exactly the relations no other document supports. The statement
also keeps the sentence the relation was read from (`schema:sentence`) and the extractors that
found it there (`schema:extractedBy`, rule / llm); statements written before these existed simply
lack them. Likewise an `<aliasing/…> schema:aliasOf <entity/…> ; schema:aliasSource <source/…> ;
schema:alias … ; schema:aliasKey …` node per (entity, chunk) remembers which chunk gave which
aliases, so deleting a document removes the aliases only it gave (aliases written before these
records existed are kept).
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from urllib.parse import quote, unquote

import pyoxigraph as ox

from planrag.core.settings import Settings
from planrag.stores.graph import (
    ChunkGraph,
    Edge,
    Entity,
    EntityInfo,
    EntityMatch,
    Expansion,
    GraphQuery,
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
from planrag.stores.graphs import register_graph_backend
from planrag.stores.ontology_queries import (
    ALIASES,
    ALIASING,
    ALL_KEYS,
    BUMP_VERSION,
    COUNT_ENTITIES,
    COUNT_RELATIONS,
    DEGREES,
    DELETE_DOCUMENT,
    DOC_IDS,
    DROP,
    ENTITIES,
    ENTITY,
    EXISTING,
    EXPAND_IN,
    EXPAND_OUT,
    GRAPH,
    MATCH_ALIAS,
    MATCH_EXACT,
    MENTIONS,
    PROVENANCE,
    RDF,
    RDFS,
    RELATION,
    SCHEMA,
    SOURCE,
    SOURCE_COUNTS,
    STATEMENT,
    TOP,
    TYPE,
    VERSION,
)
from planrag.stores.sparql import (
    Bindings,
    EmbeddedSparql,
    RemoteSparql,
    Row,
    SparqlEndpoint,
    render,
    render_rows,
    shown,
)

HAS_SOURCE = ox.NamedNode(RELATION + "hasSource")
NORMALIZED = ox.NamedNode(SCHEMA + "normalized")
ALIAS = ox.NamedNode(SCHEMA + "alias")
ALIAS_KEY = ox.NamedNode(SCHEMA + "aliasKey")
CHUNK_ID = ox.NamedNode(SCHEMA + "chunkId")
DOCUMENT_ID = ox.NamedNode(SCHEMA + "documentId")
LABEL = ox.NamedNode(RDFS + "label")
A = ox.NamedNode(RDF + "type")
SENTENCE = ox.NamedNode(SCHEMA + "sentence")
EXTRACTED_BY = ox.NamedNode(SCHEMA + "extractedBy")
ALIAS_OF = ox.NamedNode(SCHEMA + "aliasOf")
ALIAS_SOURCE = ox.NamedNode(SCHEMA + "aliasSource")
SUBJECT, PREDICATE, OBJECT = (ox.NamedNode(RDF + p) for p in ("subject", "predicate", "object"))


def _iri(namespace: str, name: str) -> ox.NamedNode:
    return ox.NamedNode(namespace + quote(name, safe=""))


def _local(namespace: str, iri: str) -> str:
    return unquote(iri[len(namespace) :]) if iri.startswith(namespace) else iri


def graph_iri(kb_id: str) -> ox.NamedNode:
    return _iri(GRAPH, kb_id)


def _entities(keys: list[str]) -> list[ox.NamedNode | ox.Literal]:
    return [_iri(ENTITY, k) for k in dict.fromkeys(keys)]


def _keys(keys: list[str]) -> list[ox.NamedNode | ox.Literal]:
    return [ox.Literal(k) for k in dict.fromkeys(keys)]


def _entity(key: str, name: str, type_iri: str) -> Entity:
    return Entity(key=key, name=name, type=_local(TYPE, type_iri))


class OntologyGraphStore:
    backend = "ontology"

    def __init__(self, endpoint: SparqlEndpoint) -> None:
        self._endpoint = endpoint
        self._write_lock = threading.Lock()
        self._key_cache: dict[str, tuple[str | None, KeyIndex]] = {}

    # ── helpers ────────────────────────────────────────────────────────────────────────
    def _select(self, template: str, kb_id: str, limit: int = 0, **values: list) -> list[Row]:
        return self._endpoint.select(self._render(template, kb_id, limit, values)[0])

    def _render(
        self, template: str, kb_id: str, limit: int, values: dict[str, list]
    ) -> tuple[str, Bindings]:
        text = render(template, values, graph_iri(kb_id)).replace("$limit", str(int(limit)))
        return text, values

    def _query(self, template: str, kb_id: str, limit: int, values: dict[str, list]) -> GraphQuery:
        params: dict[str, object] = {"graph": graph_iri(kb_id).value, **shown(values)}
        if "$limit" in template:
            params["limit"] = int(limit)
        return GraphQuery(language="sparql", text=template, params=params)

    # ── writes ─────────────────────────────────────────────────────────────────────────
    def create_graph(self, kb_id: str) -> None:
        """Named graphs exist as soon as they hold a triple: nothing to create."""

    def drop_graph(self, kb_id: str) -> None:
        self._endpoint.update(render(DROP, {}, graph_iri(kb_id)))
        self._key_cache.pop(kb_id, None)

    def add(self, kb_id: str, chunks: list[ChunkGraph]) -> None:
        if not chunks:
            return
        g = graph_iri(kb_id)
        entities: dict[str, Entity] = {}
        for chunk in chunks:
            for entity in chunk.entities:
                kept = entities.setdefault(entity.key, entity.model_copy(deep=True))
                kept.aliases += [a for a in entity.aliases if a not in kept.aliases]
                kept.alias_keys += [k for k in entity.alias_keys if k not in kept.alias_keys]
        with self._write_lock:
            existing: set[str] = set()
            keys = list(entities)
            for start in range(0, len(keys), 500):
                rows = self._select(EXISTING, kb_id, key=_keys(keys[start : start + 500]))
                existing |= {r["key"] for r in rows}
            quads = [
                q for e in entities.values() if e.key not in existing for q in _entity_quads(e, g)
            ]
            quads += [q for e in entities.values() for q in _alias_quads(e, g)]
            for chunk in chunks:
                quads.extend(_chunk_quads(chunk, g))
            for start in range(0, len(quads), 5000):
                self._endpoint.insert(quads[start : start + 5000])
            self._changed(kb_id)

    def _changed(self, kb_id: str) -> None:
        new: Bindings = {"new": [ox.Literal(uuid.uuid4().hex)]}
        self._endpoint.update(render(BUMP_VERSION, new, graph_iri(kb_id)))
        self._key_cache.pop(kb_id, None)

    def delete_documents(self, kb_id: str, doc_ids: list[str]) -> None:
        with self._write_lock:
            for doc_id in dict.fromkeys(doc_ids):
                bindings: Bindings = {"doc": [ox.Literal(doc_id)]}
                self._endpoint.update(render(DELETE_DOCUMENT, bindings, graph_iri(kb_id)))
            self._changed(kb_id)

    # ── reads ──────────────────────────────────────────────────────────────────────────
    def doc_ids(self, kb_id: str) -> set[str]:
        return {r["doc"] for r in self._select(DOC_IDS, kb_id)}

    def match(self, kb_id: str, keys: list[str], limit: int = 20, fuzzy: bool = True) -> Matches:
        """Exact keys (an entity's key or one of its aliases' keys) by SPARQL; fuzzy
        (containment) over the KB's key list, held in memory (a SPARQL CONTAINS scan costs
        ~50 µs per entity in oxigraph)."""
        wanted = _keys([k for k in keys if k])
        query = self._query(MATCH_EXACT, kb_id, 0, {"q": wanted})
        if not wanted:
            return Matches(query=query)
        found = [
            EntityMatch(query=r["q"], entity=_entity(r["key"], r["name"], r["t"]), exact=True)
            for r in self._select(MATCH_EXACT, kb_id, q=wanted)
        ]
        exact = {m.query for m in found}
        named = [q for q in wanted if q.value not in exact]
        if named:
            found += [
                EntityMatch(query=r["q"], entity=_entity(r["key"], r["name"], r["t"]), exact=True)
                for r in self._select(MATCH_ALIAS, kb_id, q=named)
            ]
            exact = {m.query for m in found}
        if not fuzzy:
            return Matches(matches=first_per_entity(found, limit), query=query)
        fuzzy_keys = [q.value for q in wanted if q.value not in exact and len(q.value) >= 2]
        index = self._key_index(kb_id) if fuzzy_keys else None
        pairs = [(q, k) for q in fuzzy_keys if index for k in index.fuzzy(q, limit)]
        if pairs:
            hits = {k for _, k in pairs}
            rows = self._select(MATCH_EXACT, kb_id, q=_keys(sorted(hits)))
            entities = {r["q"]: _entity(r["key"], r["name"], r["t"]) for r in rows}
            found += [
                EntityMatch(query=q, entity=entities[k], exact=False)
                for q, k in pairs
                if k in entities
            ]
        return Matches(matches=first_per_entity(found, limit), query=query)

    def _key_index(self, kb_id: str) -> KeyIndex:
        """The KB's key index, rebuilt only when the graph's version stamp moved."""
        rows = self._select(VERSION, kb_id)
        version = str(rows[0]["v"]) if rows else None
        cached = self._key_cache.get(kb_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        index = KeyIndex(r["key"] for r in self._select(ALL_KEYS, kb_id))
        self._key_cache[kb_id] = (version, index)
        return index

    def expand(self, kb_id: str, keys: list[str], limit: int = 500) -> Expansion:
        # Entities by IRI (their keys percent-encoded): a VALUES join on IRIs is 3× faster.
        out = {"s": _entities(keys)}
        incoming = {"o": _entities(keys)}
        query = self._query(EXPAND_OUT + " ;; " + EXPAND_IN, kb_id, limit, out)
        if not keys:
            return Expansion(query=query)
        edges, seen = [], set()
        rows = self._select(EXPAND_OUT, kb_id, limit, **out)
        rows += self._select(EXPAND_IN, kb_id, limit, **incoming)
        for r in rows:
            p = r["p"]
            if not p.startswith(RELATION) or p == HAS_SOURCE.value:
                continue
            edge = Edge(
                source=_entity(r["sk"], r["sn"], r["st"]),
                target=_entity(r["ok"], r["on"], r["ot"]),
                type=_local(RELATION, p),
            )
            ident = (edge.source.key, edge.type, edge.target.key)
            if ident not in seen:
                seen.add(ident)
                edges.append(edge)
        return Expansion(edges=edges, query=query)

    def provenance(self, kb_id: str, relations: list[Triple]) -> list[RelationProvenance]:
        wanted = list(dict.fromkeys(relations))
        if not wanted:
            return []
        rows = [(_iri(ENTITY, s), _iri(RELATION, t), _iri(ENTITY, o)) for s, t, o in wanted]
        text = render_rows(PROVENANCE, ("s", "p", "o"), list(rows), graph_iri(kb_id))
        found: dict[Triple, dict[str, tuple[str, str, set[str]]]] = {}  # chunk → doc, said, by
        for r in self._endpoint.select(text):
            triple = (_local(ENTITY, r["s"]), _local(RELATION, r["p"]), _local(ENTITY, r["o"]))
            sources = found.setdefault(triple, {})
            doc, said, by = sources.setdefault(
                r["chunk"], (r["doc"], r.get("sentence") or "", set())
            )
            if r.get("by"):
                by.add(r["by"])
        return [
            RelationProvenance(
                source=s,
                type=t,
                target=o,
                sources=sort_sources(
                    RelationSource(chunk_id=c, doc_id=d, sentence=said, extracted_by=list(by))
                    for c, (d, said, by) in found[(s, t, o)].items()
                ),
            )
            for s, t, o in wanted
            if (s, t, o) in found
        ]

    def mentions(self, kb_id: str, keys: list[str], limit: int = 1000) -> Mentions:
        values = {"e": _entities(keys)}
        query = self._query(MENTIONS, kb_id, limit, values)
        if not keys:
            return Mentions(query=query)
        rows = self._select(MENTIONS, kb_id, limit, **values)
        found = [Mention(key=r["k"], chunk_id=r["chunk"], doc_id=r["doc"]) for r in rows]
        return Mentions(mentions=found, query=query)

    def entities(self, kb_id: str, keys: list[str]) -> list[EntityInfo]:
        if not keys:
            return []
        values = {"k": _keys(keys)}
        found: dict[str, Entity] = {}
        for r in self._select(ENTITIES, kb_id, 0, **values):
            found.setdefault(r["k"], _entity(r["k"], r["name"], r["t"]))
        for r in self._select(ALIASES, kb_id, 0, **values):
            if r["k"] in found and r["alias"] not in found[r["k"]].aliases:
                found[r["k"]].aliases.append(r["alias"])
        sources = {r["k"]: r["n"] for r in self._select(SOURCE_COUNTS, kb_id, 0, **values)}
        degrees = {r["k"]: r["n"] for r in self._select(DEGREES, kb_id, 0, **values)}
        return [
            EntityInfo(entity=e, sources=sources.get(k, 0), degree=degrees.get(k, 0))
            for k, e in found.items()
        ]

    def top_entities(self, kb_id: str, limit: int = 20) -> list[EntityInfo]:
        """By degree in SPARQL, then ties broken by sources among a wider window."""
        keys = [r["k"] for r in self._select(TOP, kb_id, limit * 3 + 20)]
        infos = self.entities(kb_id, keys)
        return sorted(infos, key=lambda i: (-i.degree, -i.sources, i.entity.key))[:limit]

    def stats(self, kb_id: str) -> GraphStats:
        entities = self._select(COUNT_ENTITIES, kb_id)
        relations = self._select(COUNT_RELATIONS, kb_id)
        return GraphStats(entities=entities[0]["n"], relations=relations[0]["n"])

    def close(self) -> None:
        self._endpoint.close()


def _entity_quads(entity: Entity, g: ox.NamedNode) -> list[ox.Quad]:
    e = _iri(ENTITY, entity.key)
    return [
        ox.Quad(e, A, _iri(TYPE, entity.type), g),
        ox.Quad(e, LABEL, ox.Literal(entity.name), g),
        ox.Quad(e, NORMALIZED, ox.Literal(entity.key), g),
    ]


def _alias_quads(entity: Entity, g: ox.NamedNode) -> list[ox.Quad]:
    """An entity's other names (added to those earlier documents gave it)."""
    e = _iri(ENTITY, entity.key)
    quads = [ox.Quad(e, ALIAS, ox.Literal(a), g) for a in dict.fromkeys(entity.aliases)]
    keys = dict.fromkeys(k for k in entity.alias_keys if k != entity.key)
    return quads + [ox.Quad(e, ALIAS_KEY, ox.Literal(k), g) for k in keys]


def _chunk_quads(chunk: ChunkGraph, g: ox.NamedNode) -> list[ox.Quad]:
    src = _iri(SOURCE, chunk.chunk_id)
    quads = [
        ox.Quad(src, CHUNK_ID, ox.Literal(chunk.chunk_id), g),
        ox.Quad(src, DOCUMENT_ID, ox.Literal(chunk.doc_id), g),
    ]
    quads += [ox.Quad(_iri(ENTITY, e.key), HAS_SOURCE, src, g) for e in chunk.entities]
    quads += [q for e in chunk.entities for q in _aliasing_quads(e, src, g)]
    for rel in chunk.relations:
        s, p, o = _iri(ENTITY, rel.source), _iri(RELATION, rel.type), _iri(ENTITY, rel.target)
        digest = hashlib.sha256("\x1f".join([s.value, p.value, o.value, src.value]).encode())
        st = ox.NamedNode(STATEMENT + digest.hexdigest()[:32])
        quads += [
            ox.Quad(s, p, o, g),
            ox.Quad(st, SUBJECT, s, g),
            ox.Quad(st, PREDICATE, p, g),
            ox.Quad(st, OBJECT, o, g),
            ox.Quad(st, HAS_SOURCE, src, g),
        ]
        if rel.sentence:
            quads.append(ox.Quad(st, SENTENCE, ox.Literal(rel.sentence), g))
        quads += [ox.Quad(st, EXTRACTED_BY, ox.Literal(b), g) for b in rel.extracted_by]
    return quads


def _aliasing_quads(entity: Entity, src: ox.NamedNode, g: ox.NamedNode) -> list[ox.Quad]:
    """Which aliases this chunk gave the entity, so deleting its document removes exactly the
    aliases no other document gave."""
    names = list(dict.fromkeys(entity.aliases))
    keys = [k for k in dict.fromkeys(entity.alias_keys) if k != entity.key]
    if not names and not keys:
        return []
    e = _iri(ENTITY, entity.key)
    digest = hashlib.sha256("\x1f".join([e.value, src.value]).encode()).hexdigest()[:32]
    n = ox.NamedNode(ALIASING + digest)
    quads = [ox.Quad(n, ALIAS_OF, e, g), ox.Quad(n, ALIAS_SOURCE, src, g)]
    quads += [ox.Quad(n, ALIAS, ox.Literal(a), g) for a in names]
    return quads + [ox.Quad(n, ALIAS_KEY, ox.Literal(k), g) for k in keys]


def open_ontology(settings: Settings) -> OntologyGraphStore:
    """Embedded pyoxigraph under the data dir, or a SPARQL 1.1 endpoint by URL."""
    sparql = settings.sparql
    if sparql.query_url:
        endpoint: SparqlEndpoint = RemoteSparql(
            sparql.query_url,
            sparql.update_url or sparql.query_url,
            user=sparql.user,
            password=sparql.password,
            timeout_s=sparql.timeout_s,
        )
    else:
        endpoint = EmbeddedSparql(settings.graph_dir)
    return OntologyGraphStore(endpoint)


register_graph_backend("ontology", open_ontology)
