"""The `neo4j` graph backend: a property graph over Bolt with the official `neo4j` driver (Neo4j 5,
or any server speaking its Cypher — tests run ArcadeDB's Bolt plugin).

    (:Entity {uid, kb, key, name, type, aliases, alias_keys})
        -[:is_CEO_of {kb, type, docs: [doc ids], chunks, chunk_docs, sentences, extractors}]->
        (:Entity)
    (:Entity)-[:HAS_SOURCE {aliases, alias_keys}]->(:Source {uid, kb, chunk_id, doc_id})

**Provenance as relationship properties.** A relationship's `chunks`, `chunk_docs`,
`sentences` and `extractors` are parallel lists, one item per chunk stating it (its document, the
sentence it was read from, its extractors joined by "+": "rule+llm"); a `HAS_SOURCE`
relationship keeps the aliases and alias keys its chunk gave the entity. Deleting a document
filters the lists and recomputes an entity's aliases from what other documents gave (aliases
written before these properties existed are kept); relationships written before then have only
`docs`, and report their documents alone.

**A `kb` property, not a label per KB.** Cypher cannot take a label as a parameter, so a label
per KB would put KB ids into query text; one uniqueness constraint on `uid` (`kb:key`, and
`kb:chunk_id` for sources) covers every KB, where labels would need DDL per KB; and dropping a KB
is a parameterised, batched delete on the indexed `kb` property.

Every value is a Cypher parameter. The one exception is a relationship's *type*, which Cypher
cannot parameterise (before Neo4j 5.26's dynamic types, which other Bolt servers lack): it is
rendered only after matching `RELATION_TYPE` (letters, digits and `_`), so it cannot carry
syntax. Writes run in managed transactions (`execute_write`, which retries transient errors),
in UNWIND batches, serialised per KB within the process (concurrent MERGEs of one key would
otherwise race on servers that check the constraint late).
"""

from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from typing import Any

from neo4j import Driver, GraphDatabase, ManagedTransaction
from neo4j.exceptions import Neo4jError, ServiceUnavailable

