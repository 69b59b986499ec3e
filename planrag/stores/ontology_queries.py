"""The SPARQL 1.1 templates of the `ontology` graph backend (see `ontology.py` for the shape of
the graph). Each is fixed text: `$graph` becomes the KB's named graph and `$values` VALUES clauses
of RDF terms (`planrag.stores.sparql.render`); no value is ever spliced in."""

from __future__ import annotations

BASE = "http://rag.local/"
ENTITY, RELATION, SOURCE, TYPE = (BASE + p for p in ("entity/", "relation/", "source/", "type/"))
SCHEMA, GRAPH, STATEMENT = BASE + "schema/", BASE + "graph/", BASE + "statement/"
ALIASING = BASE + "aliasing/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"

PREFIXES = (
    f"PREFIX rdf: <{RDF}> PREFIX rdfs: <{RDFS}> PREFIX rel: <{RELATION}> PREFIX sch: <{SCHEMA}> "
)
EXISTING = PREFIXES + "SELECT ?key WHERE { GRAPH $graph { $values ?e sch:normalized ?key } }"

DELETE_DOCUMENT = PREFIXES + " ; ".join(
    [
        # relations only this document supports
        "DELETE { GRAPH $graph { ?s ?p ?o } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc ."
        " ?st rel:hasSource ?src ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ."
        " FILTER NOT EXISTS { ?st2 rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ;"
        " rel:hasSource ?src2 . ?src2 sch:documentId ?doc2 . FILTER(?doc2 != ?doc) } } }",
        # the document's relation statements
        "DELETE { GRAPH $graph { ?st ?x ?y } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc ."
        " ?st rel:hasSource ?src ; rdf:subject ?s . ?st ?x ?y } }",
        # aliases and alias keys only this document gave its entities, then its alias records
        "DELETE { GRAPH $graph { ?e sch:alias ?a } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?n sch:aliasSource ?src ; sch:aliasOf ?e ; sch:alias ?a ."
        " FILTER NOT EXISTS { ?n2 sch:aliasOf ?e ; sch:alias ?a ; sch:aliasSource ?src2 ."
        " ?src2 sch:documentId ?doc2 . FILTER(?doc2 != ?doc) } } }",
        "DELETE { GRAPH $graph { ?e sch:aliasKey ?a } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?n sch:aliasSource ?src ; sch:aliasOf ?e ; sch:aliasKey ?a ."
        " FILTER NOT EXISTS { ?n2 sch:aliasOf ?e ; sch:aliasKey ?a ; sch:aliasSource ?src2 ."
        " ?src2 sch:documentId ?doc2 . FILTER(?doc2 != ?doc) } } }",
        "DELETE { GRAPH $graph { ?n ?x ?y } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?n sch:aliasSource ?src . ?n ?x ?y } }",
        # entities only this document mentions, with every triple about or pointing to them
        "DELETE { GRAPH $graph { ?e ?p ?o . ?x ?q ?e } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?e rel:hasSource ?src ; sch:normalized ?k ."
        " FILTER NOT EXISTS { ?e rel:hasSource ?src2 . ?src2 sch:documentId ?doc2 ."
        " FILTER(?doc2 != ?doc) } { ?e ?p ?o } UNION { ?x ?q ?e } } }",
        # the remaining mentions of the document's chunks, and its source nodes
        "DELETE { GRAPH $graph { ?e rel:hasSource ?src } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?e rel:hasSource ?src } }",
        "DELETE { GRAPH $graph { ?src ?x ?y } } WHERE { GRAPH $graph { $values"
        " ?src sch:documentId ?doc . ?src ?x ?y } }",
    ]
)

DROP = "DELETE { GRAPH $graph { ?s ?p ?o } } WHERE { GRAPH $graph { $values ?s ?p ?o } }"

DOC_IDS = (
    PREFIXES + "SELECT DISTINCT ?doc WHERE { GRAPH $graph { $values ?src sch:documentId ?doc } }"
)

