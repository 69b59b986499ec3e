"""Knowledge-base and document API against a real app (Milvus Lite, SQLite, Kiwi, MiniLM)."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from tests.conftest import wait_for_documents
from tests.ingest.pdfs import make_pdf

KOREAN_PAGES = [
    "서울시는 2024년부터 공공자전거 따릉이의 이용 요금을 인상한다고 밝혔다.\n"
    "일반 이용권은 한 시간에 천 원이다.",
    "국립중앙박물관은 매주 월요일 휴관하며, 관람료는 무료이다.\n"
    "특별전시는 별도의 입장권이 필요하다.",
]
ENGLISH_MD = (
    "# Expense policy\n\nEmployees must submit receipts within 30 days of purchase.\n\n"
    "# Travel\n\nEconomy class is required for flights under six hours. "
    "Hotel stays are capped at 200 dollars per night.\n"
)


def create_kb(client: TestClient, name: str = "docs", **settings: object) -> dict:
    response = client.post("/api/knowledge-bases", json={"name": name, **settings})
    assert response.status_code == 201, response.text
    return response.json()


def upload(client: TestClient, kb_id: str, *files: tuple[str, bytes], **form: str):
    return client.post(
        f"/api/knowledge-bases/{kb_id}/documents",
        files=[("files", (name, data)) for name, data in files],
        data=form,
    )


def test_create_list_get_update_knowledge_base(client: TestClient) -> None:
    kb = create_kb(client, "team", description="팀 문서", top_k=7, metric="L2")
    assert kb["embedding_dim"] == 384
    assert kb["metric"] == "L2" and kb["top_k"] == 7 and kb["graph_backend"] == "none"

    listed = client.get("/api/knowledge-bases").json()
    assert [k["name"] for k in listed] == ["team"]
    assert listed[0]["stats"] == {
        "document_count": 0,
        "chunk_count": 0,
        "size_bytes": 0,
        "last_updated": None,
    }

    patched = client.patch(
        f"/api/knowledge-bases/{kb['id']}",
        json={"name": "team-2", "score_threshold": 0.3, "chunking": {"strategy": "context_aware"}},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["name"] == "team-2"
    assert patched.json()["chunking"]["strategy"] == "context_aware"
    assert client.get(f"/api/knowledge-bases/{kb['id']}").json()["score_threshold"] == 0.3


def test_korean_pdf_and_english_markdown_are_found_first(client: TestClient) -> None:
    kb = create_kb(client, chunking={"strategy": "size", "chunk_size": 100, "chunk_overlap": 10})
    response = upload(
        client,
        kb["id"],
        ("seoul.pdf", make_pdf(KOREAN_PAGES)),
        ("policy.md", ENGLISH_MD.encode()),
        author="홍길동",
        date="20240315",
        tags="정책,guide",
    )
    assert response.status_code == 202, response.text
    created = response.json()
    assert [d["status"] for d in created] == ["pending", "pending"]
    assert created[0]["metadata"] == {
        "title": None,
        "author": "홍길동",
        "domain": None,
        "date": "2024-03-15",
        "info": None,
        "tags": ["정책", "guide"],
        "user_id": None,
    }

    docs = wait_for_documents(client, kb["id"])
    assert {d["filename"]: d["status"] for d in docs} == {
        "seoul.pdf": "completed",
        "policy.md": "completed",
    }
    assert all(d["chunk_count"] >= 1 for d in docs)

    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "How many days do I have to submit receipts?", "top_k": 3},
    ).json()
    assert hits[0]["metadata"]["filename"] == "policy.md"
    assert "30 days" in hits[0]["content"]
    assert all(0.0 <= h["score"] <= 1.0 for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)

    pdf = next(d for d in docs if d["filename"] == "seoul.pdf")
    chunks = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{pdf['id']}/chunks").json()
    assert {c["page"] for c in chunks} == {1, 2}
    assert any("따릉이" in c["text"] for c in chunks)

    stats = client.get(f"/api/knowledge-bases/{kb['id']}").json()["stats"]
    assert stats["document_count"] == 2
    assert stats["chunk_count"] == sum(d["chunk_count"] for d in docs)
    assert stats["last_updated"] is not None


def test_korean_query_finds_korean_pdf_page(client: TestClient) -> None:
    # MiniLM is weak on Korean; an exact phrase from the page still ranks it first.
    kb = create_kb(
        client, chunking={"strategy": "context_aware", "chunk_size": 60, "chunk_overlap": 0}
    )
    upload(client, kb["id"], ("seoul.pdf", make_pdf(KOREAN_PAGES)))
    wait_for_documents(client, kb["id"])
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "국립중앙박물관은 매주 월요일 휴관", "top_k": 1},
    ).json()
    assert hits[0]["metadata"]["page"] == 2
    assert "국립중앙박물관" in hits[0]["content"]


def test_reupload_is_idempotent(client: TestClient) -> None:
    kb = create_kb(client)
    first = upload(client, kb["id"], ("policy.md", ENGLISH_MD.encode())).json()[0]
    wait_for_documents(client, kb["id"])
    again = upload(client, kb["id"], ("renamed.md", ENGLISH_MD.encode())).json()[0]
    assert again["id"] == first["id"]
    assert again["duplicate"] is True
    assert again["status"] == "completed"
    docs = client.get(f"/api/knowledge-bases/{kb['id']}/documents").json()
    assert len(docs) == 1
    chunks = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{first['id']}/chunks").json()
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "receipts", "top_k": 50}
    ).json()
    assert len(hits) == len(chunks)  # no duplicate vectors
    assert len({h["chunk_id"] for h in hits}) == len(hits)


def test_corrupt_pdf_marks_only_that_document_error(client: TestClient) -> None:
    kb = create_kb(client)
    response = upload(
        client,
        kb["id"],
        ("broken.pdf", b"%PDF-1.4\n this is not really a pdf \x00\x01"),
        ("policy.md", ENGLISH_MD.encode()),
    )
    assert response.status_code == 202
    docs = {d["filename"]: d for d in wait_for_documents(client, kb["id"])}
    assert docs["broken.pdf"]["status"] == "error"
    assert docs["broken.pdf"]["error"]
    assert docs["broken.pdf"]["chunk_count"] == 0
    assert docs["policy.md"]["status"] == "completed"
    broken_chunks = client.get(
        f"/api/knowledge-bases/{kb['id']}/documents/{docs['broken.pdf']['id']}/chunks"
    ).json()
    assert broken_chunks == []
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "receipts", "top_k": 50}
    ).json()
    assert {h["doc_id"] for h in hits} == {docs["policy.md"]["id"]}


def test_parent_child_returns_parent_as_context(client: TestClient) -> None:
    kb = create_kb(
        client,
        chunking={"strategy": "parent_child", "parent_size": 400, "child_size": 100},
    )
    text = " ".join(f"Paragraph {i} talks about topic number {i} in detail." for i in range(40))
    text += " The secret launch code of the rocket is kept in the blue safe."
    upload(client, kb["id"], ("long.txt", text.encode()))
    docs = wait_for_documents(client, kb["id"])
    assert docs[0]["status"] == "completed"
    chunks = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{docs[0]['id']}/chunks").json()
    parents = {c["id"]: c for c in chunks if c["kind"] == "parent"}
    children = [c for c in chunks if c["kind"] == "child"]
    assert parents and children
    assert all(c["parent_id"] in parents for c in children)
    assert docs[0]["chunk_count"] == len(children)

    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "where is the rocket launch code kept?", "top_k": 3},
    ).json()
    top = hits[0]
    assert top["chunk_id"] in parents
    assert "blue safe" in top["content"]
    assert "blue safe" in top["metadata"]["matched_text"]
    assert len(top["content"]) > len(top["metadata"]["matched_text"])
    assert len({h["chunk_id"] for h in hits}) == len(hits)


def test_score_threshold_and_metric_give_cosine(client: TestClient) -> None:
    results = {}
    for metric in ("COSINE", "L2", "IP"):
        kb = create_kb(client, f"kb-{metric}", metric=metric)
        upload(client, kb["id"], ("policy.md", ENGLISH_MD.encode()))
        wait_for_documents(client, kb["id"])
        hits = client.post(
            f"/api/knowledge-bases/{kb['id']}/retrieve",
            json={"query": "hotel price limit", "top_k": 5},
        ).json()
        results[metric] = [round(h["score"], 4) for h in hits]
        strict = client.post(
            f"/api/knowledge-bases/{kb['id']}/retrieve",
            json={"query": "hotel price limit", "top_k": 5, "score_threshold": 0.99},
        ).json()
        assert strict == []
    assert results["COSINE"] == results["L2"] == results["IP"]


def test_delete_document_and_cascade_delete_kb(client: TestClient, settings) -> None:
    kb = create_kb(client)
    docs = upload(
        client, kb["id"], ("policy.md", ENGLISH_MD.encode()), ("other.txt", b"Some other text.")
    ).json()
    wait_for_documents(client, kb["id"])
    files_dir = settings.files_dir / kb["id"]
    assert len(list(files_dir.iterdir())) == 2

    assert (
        client.delete(f"/api/knowledge-bases/{kb['id']}/documents/{docs[0]['id']}").status_code
        == 204
    )
    assert (
        client.get(f"/api/knowledge-bases/{kb['id']}/documents/{docs[0]['id']}").status_code == 404
    )
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "receipts", "top_k": 50}
    ).json()
    assert {h["doc_id"] for h in hits} == {docs[1]["id"]}
    assert len(list(files_dir.iterdir())) == 1

    assert client.delete(f"/api/knowledge-bases/{kb['id']}").status_code == 204
    assert client.get(f"/api/knowledge-bases/{kb['id']}").status_code == 404
    assert client.get(f"/api/knowledge-bases/{kb['id']}/documents").status_code == 404
    assert not files_dir.exists()
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert not runtime.vectors.has_collection(kb["id"])
    assert runtime.metadata.list_chunks(docs[1]["id"]) == []
    # The name is free again.
    assert create_kb(client)["name"] == "docs"


def test_reindex_route_runs_in_the_background_and_reports(client: TestClient) -> None:
    kb = create_kb(client, "re")
    upload(client, kb["id"], ("policy.md", ENGLISH_MD.encode()))
    wait_for_documents(client, kb["id"])
    route = f"/api/knowledge-bases/{kb['id']}/reindex"
    assert client.get(route).status_code == 404
    bad = client.post(route, json={"embedding_model": "some-org/not-a-local-model"})
    assert bad.status_code == 400 and "ALLOWED_MODELS" in bad.json()["error"]["message"]
    started = client.post(route, json={"embedding_model": kb["embedding_model"]})
    assert started.status_code == 202, started.text
    assert started.json()["status"] == "running" and started.json()["generation"] == 1
    deadline = time.monotonic() + 120
    while (status := client.get(route).json())["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert status["status"] == "completed" and status["done"] == status["total"] > 0
    assert client.get(f"/api/knowledge-bases/{kb['id']}").json()["vector_generation"] == 1
    hits = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "How many days do I have to submit receipts?", "top_k": 1},
    ).json()
    assert "30 days" in hits[0]["content"]