from planrag.core.errors import StoreUnavailable
from planrag.core.settings import Settings
from planrag.stores.graph import (
    RELATION_TYPE,
    ChunkGraph,
    Edge,
    Entity,
    EntityInfo,
    EntityMatch,
    Expansion,
    GraphQuery,
    GraphStats,
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
from planrag.stores.neo4j_queries import (
    COUNT_ENTITIES,
    COUNT_RELATIONS,
    DELETE_ALIASES,
    DELETE_ORPHANS,
    DELETE_RELATIONS,
    DELETE_SOURCES,
    DOC_IDS,
    DROP_BATCH,
    ENTITIES,
    EXPAND,
    MATCH_ALIAS,
    MATCH_EXACT,
    MATCH_FUZZY,
    MENTIONS,
    MERGE_ENTITIES,
    MERGE_RELATIONS,
    MERGE_SOURCES,
    PROVENANCE,
    SCHEMA,
    TOP,
)

BATCH = 1000


def _entity(key: str, name: str, type_: str) -> Entity:
    return Entity(key=key, name=name, type=type_)


class Neo4jGraphStore:
    backend = "neo4j"

    def __init__(
        self,
        uri: str,
        user: str = "",
        password: str = "",
        database: str = "",
        *,
        retry_s: float = 15.0,
        timeout_s: float = 10.0,
    ) -> None:
        auth = (user, password) if user else None
        self._driver: Driver = GraphDatabase.driver(
            uri,
            auth=auth,
            max_transaction_retry_time=retry_s,  # transient errors, retried by execute_*
            connection_timeout=timeout_s,
        )
        self._database = database or None
        self._uri = uri
        self._schema_ready = False
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._guard = threading.Lock()

    # ── plumbing ───────────────────────────────────────────────────────────────────────
    def _session(self) -> Any:
        return self._driver.session(database=self._database)

    def _ensure_schema(self) -> None:
        if self._schema_ready:
            return
        for statement in SCHEMA:
            self._write([(statement, {})])
        self._schema_ready = True

    def _write(self, statements: list[tuple[str, dict[str, Any]]]) -> None:
        """Run statements in one managed write transaction (retried on transient errors)."""

        def work(tx: ManagedTransaction) -> None:
            for text, params in statements:
                tx.run(text, params).consume()

        try:
            with self._session() as session:
                session.execute_write(work)
        except ServiceUnavailable as exc:
            raise StoreUnavailable(f"Neo4j at {self._uri} is unreachable: {exc}") from exc

    def _read(self, text: str, **params: Any) -> list[dict[str, Any]]:
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(text, params)]

        self._ensure_schema()
        try:
            with self._session() as session:
                return session.execute_read(work)
        except ServiceUnavailable as exc:
            raise StoreUnavailable(f"Neo4j at {self._uri} is unreachable: {exc}") from exc

    def _lock(self, kb_id: str) -> threading.Lock:
        with self._guard:
            return self._locks[kb_id]

    @staticmethod
    def _shown(text: str, **params: Any) -> GraphQuery:
        return GraphQuery(language="cypher", text=text, params=params)

    # ── writes ─────────────────────────────────────────────────────────────────────────
    def create_graph(self, kb_id: str) -> None:
        self._ensure_schema()

    def drop_graph(self, kb_id: str) -> None:
        self._ensure_schema()
        with self._lock(kb_id):
            for label in ("Source", "Entity"):
                while True:
                    rows = self._read_write(DROP_BATCH.format(label=label), kb=kb_id, batch=BATCH)
                    if not rows or rows[0]["n"] == 0:
                        break

    def _read_write(self, text: str, **params: Any) -> list[dict[str, Any]]:
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(text, params)]

        with self._session() as session:
            return session.execute_write(work)

    def add(self, kb_id: str, chunks: list[ChunkGraph]) -> None:
        if not chunks:
            return
        self._ensure_schema()
        entities: dict[str, Entity] = {}
        for chunk in chunks:
            for entity in chunk.entities:
                entities.setdefault(entity.key, entity)
        statements: list[tuple[str, dict[str, Any]]] = []
        rows = [
            {
                "key": e.key,
                "name": e.name,
                "type": e.type,
                "aliases": list(dict.fromkeys(e.aliases)),
                "alias_keys": [k for k in dict.fromkeys(e.alias_keys) if k != e.key],
            }
            for e in entities.values()
        ]
        for start in range(0, len(rows), BATCH):
            statements.append((MERGE_ENTITIES, {"kb": kb_id, "rows": rows[start : start + BATCH]}))
        sources = [
            {
                "chunk_id": c.chunk_id,
                "doc_id": c.doc_id,
                "entities": [
                    {
                        "key": e.key,
                        "aliases": list(dict.fromkeys(e.aliases)),
                        "alias_keys": [k for k in dict.fromkeys(e.alias_keys) if k != e.key],
                    }
                    for e in c.entities
                ],
            }
            for c in chunks
        ]
        for start in range(0, len(sources), BATCH):
            batch = sources[start : start + BATCH]
            statements.append((MERGE_SOURCES, {"kb": kb_id, "rows": batch}))
        by_type: dict[str, list[dict[str, str]]] = defaultdict(list)
        for chunk in chunks:
            for rel in chunk.relations:
                by_type[rel.type].append(
                    {
                        "source": rel.source,
                        "target": rel.target,
                        "doc_id": chunk.doc_id,
                        "chunk_id": chunk.chunk_id,
                        "sentence": rel.sentence,
                        "by": "+".join(rel.extracted_by),
                    }
                )
        for type_, rels in by_type.items():
            if not RELATION_TYPE.match(type_):  # the model validated it; never render otherwise
                raise ValueError(f"invalid relation type {type_!r}")
            text = MERGE_RELATIONS.replace("{type}", type_)
            for start in range(0, len(rels), BATCH):
                params = {"kb": kb_id, "type": type_, "rows": rels[start : start + BATCH]}
                statements.append((text, params))
        with self._lock(kb_id):
            self._write(statements)

    def delete_documents(self, kb_id: str, doc_ids: list[str]) -> None:
        params = {"kb": kb_id, "docs": list(dict.fromkeys(doc_ids))}
        self._ensure_schema()
        with self._lock(kb_id):
            self._write(
                [
                    (q, params)
                    for q in (DELETE_RELATIONS, DELETE_ALIASES, DELETE_ORPHANS, DELETE_SOURCES)
                ]
            )

    # ── reads ──────────────────────────────────────────────────────────────────────────
    def doc_ids(self, kb_id: str) -> set[str]:
        return {r["doc"] for r in self._read(DOC_IDS, kb=kb_id)}

    def match(self, kb_id: str, keys: list[str], limit: int = 20, fuzzy: bool = True) -> Matches:
        wanted = list(dict.fromkeys(k for k in keys if k))
        query = self._shown(MATCH_EXACT, kb=kb_id, keys=wanted)
        if not wanted:
            return Matches(query=query)
        rows = self._read(MATCH_EXACT, kb=kb_id, keys=wanted)
        named = [q for q in wanted if q not in {r["q"] for r in rows}]
        if named:
            rows += self._read(MATCH_ALIAS, kb=kb_id, keys=named)
        found = [
            EntityMatch(query=r["q"], entity=_entity(r["key"], r["name"], r["type"]), exact=True)
            for r in rows
        ]
        exact = {m.query for m in found}
        fuzzy_keys = [q for q in wanted if q not in exact and len(q) >= 2] if fuzzy else []
        if fuzzy_keys:
            total = limit * len(fuzzy_keys)
            query = self._shown(
                MATCH_EXACT + " ;; " + MATCH_FUZZY, kb=kb_id, keys=wanted, limit=total
            )
            rows = self._read(MATCH_FUZZY, kb=kb_id, keys=fuzzy_keys, limit=total)
            found += [
                EntityMatch(
                    query=r["q"], entity=_entity(r["key"], r["name"], r["type"]), exact=False
                )
                for r in rows
            ]
        return Matches(matches=first_per_entity(found, limit), query=query)

    def expand(self, kb_id: str, keys: list[str], limit: int = 500) -> Expansion:
        wanted = list(dict.fromkeys(keys))
        query = self._shown(EXPAND, kb=kb_id, keys=wanted, limit=limit)
        if not wanted:
            return Expansion(query=query)
        edges, seen = [], set()
        for r in self._read(EXPAND, kb=kb_id, keys=wanted, limit=limit):
            a = _entity(r["ak"], r["an"], r["at"])
            b = _entity(r["bk"], r["bn"], r["bt"])
            source, target = (a, b) if r["out"] else (b, a)
            ident = (source.key, r["type"], target.key)
            if ident not in seen:
                seen.add(ident)
                edges.append(Edge(source=source, target=target, type=r["type"]))
        return Expansion(edges=edges, query=query)

    def provenance(self, kb_id: str, relations: list[Triple]) -> list[RelationProvenance]:
        wanted = list(dict.fromkeys(relations))
        if not wanted:
            return []
        rows = [{"source": s, "type": t, "target": o} for s, t, o in wanted]
        found = {
            (r["source"], r["type"], r["target"]): _provenance(r)
            for r in self._read(PROVENANCE, kb=kb_id, rows=rows)
        }
        return [found[t] for t in wanted if t in found]

    def mentions(self, kb_id: str, keys: list[str], limit: int = 1000) -> Mentions:
        wanted = list(dict.fromkeys(keys))
        query = self._shown(MENTIONS, kb=kb_id, keys=wanted, limit=limit)
        if not wanted:
            return Mentions(query=query)
        rows = self._read(MENTIONS, kb=kb_id, keys=wanted, limit=limit)
        found = [Mention(key=r["k"], chunk_id=r["chunk_id"], doc_id=r["doc_id"]) for r in rows]
        return Mentions(mentions=found, query=query)

    def entities(self, kb_id: str, keys: list[str]) -> list[EntityInfo]:
        if not keys:
            return []
        rows = self._read(ENTITIES, kb=kb_id, keys=list(dict.fromkeys(keys)))
        return [_info(r) for r in rows]

    def top_entities(self, kb_id: str, limit: int = 20) -> list[EntityInfo]:
        return [_info(r) for r in self._read(TOP, kb=kb_id, limit=limit)]

    def stats(self, kb_id: str) -> GraphStats:
        entities = self._read(COUNT_ENTITIES, kb=kb_id)[0]["n"]
        relations = self._read(COUNT_RELATIONS, kb=kb_id)[0]["n"]
        return GraphStats(entities=entities, relations=relations)

    def close(self) -> None:
        with contextlib.suppress(Neo4jError):
            self._driver.close()


