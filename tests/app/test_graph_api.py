"""The graph view API (the console's contract): neighbourhood, most connected entities, an
entity's sources, and graph counts in the KB listing."""

from __future__ import annotations

from urllib.parse import quote

from fastapi.testclient import TestClient

from tests.conftest import wait_for_documents

MUSK = (
    "일론 머스크는 SpaceX의 CEO이다. SpaceX는 Starship을 만든다."
    " Starship은 Boca Chica에서 발사된다."
)
OTHER = "Elon Musk, CEO of Tesla, met Tim Cook. 일론 머스크는 테슬라의 창업자다."


def graph_kb(client: TestClient) -> str:
    kb = client.post("/api/knowledge-bases", json={"name": "g", "graph_backend": "ontology"})
    assert kb.status_code == 201, kb.text
    kb_id = kb.json()["id"]
    files = [("files", ("musk.txt", MUSK.encode())), ("files", ("other.txt", OTHER.encode()))]
    assert client.post(f"/api/knowledge-bases/{kb_id}/documents", files=files).status_code == 202
    assert {d["status"] for d in wait_for_documents(client, kb_id)} == {"completed"}
    return kb_id


def test_graph_view_contract(client: TestClient) -> None:
    kb_id = graph_kb(client)
    listed = {kb["id"]: kb for kb in client.get("/api/knowledge-bases").json()}
    graph = listed[kb_id]["graph"]
    assert graph["backend"] == "ontology" and graph["entities"] >= 6 and graph["relations"] >= 3

    one = client.get(
        f"/api/knowledge-bases/{kb_id}/graph", params={"entity": "일론 머스크가", "hops": 1}
    )
    assert one.status_code == 200, one.text
    body = one.json()
    assert set(body) == {"kb_id", "center", "nodes", "edges", "truncated"}
    names = {n["id"]: n["name"] for n in body["nodes"]}
    assert names[body["center"]] == "일론 머스크"
    assert {"SpaceX", "테슬라"} <= set(names.values()) and "Boca Chica" not in names.values()
    assert all(set(n) == {"id", "name", "type", "aliases", "sources"} for n in body["nodes"])
    by_id = {n["id"]: n for n in body["nodes"]}
    assert by_id[body["center"]]["sources"] == 2
    edge = {(names[e["source"]], e["type"], names[e["target"]]): e for e in body["edges"]}
    ceo = edge[("일론 머스크", "CEO_OF", "SpaceX")]
    # where the relation was read: its sentence, who found it (no LLM: the rules), its document
    assert (ceo["sentence"], ceo["extracted_by"]) == ("일론 머스크는 SpaceX의 CEO이다.", "rule")
    docs = client.get(f"/api/knowledge-bases/{kb_id}/documents").json()
    musk_doc = next(d["id"] for d in docs if d["filename"] == "musk.txt")
    assert ceo["documents"] == [musk_doc]

    two = client.get(
        f"/api/knowledge-bases/{kb_id}/graph", params={"entity": "일론 머스크", "hops": 2}
    ).json()
    assert "Starship" in {n["name"] for n in two["nodes"]}
    capped = client.get(
        f"/api/knowledge-bases/{kb_id}/graph",
        params={"entity": "일론 머스크", "hops": 3, "limit": 2},
    ).json()
    assert len(capped["nodes"]) == 2 and capped["truncated"] is True

    top = client.get(f"/api/knowledge-bases/{kb_id}/graph", params={"limit": 3}).json()
    assert top["center"] is None and len(top["nodes"]) == 3
    assert top["nodes"][0]["name"] == "일론 머스크"  # degree 2, then the most sources

    sources = client.get(
        f"/api/knowledge-bases/{kb_id}/graph/entities/{quote(body['center'], safe='')}/sources"
    )
    assert sources.status_code == 200, sources.text
    data = sources.json()
    assert data["entity"] == {
        "id": body["center"],
        "name": "일론 머스크",
        "type": "PERSON",
        "aliases": [],
    }
    assert {s["document_name"] for s in data["sources"]} == {"musk.txt", "other.txt"}
    assert all(
        "일론 머스크" in s["text"] and s["chunk_id"] and s["document_id"] for s in data["sources"]
    )


def test_graph_view_edges(client: TestClient) -> None:
    kb_id = graph_kb(client)
    unknown = client.get(f"/api/knowledge-bases/{kb_id}/graph", params={"entity": "nobody here"})
    assert unknown.json() == {
        "kb_id": kb_id,
        "center": None,
        "nodes": [],
        "edges": [],
        "truncated": False,
    }
    missing = client.get(f"/api/knowledge-bases/{kb_id}/graph/entities/nobody/sources")
    assert missing.status_code == 404
    assert client.get(f"/api/knowledge-bases/{kb_id}/graph", params={"hops": 4}).status_code == 422
    plain = client.post("/api/knowledge-bases", json={"name": "plain"}).json()
    assert plain["graph"] == {"backend": "none", "entities": 0, "relations": 0, "error": None}
    assert client.get(f"/api/knowledge-bases/{plain['id']}/graph").status_code == 400
    assert (
        client.post(
            "/api/knowledge-bases", json={"name": "n", "graph_backend": "neo4j"}
        ).status_code
        == 400
    )


def test_an_entity_lists_the_other_names_the_documents_give_it(client: TestClient) -> None:
    """One entity per thing across the KB, its alias list in the API: "Hanbit Robotics" in one
    document's brackets and alone in another is the one entity 한빛로보틱스."""
    kb = client.post("/api/knowledge-bases", json={"name": "a", "graph_backend": "ontology"})
    kb_id = kb.json()["id"]
    docs = {
        "ko.txt": "한빛로보틱스(Hanbit Robotics)는 물류 로봇을 만드는 회사이다.",
        "en.txt": "Park Ji-eun is the CEO of Hanbit Robotics.",
    }
    for name, text in docs.items():  # one after the other: the second finds the first
        files = [("files", (name, text.encode()))]
        client.post(f"/api/knowledge-bases/{kb_id}/documents", files=files)
        wait_for_documents(client, kb_id)
    body = client.get(
        f"/api/knowledge-bases/{kb_id}/graph", params={"entity": "Hanbit Robotics", "hops": 1}
    ).json()
    center = next(n for n in body["nodes"] if n["id"] == body["center"])
    assert (center["name"], center["type"]) == ("한빛로보틱스", "ORGANIZATION")
    assert center["aliases"] == ["Hanbit Robotics"] and center["sources"] == 2
    sources = client.get(
        f"/api/knowledge-bases/{kb_id}/graph/entities/{quote(center['id'], safe='')}/sources"
    ).json()
    assert sources["entity"]["aliases"] == ["Hanbit Robotics"]
    assert {s["document_name"] for s in sources["sources"]} == set(docs)
