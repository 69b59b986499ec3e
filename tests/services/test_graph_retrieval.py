"""Graph search in /retrieve: the spec's example answered from the graph, a multi-hop question,
graph metadata on every hit, the fallback, the boost, and the refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import Settings
from planrag.executors.graph import merge
from planrag.executors.graph_questions import analyse
from planrag.executors.graph_search import GraphHit
from planrag.llm.embedders import EmbedderRegistry
from tests.conftest import wait_for_documents
from tests.graph_servers import BoltServer

DOCS = {
    "musk.txt": "일론 머스크는 SpaceX의 CEO이다. 그는 2002년에 회사를 세웠다.",
    "rocket.txt": "SpaceX는 Starship 로켓을 개발한다. 발사장은 텍사스 보카치카에 있다.",
    "tesla.txt": "Tesla makes the Model S sedan. The Model S was first delivered in 2012.",
    "founder.txt": "Martin Eberhard founded Tesla in 2003 with Marc Tarpenning.",
    "food.txt": "김치찌개는 돼지고기와 김치로 끓인다. 된장찌개는 된장으로 끓인다.",
    "weather.txt": "The weather in Busan is mild in winter and humid in summer.",
}

# The relation the graph search walks, as graph_metadata shows it: with the sentence it was read
# from, who read it (no LLM: the rules) and its document.
CEO = {
    "source": "일론 머스크",
    "type": "CEO_OF",
    "target": "SpaceX",
    "sentence": "일론 머스크는 SpaceX의 CEO이다.",
    "extracted_by": "rule",
}


def ceo_in(triples: list[dict]) -> bool:
    """CEO's relation among the triples, stated by one document."""
    return any(
        {k: t.get(k) for k in CEO} == CEO and len(t.get("documents", [])) == 1 for t in triples
    )


def graph_kb(client: TestClient, backend: str = "ontology") -> str:
    kb = client.post("/api/knowledge-bases", json={"name": "g", "graph_backend": backend}).json()
    files = [("files", (name, text.encode())) for name, text in DOCS.items()]
    client.post(f"/api/knowledge-bases/{kb['id']}/documents", files=files)
    assert {d["status"] for d in wait_for_documents(client, kb["id"])} == {"completed"}
    return kb["id"]


