"""The graph-store protocol every graph backend implements (RDF/SPARQL `ontology`, `neo4j`).

A knowledge base with a graph keeps, per chunk, the entities the chunk mentions and the relations
between them. Entities are identified per KB by their *key* (the normalised name, see
`planrag.text.entities`); the store never normalises itself. Every entity and relation keeps its
provenance (the chunks, and so the documents, it came from): deleting a document removes its
provenance and the entities and relations nothing else supports — no extraction, no LLM.

Reads return typed models plus the query the backend ran (`GraphQuery`: the query text and its
parameters separately), which retrieval shows as `graph_metadata`.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable
from urllib.parse import quote, unquote

from pydantic import BaseModel, Field, field_validator, model_validator

from planrag.core.types import GraphQuery

# A relation type is a name made of letters, digits and underscores (any script), starting with
# a letter: Cypher renders it as a relationship type, SPARQL as an IRI under relation/.
RELATION_TYPE = re.compile(r"^[^\W\d_]\w{0,63}$")
ENTITY_TYPE = re.compile(r"^[A-Z][A-Z0-9_]{0,31}$")
DEFAULT_TYPE = "CONCEPT"
DEFAULT_RELATION = "related_to"
MAX_KEY_CHARS = 200


def entity_id(key: str) -> str:
    """An entity's id in URLs and IRIs: its key, percent-encoded (URL-safe, reversible)."""
    return quote(key, safe="")


def entity_key(entity_id_: str) -> str:
    return unquote(entity_id_)


def relation_type(raw: str) -> str:
    """A free-text relation name as a relation type: runs of other characters become `_`;
    nothing usable gives `related_to`."""
    cleaned = re.sub(r"\W+", "_", raw.strip()).strip("_")[:64]
    if cleaned and cleaned[0].isdigit():
        cleaned = "r_" + cleaned
    return cleaned[:64] if cleaned and RELATION_TYPE.match(cleaned[:64]) else DEFAULT_RELATION


class Entity(BaseModel):
    key: str = Field(min_length=1, max_length=MAX_KEY_CHARS, description="normalised name")
    name: str = Field(min_length=1, max_length=500, description="the name as first seen")
    type: str = DEFAULT_TYPE
    aliases: list[str] = Field(
        default_factory=list, description="other names of the thing, as the documents wrote them"
    )
    alias_keys: list[str] = Field(
        default_factory=list,
        description="the aliases' keys (normalised by the caller, as `key`): matching any of them "
        "finds the entity (written, not read back)",
    )
    extracted_by: list[str] = Field(
        default_factory=list, description="the extractors that found it: rule, llm (extraction)"
    )
    prefix: str = Field(
        default="",
        description="a person its document named only by a short form ('최민 수석', '김 대표'): "
        "what the person's full name begins with. Unification completes it from the KB or, for a "
        "bare surname, drops it (extraction; written, never stored)",
    )

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        upper = re.sub(r"\W+", "_", value.strip().upper()).strip("_")
        return upper if ENTITY_TYPE.match(upper) else DEFAULT_TYPE

    @property
    def id(self) -> str:
        return entity_id(self.key)


class Relation(BaseModel):
    source: str = Field(description="the subject's key")
    target: str = Field(description="the object's key")
    type: str = DEFAULT_RELATION
    sentence: str = Field(default="", description="the sentence it was read from (extraction)")
    extracted_by: list[str] = Field(
        default_factory=list, description="the extractors that found it: rule, llm (extraction)"
    )

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return value if RELATION_TYPE.match(value) else relation_type(value)


class ChunkGraph(BaseModel):
    """What one chunk contributes to its KB's graph."""

    chunk_id: str
    doc_id: str
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)

    @model_validator(mode="after")
    def _endpoints_known(self) -> ChunkGraph:
        keys = {e.key for e in self.entities}
        for rel in self.relations:
            if rel.source not in keys or rel.target not in keys:
                raise ValueError(f"relation {rel.type} joins entities the chunk does not list")
        return self


class Edge(BaseModel):
    source: Entity
    target: Entity
    type: str


Triple = tuple[str, str, str]  # a relation: source key, type, target key

EXTRACTORS = ("rule", "llm")


class RelationSource(BaseModel):
    """Where a relation was read (spec 001's provenance): one chunk of one document, the
    sentence that states it, and the extractors that found it there."""

    chunk_id: str = Field(default="", description="'' in graphs written before it was kept")
    doc_id: str
    sentence: str = Field(default="", description="'' when not kept (older graphs, LLM-only)")
    extracted_by: list[str] = Field(default_factory=list, description="rule, llm")

    @field_validator("extracted_by")
    @classmethod
    def _ordered(cls, value: list[str]) -> list[str]:
        rank = {name: i for i, name in enumerate(EXTRACTORS)}
        return sorted(set(value), key=lambda v: (rank.get(v, len(rank)), v))


class RelationProvenance(BaseModel):
    source: str = Field(description="the subject's key")
    type: str
    target: str = Field(description="the object's key")
    sources: list[RelationSource] = Field(default_factory=list)

    @property
    def triple(self) -> Triple:
        return (self.source, self.type, self.target)

    @property
    def extracted_by(self) -> str:
        """rule, llm or both (over every chunk stating it); '' when no extractor was kept."""
        return extractors_label({b for s in self.sources for b in s.extracted_by})

    @property
    def sentence(self) -> str:
        """The first sentence kept for it (the chunks in store order), else ''."""
        return next((s.sentence for s in self.sources if s.sentence), "")


