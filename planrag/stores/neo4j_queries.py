"""The Cypher of the `neo4j` graph backend (see `neo4j.py` for the graph's shape). Every value
is a parameter; a relationship type is spliced into `MERGE_RELATIONS` only after `RELATION_TYPE`
matched it, and a label into `DROP_BATCH` only from code."""

from __future__ import annotations

SCHEMA = [
    "CREATE CONSTRAINT planrag_entity_uid IF NOT EXISTS FOR (e:Entity) REQUIRE e.uid IS UNIQUE",
    "CREATE CONSTRAINT planrag_source_uid IF NOT EXISTS FOR (s:Source) REQUIRE s.uid IS UNIQUE",
    "CREATE INDEX planrag_entity_kb IF NOT EXISTS FOR (e:Entity) ON (e.kb)",
    "CREATE INDEX planrag_source_kb IF NOT EXISTS FOR (s:Source) ON (s.kb)",
]

MERGE_ENTITIES = (
    "UNWIND $rows AS row MERGE (e:Entity {uid: $kb + ':' + row.key})"
    " ON CREATE SET e.kb = $kb, e.key = row.key, e.name = row.name, e.type = row.type,"
    " e.aliases = [], e.alias_keys = []"
    " WITH e, row, coalesce(e.aliases, []) AS names, coalesce(e.alias_keys, []) AS keys"
    " SET e.aliases = names + [a IN row.aliases WHERE NOT a IN names],"
    " e.alias_keys = keys + [k IN row.alias_keys WHERE NOT k IN keys]"
)
MERGE_SOURCES = (
    "UNWIND $rows AS row MERGE (s:Source {uid: $kb + ':' + row.chunk_id})"
    " ON CREATE SET s.kb = $kb, s.chunk_id = row.chunk_id, s.doc_id = row.doc_id"
    " WITH s, row UNWIND row.entities AS named MATCH (e:Entity {uid: $kb + ':' + named.key})"
    " MERGE (e)-[h:HAS_SOURCE]->(s) SET h.aliases = named.aliases, h.alias_keys = named.alias_keys"
)
# The relationship type is spliced only after RELATION_TYPE matched it (see module docstring).
MERGE_RELATIONS = (
    "UNWIND $rows AS row"
    " MATCH (a:Entity {uid: $kb + ':' + row.source}), (b:Entity {uid: $kb + ':' + row.target})"
    " MERGE (a)-[r:`{type}`]->(b) ON CREATE SET r.kb = $kb, r.type = $type, r.docs = []"
    " WITH r, row, NOT row.chunk_id IN coalesce(r.chunks, []) AS fresh"
    " SET r.docs = CASE WHEN row.doc_id IN r.docs THEN r.docs ELSE r.docs + row.doc_id END,"
    " r.chunk_docs = CASE WHEN fresh THEN coalesce(r.chunk_docs, []) + row.doc_id"
    " ELSE r.chunk_docs END,"
    " r.sentences = CASE WHEN fresh THEN coalesce(r.sentences, []) + row.sentence"
    " ELSE r.sentences END,"
    " r.extractors = CASE WHEN fresh THEN coalesce(r.extractors, []) + row.by"
    " ELSE r.extractors END,"
    " r.chunks = CASE WHEN fresh THEN coalesce(r.chunks, []) + row.chunk_id ELSE r.chunks END"
)
DELETE_RELATIONS = (
    "MATCH (s:Source {kb: $kb}) WHERE s.doc_id IN $docs"
    " MATCH (:Entity)-[:HAS_SOURCE]->(s) WITH DISTINCT s"
    " MATCH (a:Entity)-[:HAS_SOURCE]->(s) MATCH (a)-[r]->(:Entity) WHERE r.kb = $kb"
    " AND any(d IN r.docs WHERE d IN $docs) WITH DISTINCT r,"
    " [i IN range(0, size(coalesce(r.chunk_docs, [])) - 1) WHERE NOT r.chunk_docs[i] IN $docs]"
    " AS keep"
    " SET r.sentences = [i IN keep | r.sentences[i]], r.extractors = [i IN keep | r.extractors[i]],"
    " r.chunks = [i IN keep | r.chunks[i]], r.chunk_docs = [i IN keep | r.chunk_docs[i]],"
    " r.docs = [d IN r.docs WHERE NOT d IN $docs] WITH r WHERE size(r.docs) = 0 DELETE r"
)
# The aliases only the documents gave (what their HAS_SOURCE relationships carry and no other's).
DELETE_ALIASES = (
    "MATCH (s:Source {kb: $kb}) WHERE s.doc_id IN $docs MATCH (e:Entity)-[h:HAS_SOURCE]->(s)"
    " WITH e, collect(h) AS gone"
    " OPTIONAL MATCH (e)-[k:HAS_SOURCE]->(o:Source) WHERE NOT o.doc_id IN $docs"
    " WITH e, gone, collect(k) AS kept"
    " WITH e, reduce(a = [], h IN gone | a + coalesce(h.aliases, [])) AS lost_names,"
    " reduce(a = [], h IN gone | a + coalesce(h.alias_keys, [])) AS lost_keys,"
    " reduce(a = [], k IN kept | a + coalesce(k.aliases, [])) AS kept_names,"
    " reduce(a = [], k IN kept | a + coalesce(k.alias_keys, [])) AS kept_keys"
    " SET e.aliases = [a IN coalesce(e.aliases, [])"
    " WHERE NOT (a IN lost_names AND NOT a IN kept_names)],"
    " e.alias_keys = [a IN coalesce(e.alias_keys, [])"
    " WHERE NOT (a IN lost_keys AND NOT a IN kept_keys)]"
)
DELETE_ORPHANS = (
    "MATCH (s:Source {kb: $kb}) WHERE s.doc_id IN $docs MATCH (e:Entity)-[:HAS_SOURCE]->(s)"
    " WITH DISTINCT e WHERE NOT EXISTS {"
    " MATCH (e)-[:HAS_SOURCE]->(o:Source) WHERE NOT o.doc_id IN $docs } DETACH DELETE e"
)
DELETE_SOURCES = "MATCH (s:Source {kb: $kb}) WHERE s.doc_id IN $docs DETACH DELETE s"
DROP_BATCH = (
    "MATCH (n:{label} {{kb: $kb}}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n"
)

