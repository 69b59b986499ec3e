"""A knowledge base's graph for people (the web console's graph view): an entity's
neighbourhood, the most connected entities, and the passages that mention an entity.

On a per-user knowledge base with auth on, a caller who is not an admin sees the graph through
their own documents only (`RestrictedGraph`), as the document API shows them only their own
documents: no entity, relation or passage that only another user's documents mention."""

from __future__ import annotations

from pydantic import BaseModel, Field

from planrag.core.errors import InvalidInput, NotFound
from planrag.core.types import KnowledgeBase
from planrag.executors.graph_search import GraphSearch
from planrag.services.auth import Principal
from planrag.services.ownership import OwnershipResolver
from planrag.stores.graph import (
    DEFAULT_TYPE,
    Edge,
    Entity,
    GraphStore,
    RelationProvenance,
    Triple,
    entity_key,
)
from planrag.stores.graphs import GraphStores
from planrag.stores.metadata import MetadataStore
from planrag.stores.restricted_graph import restricted
from planrag.text.definitions import definition, first_mention
from planrag.text.entities import normalize

SENTENCE_CHUNKS = 20  # an entity's passages read for its definition, in document order


class GraphNode(BaseModel):
    id: str = Field(description="the entity id (its key, percent-encoded)")
    name: str
    type: str = Field(description="PERSON, ORGANIZATION, PRODUCT, PLACE, EVENT, DATE, CONCEPT, …")
    aliases: list[str] = Field(
        default_factory=list, description="the other names the documents give it"
    )
    sources: int = Field(ge=0, description="chunks that mention it")


class GraphEdge(BaseModel):
    source: str
    target: str
    type: str
    sentence: str = Field(
        default="", description="the sentence it was read from ('' when none was kept)"
    )
    extracted_by: str = Field(default="", description="rule, llm or both ('' when not kept)")
    documents: list[str] = Field(default_factory=list, description="ids of documents stating it")


class GraphNeighbourhood(BaseModel):
    kb_id: str
    center: str | None = Field(description="the id of the entity asked for; null without one")
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = Field(description="more nodes or edges were found than the limit")


class EntityView(BaseModel):
    id: str
    name: str
    type: str
    aliases: list[str] = Field(
        default_factory=list, description="the other names the documents give it"
    )


class EntityDescription(BaseModel):
    """What an entity is, from its sentences (spec 004's entity `type` and `description`)."""

    type: str = Field(
        description="the graph's type; a CONCEPT takes the type its definition implies"
    )
    description: str = Field(
        description="the first sentence defining it ('X는 … 회사이다'), else the first that names "
        "it; empty when no passage is readable"
    )
    aliases: list[str] = Field(
        default_factory=list, description="the other names the documents give it"
    )


class EntitySource(BaseModel):
    chunk_id: str
    document_id: str
    document_name: str
    text: str


class EntitySources(BaseModel):
    entity: EntityView
    sources: list[EntitySource]


def _described(entity: Entity, texts: list[str]) -> EntityDescription:
    names = list(dict.fromkeys([entity.name, *entity.aliases]))
    for text in texts:
        found = definition(names, text)
        if found is not None:
            type_ = found.type if entity.type == DEFAULT_TYPE and found.type else entity.type
            return EntityDescription(type=type_, description=found.sentence, aliases=entity.aliases)
    first = next((s for s in (first_mention(names, t) for t in texts) if s), "")
    return EntityDescription(type=entity.type, description=first, aliases=entity.aliases)


def _view(entity: Entity) -> EntityView:
    return EntityView(id=entity.id, name=entity.name, type=entity.type, aliases=entity.aliases)