MATCH_EXACT = PREFIXES + (
    "SELECT ?q ?key ?name ?t WHERE { GRAPH $graph { $values ?e sch:normalized ?q ."
    " BIND(?q AS ?key) ?e rdfs:label ?name ; rdf:type ?t } }"
)
# Another name of an entity (`sch:alias`, as written; `sch:aliasKey`, normalised) finds it too.
MATCH_ALIAS = PREFIXES + (
    "SELECT ?q ?key ?name ?t WHERE { GRAPH $graph { $values ?e sch:aliasKey ?q ;"
    " sch:normalized ?key ; rdfs:label ?name ; rdf:type ?t } }"
)
ALIASES = PREFIXES + (
    "SELECT ?k ?alias WHERE { GRAPH $graph { $values ?e sch:normalized ?k ; sch:alias ?alias } }"
)
ALL_KEYS = PREFIXES + "SELECT ?key WHERE { GRAPH $graph { ?e sch:normalized ?key } }"
# Every write stamps the graph with a new version, so a process holding the KB's key index (for
# fuzzy matching) rebuilds it exactly when some process — this one or another writing the same
# SPARQL server — changed the graph, and never otherwise.
VERSION = PREFIXES + "SELECT ?v WHERE { GRAPH $graph { $graph sch:version ?v } }"
BUMP_VERSION = PREFIXES + (
    "DELETE { GRAPH $graph { $graph sch:version ?old } }"
    " INSERT { GRAPH $graph { $graph sch:version ?new } }"
    " WHERE { $values OPTIONAL { GRAPH $graph { $graph sch:version ?old } } }"
)

# One direction per query: a UNION of both makes oxigraph scan the graph (100× slower).
EXPAND_OUT = PREFIXES + (
    "SELECT ?sk ?sn ?st ?p ?ok ?on ?ot WHERE { GRAPH $graph { $values ?s ?p ?o ."
    " ?o sch:normalized ?ok ; rdfs:label ?on ; rdf:type ?ot ."
    " ?s sch:normalized ?sk ; rdfs:label ?sn ; rdf:type ?st } } LIMIT $limit"
)
EXPAND_IN = PREFIXES + (
    "SELECT ?sk ?sn ?st ?p ?ok ?on ?ot WHERE { GRAPH $graph { $values ?s ?p ?o ."
    " ?s sch:normalized ?sk ; rdfs:label ?sn ; rdf:type ?st ."
    " ?o sch:normalized ?ok ; rdfs:label ?on ; rdf:type ?ot } } LIMIT $limit"
)

# Where relations were read: their statements' chunks, sentences and extractors.
PROVENANCE = PREFIXES + (
    "SELECT ?s ?p ?o ?chunk ?doc ?sentence ?by WHERE { GRAPH $graph { $values"
    " ?st rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ; rel:hasSource ?src ."
    " ?src sch:chunkId ?chunk ; sch:documentId ?doc ."
    " OPTIONAL { ?st sch:sentence ?sentence } OPTIONAL { ?st sch:extractedBy ?by } } }"
)

MENTIONS = PREFIXES + (
    "SELECT ?k ?chunk ?doc WHERE { GRAPH $graph { $values ?e rel:hasSource ?src ;"
    " sch:normalized ?k . ?src sch:chunkId ?chunk ; sch:documentId ?doc } } LIMIT $limit"
)

ENTITIES = PREFIXES + (
    "SELECT ?k ?name ?t WHERE { GRAPH $graph { $values ?e sch:normalized ?k ; rdfs:label ?name ;"
    " rdf:type ?t } }"
)
SOURCE_COUNTS = PREFIXES + (
    "SELECT ?k (COUNT(?src) AS ?n) WHERE { GRAPH $graph { $values ?e sch:normalized ?k ;"
    " rel:hasSource ?src } } GROUP BY ?k"
)
DEGREES = PREFIXES + (
    "SELECT ?k (COUNT(*) AS ?n) WHERE { GRAPH $graph { $values ?e sch:normalized ?k ."
    " { ?e ?p ?o } UNION { ?o ?p ?e } ?o sch:normalized ?x } } GROUP BY ?k"
)
TOP = PREFIXES + (
    "SELECT ?k (COUNT(?x) AS ?n) WHERE { GRAPH $graph { $values ?e sch:normalized ?k ."
    " OPTIONAL { { ?e ?p ?o } UNION { ?o ?p ?e } ?o sch:normalized ?x } } }"
    " GROUP BY ?k ORDER BY DESC(?n) ?k LIMIT $limit"
)
COUNT_ENTITIES = PREFIXES + (
    "SELECT (COUNT(?e) AS ?n) WHERE { GRAPH $graph { $values ?e sch:normalized ?k } }"
)
COUNT_RELATIONS = PREFIXES + (
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH $graph { $values ?s ?p ?o . ?s sch:normalized ?a ."
    " ?o sch:normalized ?b } }"
)
