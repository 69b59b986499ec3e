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