def _info(row: dict[str, Any]) -> EntityInfo:
    entity = _entity(row["key"], row["name"], row["type"])
    entity.aliases = list(row.get("aliases") or [])
    return EntityInfo(entity=entity, sources=row["sources"], degree=row["degree"])


def _provenance(row: dict[str, Any]) -> RelationProvenance:
    """A relationship's provenance lists as sources; one written before they existed gives its
    documents alone."""
    chunks = list(row.get("chunks") or [])
    if chunks:
        sources = [
            RelationSource(
                chunk_id=chunk,
                doc_id=doc,
                sentence=said or "",
                extracted_by=[b for b in (by or "").split("+") if b],
            )
            for chunk, doc, said, by in zip(
                chunks, row["chunk_docs"], row["sentences"], row["extractors"], strict=False
            )
        ]
    else:
        sources = [RelationSource(doc_id=d) for d in row.get("docs") or []]
    return RelationProvenance(
        source=row["source"], type=row["type"], target=row["target"], sources=sort_sources(sources)
    )


def open_neo4j(settings: Settings) -> Neo4jGraphStore:
    cfg = settings.neo4j
    return Neo4jGraphStore(cfg.uri, cfg.user, cfg.password, cfg.database, retry_s=cfg.retry_s)


def _unconfigured(settings: Settings) -> str | None:
    """No embedded default: a Neo4j server by URI or no neo4j knowledge bases."""
    return None if settings.neo4j.uri else "set PLANRAG_NEO4J__URI (bolt://host:7687)"


register_graph_backend("neo4j", open_neo4j, _unconfigured)
