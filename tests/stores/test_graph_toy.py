"""A new graph backend is one module (`toy_graph.py`) plus this subclass of the shipped suite,
and one registration line makes it a `graph_backend` knowledge bases can use end to end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from planrag.stores.graphs import register_graph_backend, unregister_graph_backend
from planrag.testing.graph_store import GraphStoreConformance
from tests.services.test_graph_retrieval import graph_kb, retrieve
from tests.stores.toy_graph import ToyGraphStore


class TestToyGraphStore(GraphStoreConformance):
    @pytest.fixture
    def store(self) -> ToyGraphStore:
        return ToyGraphStore()


@pytest.fixture
def toy_backend() -> Iterator[str]:
    register_graph_backend("toy", lambda settings: ToyGraphStore())  # the one line
    yield "toy"
    unregister_graph_backend("toy")


def test_a_registered_backend_serves_graph_kbs(toy_backend: str, client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert "toy" in schemas["KnowledgeBaseCreate"]["properties"]["graph_backend"]["enum"]
    kb_id = graph_kb(client, toy_backend)
    graph = client.get(f"/api/knowledge-bases/{kb_id}").json()["graph"]
    assert graph["backend"] == "toy" and graph["entities"] > 0 and graph["relations"] > 0
    hits = retrieve(
        client,
        kb_id,
        query="일론 머스크가 CEO인 회사는?",
        strategy="hybrid",
        top_k=4,
        enable_graph_search=True,
    )
    meta = hits[0]["graph_metadata"]
    assert meta["backend"] == "toy" and meta["fallback"] is False
    assert "SpaceX" in meta["expanded_entities"]
    names = [h["metadata"]["filename"] for h in hits]
    assert names[0] == "musk.txt" and "rocket.txt" in names
    bogus = client.post("/api/knowledge-bases", json={"name": "b", "graph_backend": "bogus"})
    assert bogus.status_code in (400, 422) and "graph_backend" in bogus.text
