"""A graph seen through some documents only (per-user knowledge bases): entities no allowed
chunk mentions, relations no allowed chunk joins, and other documents' mentions never show —
over the embedded ontology store, with graph search on top."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planrag.executors.graph_search import GraphSearch
from planrag.stores.ontology import OntologyGraphStore
from planrag.stores.restricted_graph import RestrictedGraph, restricted
from planrag.stores.sparql import EmbeddedSparql
from planrag.testing.graph_store import CORPUS, key


@pytest.fixture
def store(tmp_path: Path) -> Iterator[OntologyGraphStore]:
    graph = OntologyGraphStore(EmbeddedSparql(tmp_path / "graph"))
    graph.add("kb", CORPUS)  # doc-a: Musk, SpaceX, Tesla; doc-b: SpaceX → Starship, 공자 → 안회
    yield graph
    graph.close()


def test_only_the_allowed_documents_entities_relations_and_mentions(store) -> None:  # type: ignore[no-untyped-def]
    view = RestrictedGraph(store, frozenset({"doc-b"}))
    assert view.match("kb", [key("Elon Musk")]).matches == []
    assert [m.entity.name for m in view.match("kb", [key("SpaceX")]).matches] == ["SpaceX"]
    edges = {
        (e.source.name, e.type, e.target.name) for e in view.expand("kb", [key("SpaceX")]).edges
    }
    assert edges == {("SpaceX", "builds", "Starship")}  # not Musk is_CEO_of SpaceX (doc-a's)
    mentions = view.mentions("kb", [key("SpaceX"), key("Elon Musk")]).mentions
    assert {m.doc_id for m in mentions} == {"doc-b"}
    assert view.doc_ids("kb") == {"doc-b"}
    assert restricted(store, None) is store


def test_graph_search_through_the_view_names_nothing_else(store) -> None:  # type: ignore[no-untyped-def]
    everything = GraphSearch(store, "ontology").search("kb", "What does SpaceX do?", 2, 10)
    assert "Elon Musk" in {e.name for e in everything.entities}
    view = restricted(store, frozenset({"doc-b"}))
    result = GraphSearch(view, "ontology").search("kb", "What does SpaceX do?", 2, 10)
    shown = str(result.metadata.model_dump()) + str([e.name for e in result.entities])
    assert "Starship" in shown and "Elon Musk" not in shown and "Tesla" not in shown
    assert {h.chunk_id for h in result.hits} <= {"c3", "c4"}
    nothing = restricted(store, frozenset())
    assert GraphSearch(nothing, "ontology").search("kb", "What does SpaceX do?", 2, 10).hits == []


def test_the_console_reads_count_only_the_allowed_documents(store) -> None:  # type: ignore[no-untyped-def]
    view = RestrictedGraph(store, frozenset({"doc-b"}))
    infos = {i.entity.name: i for i in view.entities("kb", [key("SpaceX"), key("Elon Musk")])}
    assert set(infos) == {"SpaceX"}  # Musk is only in doc-a
    whole = {i.entity.name: i for i in store.entities("kb", [key("SpaceX")])}["SpaceX"]
    assert infos["SpaceX"].degree == 1 < whole.degree  # builds Starship; not is_CEO_of
    assert infos["SpaceX"].sources <= whole.sources
    top = [i.entity.name for i in view.top_entities("kb", limit=10)]
    assert "SpaceX" in top and "Elon Musk" not in top and "Tesla" not in top
    assert top == [i.entity.name for i in view.top_entities("kb", limit=len(top))]
