"""The `neo4j` graph backend runs the graph-store conformance suite against a real Bolt server
(ArcadeDB's Bolt plugin, Neo4j 5 compatible; one server per test session)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from planrag.core.errors import StoreUnavailable
from planrag.stores.neo4j import Neo4jGraphStore
from planrag.testing.graph_store import CORPUS, GraphStoreConformance, chunk
from tests.graph_servers import BoltServer, free_port


class TestNeo4jGraphStore(GraphStoreConformance):
    @pytest.fixture
    def store(self, bolt_server: BoltServer) -> Iterator[Neo4jGraphStore]:
        graph = Neo4jGraphStore(
            bolt_server.uri, bolt_server.user, bolt_server.password, bolt_server.database
        )
        yield graph
        graph.close()

    def test_concurrent_writes_of_one_entity_make_one_node(
        self, store: Neo4jGraphStore, kb: str
    ) -> None:
        batches = [[chunk(f"c{i}", f"doc-{i}", ["SpaceX", f"Thing {i}"])] for i in range(8)]
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda b: store.add(kb, b), batches))
        [spacex] = store.entities(kb, ["spacex"])
        assert spacex.sources == 8
        assert store.stats(kb).entities == 9

    def test_relation_types_are_cypher_relationship_types(
        self, store: Neo4jGraphStore, kb: str
    ) -> None:
        store.add(kb, CORPUS)
        rows = store._read(
            "MATCH (a:Entity {kb: $kb})-[r]->(b:Entity) RETURN type(r) AS t, r.docs AS docs", kb=kb
        )
        assert sorted(r["t"] for r in rows) == ["builds", "is_CEO_of", "is_CEO_of", "스승"]


def test_unreachable_server_is_a_store_error() -> None:
    store = Neo4jGraphStore(f"bolt://127.0.0.1:{free_port()}", "u", "p", retry_s=0.5)
    with pytest.raises(StoreUnavailable):
        store.stats("kb")
    store.close()


def test_relationships_and_aliases_written_before_provenance_still_work(
    bolt_server: BoltServer,
) -> None:
    """A graph written before relationships kept their sentences (only `docs`) and before
    HAS_SOURCE kept aliases: provenance reports the documents, and deleting one keeps the
    aliases nobody can trace."""
    store = Neo4jGraphStore(
        bolt_server.uri, bolt_server.user, bolt_server.password, bolt_server.database
    )
    kb = "kb-legacy-provenance"
    store.drop_graph(kb)
    try:
        store._write(
            [
                (
                    "CREATE (a:Entity {uid: $kb + ':elon_musk', kb: $kb, key: 'elon_musk',"
                    " name: 'Elon Musk', type: 'PERSON', aliases: ['일론 머스크'],"
                    " alias_keys: ['일론_머스크']})"
                    " CREATE (b:Entity {uid: $kb + ':spacex', kb: $kb, key: 'spacex',"
                    " name: 'SpaceX', type: 'ORG', aliases: [], alias_keys: []})"
                    " CREATE (s:Source {uid: $kb + ':c1', kb: $kb, chunk_id: 'c1', doc_id: 'd1'})"
                    " CREATE (t:Source {uid: $kb + ':c2', kb: $kb, chunk_id: 'c2', doc_id: 'd2'})"
                    " CREATE (a)-[:HAS_SOURCE]->(s) CREATE (b)-[:HAS_SOURCE]->(s)"
                    " CREATE (a)-[:HAS_SOURCE]->(t) CREATE (b)-[:HAS_SOURCE]->(t)"
                    " CREATE (a)-[:CEO_OF {kb: $kb, type: 'CEO_OF', docs: ['d1', 'd2']}]->(b)",
                    {"kb": kb},
                )
            ]
        )
        [old] = store.provenance(kb, [("elon_musk", "CEO_OF", "spacex")])
        assert [(s.chunk_id, s.doc_id, s.sentence) for s in old.sources] == [
            ("", "d1", ""),
            ("", "d2", ""),
        ]
        store.delete_documents(kb, ["d1"])
        [left] = store.provenance(kb, [("elon_musk", "CEO_OF", "spacex")])
        assert [s.doc_id for s in left.sources] == ["d2"]
        [musk] = store.entities(kb, ["elon_musk"])
        assert musk.entity.aliases == ["일론 머스크"]
        [found] = store.match(kb, ["일론_머스크"], fuzzy=False).matches
        assert found.entity.key == "elon_musk"
    finally:
        store.drop_graph(kb)
        store.close()