DOC_IDS = "MATCH (s:Source {kb: $kb}) RETURN DISTINCT s.doc_id AS doc"
MATCH_EXACT = (
    "UNWIND $keys AS q MATCH (e:Entity {uid: $kb + ':' + q})"
    " RETURN q, e.key AS key, e.name AS name, e.type AS type"
)
MATCH_ALIAS = (
    "UNWIND $keys AS q MATCH (e:Entity {kb: $kb}) WHERE q IN e.alias_keys"
    " RETURN q, e.key AS key, e.name AS name, e.type AS type"
)
MATCH_FUZZY = (
    "UNWIND $keys AS q MATCH (e:Entity {kb: $kb})"
    " WHERE size(e.key) >= 2 AND (e.key CONTAINS q OR q CONTAINS e.key)"
    " RETURN q, e.key AS key, e.name AS name, e.type AS type LIMIT $limit"
)
EXPAND = (
    "UNWIND $keys AS k MATCH (a:Entity {uid: $kb + ':' + k})-[r]-(b:Entity)"
    " RETURN startNode(r) = a AS out, r.type AS type,"
    " a.key AS ak, a.name AS an, a.type AS at, b.key AS bk, b.name AS bn, b.type AS bt"
    " LIMIT $limit"
)
PROVENANCE = (
    "UNWIND $rows AS row MATCH (a:Entity {uid: $kb + ':' + row.source})-[r]->"
    "(b:Entity {uid: $kb + ':' + row.target}) WHERE r.type = row.type"
    " RETURN row.source AS source, row.type AS type, row.target AS target, r.docs AS docs,"
    " r.chunks AS chunks, r.chunk_docs AS chunk_docs, r.sentences AS sentences,"
    " r.extractors AS extractors"
)
MENTIONS = (
    "UNWIND $keys AS k MATCH (e:Entity {uid: $kb + ':' + k})-[:HAS_SOURCE]->(s:Source)"
    " RETURN k, s.chunk_id AS chunk_id, s.doc_id AS doc_id LIMIT $limit"
)
ENTITIES = (
    "UNWIND $keys AS k MATCH (e:Entity {uid: $kb + ':' + k})"
    " RETURN e.key AS key, e.name AS name, e.type AS type, e.aliases AS aliases,"
    " COUNT { (e)-[:HAS_SOURCE]->(:Source) } AS sources, COUNT { (e)--(:Entity) } AS degree"
)
TOP = (
    "MATCH (e:Entity {kb: $kb})"
    " WITH e, COUNT { (e)--(:Entity) } AS degree, COUNT { (e)-[:HAS_SOURCE]->(:Source) } AS sources"
    " ORDER BY degree DESC, sources DESC, e.key LIMIT $limit"
    " RETURN e.key AS key, e.name AS name, e.type AS type, sources, degree"
)
COUNT_ENTITIES = "MATCH (e:Entity {kb: $kb}) RETURN count(e) AS n"
COUNT_RELATIONS = "MATCH (:Entity {kb: $kb})-[r]->(:Entity) RETURN count(r) AS n"
