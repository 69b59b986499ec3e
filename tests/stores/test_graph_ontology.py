"""The `ontology` graph backend runs the graph-store conformance suite twice: on the embedded
pyoxigraph store, and over HTTP against a real SPARQL 1.1 server (`oxigraph serve`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.stores.ontology import OntologyGraphStore, graph_iri
from planrag.stores.sparql import EmbeddedSparql, RemoteSparql, render
from planrag.testing.graph_store import CORPUS, GraphStoreConformance, chunk
from tests.graph_servers import SparqlServer


class TestEmbeddedOntologyStore(GraphStoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[OntologyGraphStore]:
        graph = OntologyGraphStore(EmbeddedSparql(tmp_path / "graph"))
        yield graph
        graph.close()

    def test_persists_across_reopening(self, tmp_path: Path) -> None:
        first = OntologyGraphStore(EmbeddedSparql(tmp_path / "g"))
        first.add("kb", CORPUS)
        first.close()
        again = OntologyGraphStore(EmbeddedSparql(tmp_path / "g"))
        assert again.stats("kb").entities == 6
        again.close()


class TestRemoteOntologyStore(GraphStoreConformance):
    @pytest.fixture
    def store(self, sparql_server: SparqlServer) -> Iterator[OntologyGraphStore]:
        self.urls = sparql_server
        graph = OntologyGraphStore(RemoteSparql(sparql_server.query_url, sparql_server.update_url))
        yield graph
        graph.close()

    def test_spec_triples_are_served(self, store: OntologyGraphStore, kb: str) -> None:
        """The spec's RDF shape, read back through the server's own SPARQL endpoint."""
        store.add(kb, CORPUS)
        query = (
            "SELECT ?label WHERE { $values GRAPH ?g {"
            " <http://rag.local/entity/elon_musk> <http://rag.local/relation/is_CEO_of>"
            " <http://rag.local/entity/spacex> ."
            " <http://rag.local/entity/elon_musk> a <http://rag.local/type/PERSON> ;"
            " <http://www.w3.org/2000/01/rdf-schema#label> ?label ;"
            " <http://rag.local/relation/hasSource> <http://rag.local/source/c1> } }"
        )
        rows = RemoteSparql(self.urls.query_url, self.urls.update_url).select(
            render(query, {"g": [graph_iri(kb)]})
        )
        assert rows == [{"label": "Elon Musk"}]

    def test_another_process_write_reaches_fuzzy_match_at_once(
        self, store: OntologyGraphStore, kb: str
    ) -> None:
        """Two stores on one SPARQL server, as two API processes: the reader's key index (kept
        for fuzzy matching) follows the writer's every change, by the graph's version stamp."""
        store.add(kb, CORPUS)
        assert [m.entity.key for m in store.match(kb, ["spacex"]).matches] == ["spacex"]
        assert not store.match(kb, ["falcon"]).matches  # builds and keeps the key index
        other = OntologyGraphStore(RemoteSparql(self.urls.query_url, self.urls.update_url))
        try:
            other.add(kb, [chunk("c9", "doc-c", ["Falcon Heavy"])])
            found = store.match(kb, ["falcon"]).matches
            assert [(m.entity.key, m.exact) for m in found] == [("falcon_heavy", False)]
            other.delete_documents(kb, ["doc-c"])
            assert not store.match(kb, ["falcon"]).matches
        finally:
            other.close()
        assert store.stats(kb).entities == 6  # the stamp is not an entity