def extractors_label(found: Iterable[str]) -> str:
    """The extractors of a relation as one word: rule, llm, both, or ''."""
    kept = {f for f in found if f in EXTRACTORS}
    return "both" if len(kept) == 2 else next(iter(kept), "")


def sort_sources(sources: Iterable[RelationSource]) -> list[RelationSource]:
    return sorted(sources, key=lambda s: (s.doc_id, s.chunk_id, s.sentence))


class EntityMatch(BaseModel):
    query: str = Field(description="the key looked for")
    entity: Entity
    exact: bool


class Matches(BaseModel):
    matches: list[EntityMatch] = Field(default_factory=list)
    query: GraphQuery


class Expansion(BaseModel):
    """One hop from a set of entities, both directions."""

    edges: list[Edge] = Field(default_factory=list)
    query: GraphQuery


class Mention(BaseModel):
    key: str
    chunk_id: str
    doc_id: str


class Mentions(BaseModel):
    mentions: list[Mention] = Field(default_factory=list)
    query: GraphQuery


class EntityInfo(BaseModel):
    entity: Entity
    sources: int = Field(ge=0, description="chunks that mention it")
    degree: int = Field(ge=0, description="relations to other entities, both directions")


class GraphStats(BaseModel):
    entities: int = 0
    relations: int = 0


def _closest(query: str, found: Iterable[str], limit: int) -> list[str]:
    return heapq.nsmallest(limit, found, key=lambda k: (abs(len(k) - len(query)), k))


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


class KeyIndex:
    """The fuzzy step of `GraphStore.match` over one KB's entity keys, without a scan.

    Keys contained in the query are found by looking up the query's substrings; keys that
    contain the query, through the posting lists of its character bigrams (then checked). A
    query contained in more than `generic` keys ("corp", "대학") names no entity in particular:
    only the keys inside it are returned for it, as a scan would have drowned the match in
    thousands of equally-close names.
    """

    def __init__(self, keys: Iterable[str], generic: int = 200) -> None:
        self._keys = {k for k in keys if len(k) >= 2}
        self._generic = generic
        self._grams: dict[str, set[str]] = {}
        for key in self._keys:
            for gram in _bigrams(key):
                self._grams.setdefault(gram, set()).add(key)

    def __len__(self) -> int:
        return len(self._keys)

    def fuzzy(self, query: str, limit: int) -> list[str]:
        n = len(query)
        inside = {query[i:j] for i in range(n) for j in range(i + 2, n + 1)} & self._keys
        postings = sorted((self._grams.get(g, set()) for g in _bigrams(query)), key=len)
        containing: set[str] = set()
        if postings and len(postings[0]) <= 20 * self._generic:
            pool = postings[0].intersection(*postings[1:])
            containing = {k for k in pool if query in k}
            if len(containing) > self._generic:
                containing = set()
        return _closest(query, (inside | containing) - {query}, limit)


def first_per_entity(matches: list[EntityMatch], limit: int) -> list[EntityMatch]:
    """One match per entity (exact ones first), at most `limit` per query key."""
    out: list[EntityMatch] = []
    seen: set[str] = set()
    per_query: dict[str, int] = {}
    for match in sorted(matches, key=lambda m: (not m.exact, m.query, m.entity.key)):
        if match.entity.key in seen or per_query.get(match.query, 0) >= limit:
            continue
        seen.add(match.entity.key)
        per_query[match.query] = per_query.get(match.query, 0) + 1
        out.append(match)
    return out


@runtime_checkable
class GraphStore(Protocol):
    backend: str  # the backend's name: "ontology", "neo4j" (a KB's `graph_backend`)

    def create_graph(self, kb_id: str) -> None: ...

    def drop_graph(self, kb_id: str) -> None:
        """Remove everything of the KB; dropping twice is fine."""
        ...

    def add(self, kb_id: str, chunks: list[ChunkGraph]) -> None:
        """Merge entities (first name and type win; aliases and alias keys accumulate, each
        remembered with the chunk that gave it), relations and provenance (per chunk: the
        relation's sentence and extractors); idempotent."""
        ...

    def delete_documents(self, kb_id: str, doc_ids: list[str]) -> None:
        """Remove the documents' provenance (relation sentences and extractors, the aliases only
        they gave), then relations and entities nothing else supports."""
        ...

    def doc_ids(self, kb_id: str) -> set[str]: ...

    def match(self, kb_id: str, keys: list[str], limit: int = 20, fuzzy: bool = True) -> Matches:
        """Entities whose key or one of whose alias keys equals one of `keys` (exact), else
        (with `fuzzy`) whose key contains or is contained in it (keys of ≥ 2 characters), at
        most `limit` per key."""
        ...

    def expand(self, kb_id: str, keys: list[str], limit: int = 500) -> Expansion:
        """Relations touching the given entities, either direction."""
        ...

    def provenance(self, kb_id: str, relations: list[Triple]) -> list[RelationProvenance]:
        """Where each of these relations was read: per chunk, its document, the sentence and
        the extractors (relations the graph lacks are left out; relations written before
        provenance was kept report their documents only)."""
        ...

    def mentions(self, kb_id: str, keys: list[str], limit: int = 1000) -> Mentions:
        """The chunks that mention the given entities."""
        ...

    def entities(self, kb_id: str, keys: list[str]) -> list[EntityInfo]:
        """The entities of these keys, with their aliases, sources and degree."""
        ...

    def top_entities(self, kb_id: str, limit: int = 20) -> list[EntityInfo]:
        """The most connected entities (degree, then sources, then key)."""
        ...

    def stats(self, kb_id: str) -> GraphStats: ...

    def close(self) -> None: ...