def retrieve(client: TestClient, kb_id: str, **body: object) -> list[dict]:
    response = client.post(f"/api/knowledge-bases/{kb_id}/retrieve", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_graph_search_end_to_end(client: TestClient) -> None:
    kb_id = graph_kb(client)
    question = "일론 머스크가 CEO인 회사는?"
    hits = retrieve(
        client, kb_id, query=question, strategy="hybrid", top_k=4, enable_graph_search=True
    )
    names = [h["metadata"]["filename"] for h in hits]
    assert names[0] == "musk.txt" and "rocket.txt" in names
    meta = hits[0]["graph_metadata"]
    assert all(h["graph_metadata"] == meta for h in hits)
    assert meta["backend"] == "ontology" and meta["fallback"] is False
    assert meta["extracted_entities"] == ["일론 머스크"]
    assert meta["matched_entities"][0] == {
        "query": "일론_머스크",
        "entity": "일론 머스크",
        "exact": True,
    }
    assert ceo_in(meta["triples"]), meta["triples"]
    assert "SpaceX" in meta["expanded_entities"]
    assert meta["analysis"]["multi_hop"] is True and "ceo" in meta["analysis"]["relation_hints"]
    first = meta["queries"][0]
    assert first["language"] == "sparql" and "일론_머스크" not in first["text"]
    assert first["params"]["q"] == ["일론_머스크"]
    # spec 001's graph_metadata.sparql_query: the SPARQL that ran, in order
    sparql = [q["text"] for q in meta["queries"] if q["language"] == "sparql"]
    assert meta["sparql_query"] == "\n\n".join(sparql) and "SELECT" in meta["sparql_query"]
    rocket = next(h for h in hits if h["metadata"]["filename"] == "rocket.txt")
    assert (
        rocket["metadata"]["graph_score"] > 0 and "SpaceX" in rocket["metadata"]["graph_entities"]
    )

    plain = retrieve(client, kb_id, query=question, strategy="hybrid", top_k=4)
    assert all(h["graph_metadata"] is None for h in plain)
    plain_names = [h["metadata"]["filename"] for h in plain]
    rank = {n: i for i, n in enumerate(plain_names)}
    assert "rocket.txt" not in rank or names.index("rocket.txt") <= rank["rocket.txt"]

    two_hops = retrieve(
        client,
        kb_id,
        query="Who founded the company that makes the Model S?",
        strategy="bm25",
        top_k=3,
        enable_graph_search=True,
        graph_hops=2,
    )
    assert "founder.txt" in [h["metadata"]["filename"] for h in two_hops]


def test_graph_fallback_and_refusals(client: TestClient) -> None:
    kb_id = graph_kb(client)
    hits = retrieve(
        client, kb_id, query="김치찌개 끓이는 법", strategy="bm25", enable_graph_search=True
    )
    assert hits and hits[0]["metadata"]["filename"] == "food.txt"
    assert (
        hits[0]["graph_metadata"]["fallback"] is True
        and hits[0]["graph_metadata"]["fallback_reason"]
    )
    filtered = retrieve(
        client,
        kb_id,
        query="일론 머스크가 CEO인 회사는?",
        strategy="ann",
        enable_graph_search=True,
        filters={"title_contains": "musk"},
    )
    assert {h["metadata"]["filename"] for h in filtered} == {"musk.txt"}
    flat = client.post(
        f"/api/knowledge-bases/{kb_id}/retrieve",
        json={"query": "x", "enable_graph_search": True, "use_brute_force": True},
    )
    assert flat.status_code == 400 and "exclusive" in flat.text
    plain = client.post("/api/knowledge-bases", json={"name": "plain"}).json()
    none = client.post(
        f"/api/knowledge-bases/{plain['id']}/retrieve",
        json={"query": "x", "enable_graph_search": True},
    )
    assert none.status_code == 400 and "no graph" in none.text
    assert (
        client.post(
            f"/api/knowledge-bases/{kb_id}/retrieve",
            json={"query": "x", "enable_graph_search": True, "graph_hops": 6},
        ).status_code
        == 422
    )


def test_merge_keeps_the_top_boosts_below_and_appends_graph_chunks() -> None:
    base = [("a", "d1", 0.9), ("b", "d2", 0.8), ("d", "d4", 0.7), ("c", "d3", 0.5)]
    base += [("e", "d5", 0.3)]
    graph = [
        GraphHit("b", "d2", 1.0, ["X"]),  # in the kept top: stays where it is
        GraphHit("c", "d3", 1.0, ["X"]),  # 0.5 × 1.5 = 0.75: above d
        GraphHit("d", "d4", 1.0, ["X"]),  # 0.7 × 1.5 = 1.05, capped at the last kept (0.8)
        GraphHit("e", "d5", 0.2, ["Y"]),  # 0.3 × 1.1 = 0.33
        GraphHit("x", "d6", 1.0, ["Z"], hops=1),  # graph only: path × cosine 0.95, appended
        GraphHit("y", "d7", 0.5, ["Z"], hops=1),  # graph only: 0.5 × 0.99, not (add=1)
    ]
    cosines = {"x": 0.95, "y": 0.99}
    merged = merge(base, graph, lambda ids: {c: cosines[c] for c in ids}, 1.5, keep=2, add=1)
    # x follows the base's candidates at their lowest score: its cosine (another scale than
    # fusion scores) never places it.
    assert [(c, round(s, 4)) for c, _, s, _ in merged] == [
        ("a", 0.9),
        ("b", 0.8),
        ("d", 0.8),
        ("c", 0.75),
        ("e", 0.33),
        ("x", 0.3),
    ]
    assert [h is not None for _, _, _, h in merged] == [False, True, True, True, True, True]
    assert merge(base[:2], [], lambda ids: {}, 1.5) == [
        ("a", "d1", 0.9, None),
        ("b", "d2", 0.8, None),
    ]
    # Without base candidates, graph chunks score their cosine, boosted.
    alone = merge([], graph[4:], lambda ids: {"x": 0.4, "y": 0.6}, 1.5, add=2)
    assert [(c, round(s, 4)) for c, _, s, _ in alone] == [("y", 0.75), ("x", 0.6)]


def test_merge_places_chunks_about_a_reached_entity_below_the_kept_top() -> None:
    base = [("a", "d1", 0.9), ("b", "d2", 0.8), ("c", "d3", 0.5), ("e", "d5", 0.3)]
    graph = [
        GraphHit("x", "d6", 1.0, ["Z"], hops=1, about=True),  # graph only, titled "Z"
        GraphHit("e", "d5", 0.9, ["Y"], hops=1, about=True),  # the base's last, titled "Y"
        GraphHit("f", "d7", 0.8, ["Y"], hops=1, about=True),  # a third: over the limit
    ]
    cosines = {"x": 0.2, "f": 0.2}
    merged = merge(base, graph, lambda ids: {c: cosines[c] for c in ids}, 1.5, 2, 0, 2)
    assert [(c, s) for c, _, s, _ in merged] == [
        ("a", 0.9),
        ("b", 0.8),
        ("x", 0.8),
        ("e", 0.8),
        ("c", 0.5),
    ]
    assert merge(base, graph, lambda ids: {c: cosines[c] for c in ids}, 1.5, 2, 0, 0)[2][0] == "c"


def test_capped_candidates_keep_the_order_of_their_boosted_scores() -> None:
    base = [("k", "d0", 0.9), ("z", "d1", 0.7), ("a", "d2", 0.6), ("m", "d3", 0.5)]
    graph = [GraphHit("a", "d2", 1.0, ["X"]), GraphHit("z", "d1", 1.0, ["X"])]
    merged = merge(base, graph, lambda ids: {}, 2.0, keep=1, add=0, promote=0)
    # z: 0.7 × 2 = 1.4 and a: 0.6 × 2 = 1.2 are both capped at 0.9; z stays first (not "a" < "z").
    assert [(c, s) for c, _, s, _ in merged] == [("k", 0.9), ("z", 0.9), ("a", 0.9), ("m", 0.5)]


def test_question_analysis() -> None:
    assert analyse("공자의 제자의 스승은?", 2).pattern == "A의 B의 C"
    assert analyse("일론 머스크가 CEO인 회사는?", 2).pattern == "A가 B인 C"
    nested = analyse("Who founded the company that makes the iPhone?", 2)
    assert (
        nested.multi_hop
        and "founded" in nested.relation_hints
        and "iphone" not in nested.relation_hints
    )
    assert not analyse("What is the weather in Busan?", 1).multi_hop


def sse(text: str) -> dict[str, dict]:
    found, name = {}, None
    for line in text.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:") and name:
            found.setdefault(name, json.loads(line[5:]))
    return found


def test_ask_and_background_search_use_the_graph(client: TestClient) -> None:
    graph_kb(client)
    question = "일론 머스크가 CEO인 회사는?"
    response = client.post("/ai/v2/ask", json={"question": question, "knowledge_bases": ["g"]})
    assert response.status_code == 200, response.text
    stream = sse(response.text)
    plan = stream["search_plan"]["plan"]
    assert plan["graph"] == {"enabled": True, "hops": 2}
    graph = stream["search_result"]["graph"]["g"]
    assert ceo_in(graph["triples"]), graph["triples"]
    files = {p["title"] for p in stream["context"]["passages"]}
    assert {"musk.txt", "rocket.txt"} <= files

    background = client.post(
        "/api/v1/retrieve",
        json={"query": question, "resources": ["rag://g"], "background_search": True},
    ).json()["result"]
    names = [e["entity"] for e in background["entities"]]
    assert names[0] == "일론 머스크" and "SpaceX" in names
    assert {"entity1": "일론 머스크", "entity2": "SpaceX"}.items() <= background["relationships"][
        0
    ].items()
    assert background["metadata"]["total_entities"] == len(names)
    assert background["metadata"]["total_relationships"] == len(background["relationships"])
    assert background["metadata"]["note"] is None


@pytest.fixture
def neo4j_client(
    settings: Settings, embedders: EmbedderRegistry, bolt_server: BoltServer
) -> Iterator[TestClient]:
    """The app with the `neo4j` backend on the session's real Bolt server (ArcadeDB)."""
    settings.neo4j.uri, settings.neo4j.user = bolt_server.uri, bolt_server.user
    settings.neo4j.password, settings.neo4j.database = bolt_server.password, bolt_server.database
    with TestClient(create_app(settings, embedders)) as test_client:
        yield test_client


def test_retrieve_and_ask_on_a_neo4j_graph(neo4j_client: TestClient) -> None:
    """`/retrieve` with graph search and `/ai/v2/ask` on a relational question, the graph in a
    real Bolt server: graph-found passages, Cypher in `graph_metadata` with its parameters apart."""
    kb_id = graph_kb(neo4j_client, "neo4j")
    question = "일론 머스크가 CEO인 회사는?"
    hits = retrieve(
        neo4j_client, kb_id, query=question, strategy="hybrid", top_k=4, enable_graph_search=True
    )
    meta = hits[0]["graph_metadata"]
    assert all(h["graph_metadata"] == meta for h in hits)
    assert meta["backend"] == "neo4j" and meta["fallback"] is False
    assert ceo_in(meta["triples"]), meta["triples"]
    first = meta["queries"][0]
    assert first["language"] == "cypher" and "일론_머스크" not in first["text"]
    assert meta["sparql_query"] is None  # a Cypher backend ran no SPARQL
    assert "일론_머스크" in json.dumps(first["params"], ensure_ascii=False)
    rocket = next(h for h in hits if h["metadata"]["filename"] == "rocket.txt")
    assert "SpaceX" in rocket["metadata"]["graph_entities"] and rocket["metadata"]["graph_score"]

    response = neo4j_client.post(
        "/ai/v2/ask", json={"question": question, "knowledge_bases": ["g"]}
    )
    assert response.status_code == 200, response.text
    stream = sse(response.text)
    assert stream["search_plan"]["plan"]["graph"] == {"enabled": True, "hops": 2}
    graph = stream["search_result"]["graph"]["g"]
    assert graph["backend"] == "neo4j"
    assert ceo_in(graph["triples"]), graph["triples"]
    assert {"musk.txt", "rocket.txt"} <= {p["title"] for p in stream["context"]["passages"]}