class GraphExplorer:
    def __init__(
        self, metadata: MetadataStore, graphs: GraphStores, *, auth_enabled: bool = False
    ) -> None:
        self._metadata = metadata
        self._graphs = graphs
        self._auth_enabled = auth_enabled
        self._owners = OwnershipResolver(metadata.engine)

    def _store(self, kb_id: str, principal: Principal | None) -> GraphStore:
        kb = self._metadata.get_kb(kb_id)
        store = self._graphs.for_kb(kb.graph_backend)
        if store is None:
            raise InvalidInput("this knowledge base has no graph (graph_backend 'none')")
        if not kb.per_user or not self._auth_enabled or principal is None or principal.admin:
            return store
        return restricted(store, self._owners.restriction([kb], principal.id)[kb.id])

    def neighbourhood(
        self,
        kb_id: str,
        entity: str | None,
        hops: int = 1,
        limit: int = 100,
        principal: Principal | None = None,
    ) -> GraphNeighbourhood:
        store = self._store(kb_id, principal)
        if not entity:
            return self._most_connected(kb_id, store, limit)
        matches = store.match(kb_id, [normalize(entity)], limit=1).matches
        if not matches:
            return GraphNeighbourhood(kb_id=kb_id, center=None, nodes=[], edges=[], truncated=False)
        center = matches[0].entity
        keys, edges, frontier, truncated = {center.key: center}, {}, [center.key], False
        for _ in range(hops):
            expansion = store.expand(kb_id, frontier, limit=limit * 4)
            truncated = truncated or len(expansion.edges) >= limit * 4
            frontier = []
            for edge in expansion.edges:
                for end in (edge.source, edge.target):
                    if end.key not in keys:
                        if len(keys) >= limit:
                            truncated = True
                            continue
                        keys[end.key] = end
                        frontier.append(end.key)
                if edge.source.key in keys and edge.target.key in keys:
                    edges[(edge.source.key, edge.type, edge.target.key)] = edge
            if not frontier:
                break
        return self._assemble(kb_id, store, center.id, list(keys.values()), edges, truncated)

    def _most_connected(self, kb_id: str, store: GraphStore, limit: int) -> GraphNeighbourhood:
        top = store.top_entities(kb_id, limit=limit)
        keys = {i.entity.key for i in top}
        edges = {
            (e.source.key, e.type, e.target.key): e
            for e in store.expand(kb_id, list(keys), limit=limit * 10).edges
            if e.source.key in keys and e.target.key in keys
        }
        truncated = len(top) >= limit and store.stats(kb_id).entities > limit
        return self._assemble(kb_id, store, None, [i.entity for i in top], edges, truncated)

    @staticmethod
    def _assemble(
        kb_id: str,
        store: GraphStore,
        center: str | None,
        entities: list[Entity],
        edges: dict[tuple[str, str, str], Edge],
        truncated: bool,
    ) -> GraphNeighbourhood:
        infos = {i.entity.key: i for i in store.entities(kb_id, [e.key for e in entities])}
        nodes = [
            GraphNode(
                id=e.id,
                name=e.name,
                type=e.type,
                aliases=infos[e.key].entity.aliases if e.key in infos else [],
                sources=infos[e.key].sources if e.key in infos else 0,
            )
            for e in entities
        ]
        read = {p.triple: p for p in store.provenance(kb_id, list(edges))}
        links = [
            GraphEdge(
                source=e.source.id,
                target=e.target.id,
                type=e.type,
                sentence=read[key].sentence if key in read else "",
                extracted_by=read[key].extracted_by if key in read else "",
                documents=list(dict.fromkeys(s.doc_id for s in read[key].sources))
                if key in read
                else [],
            )
            for key, e in edges.items()
        ]
        return GraphNeighbourhood(
            kb_id=kb_id, center=center, nodes=nodes, edges=links, truncated=truncated
        )

    def about(
        self,
        kb: KnowledgeBase,
        question: str,
        hops: int = 2,
        limit: int = 20,
        documents: frozenset[str] | None = None,
    ) -> tuple[list[Entity], list[Edge], dict[Triple, RelationProvenance]]:
        """The entities and relations a question reaches in a KB's graph (spec 004's
        background_search), with where each relation was read; nothing for a KB without a
        graph. `documents` (a per-user KB: the asker's) are the only ones whose entities,
        relations and sentences it may name."""
        store = self._graphs.for_kb(kb.graph_backend)
        if store is None:
            return [], [], {}
        store = restricted(store, documents)
        result = GraphSearch(store, kb.graph_backend).search(kb.id, question, hops, limit)
        return result.entities[:limit], result.edges[:limit], result.provenance

    def describe(
        self, kb: KnowledgeBase, entities: list[Entity], documents: frozenset[str] | None = None
    ) -> dict[str, EntityDescription]:
        """Each entity's type and description from the passages that mention it (of
        `documents` only, on a per-user KB), read in document order: the first defining
        sentence, else the first sentence naming it."""
        store = self._graphs.for_kb(kb.graph_backend)
        if store is None or not entities:
            return {}
        store = restricted(store, documents)
        stored = {i.entity.key: i.entity for i in store.entities(kb.id, [e.key for e in entities])}
        entities = [stored.get(e.key, e) for e in entities]
        mentioned = {
            e.key: store.mentions(kb.id, [e.key], limit=SENTENCE_CHUNKS).mentions for e in entities
        }
        chunks = self._metadata.get_chunks(
            list({m.chunk_id for found in mentioned.values() for m in found})
        )
        out: dict[str, EntityDescription] = {}
        for entity in entities:
            texts = sorted(
                (chunks[m.chunk_id] for m in mentioned[entity.key] if m.chunk_id in chunks),
                key=lambda c: (c.doc_id, c.position),
            )
            out[entity.key] = _described(entity, [c.text for c in texts])
        return out

    def sources(
        self, kb_id: str, entity_id: str, limit: int = 50, principal: Principal | None = None
    ) -> EntitySources:
        store = self._store(kb_id, principal)
        key = entity_key(entity_id)
        found = store.entities(kb_id, [key])
        if not found:
            raise NotFound(f"no entity {entity_id!r} in this knowledge base's graph")
        mentions = store.mentions(kb_id, [key], limit=limit).mentions
        chunks = self._metadata.get_chunks([m.chunk_id for m in mentions])
        docs = self._metadata.get_documents({m.doc_id for m in mentions})
        listed = [
            EntitySource(
                chunk_id=m.chunk_id,
                document_id=m.doc_id,
                document_name=docs[m.doc_id].filename,
                text=chunks[m.chunk_id].text,
            )
            for m in mentions
            if m.chunk_id in chunks and m.doc_id in docs
        ]
        return EntitySources(entity=_view(found[0].entity), sources=listed)
