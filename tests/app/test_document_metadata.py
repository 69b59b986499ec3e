"""A document's metadata can change after upload: PATCH …/documents/{id}, or re-uploading the
same content with new metadata (`duplicate: true, metadata_updated: […]`); filters see the new
values once the document is indexed again."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

TEXT = "연차 휴가는 입사 첫해 15일이며 매년 1일씩 늘어난다.".encode()


def found_by(client: TestClient, kb_id: str, **filters: object) -> list[str]:
    body = {"query": "연차 휴가", "strategy": "bm25", "score_threshold": 0, "filters": filters}
    response = client.post(f"/api/knowledge-bases/{kb_id}/retrieve", json=body)
    assert response.status_code == 200, response.text
    return [h["doc_id"] for h in response.json()]


def test_patch_changes_metadata_and_filters_follow(client: TestClient) -> None:
    kb = create_kb(client, "hr")
    doc = upload(client, "hr", ("leave.txt", TEXT), author="김민수").json()[0]
    wait_for_documents(client, kb["id"])
    assert found_by(client, kb["id"], authors=["김민수"]) == [doc["id"]]

    patched = client.patch(
        f"/api/knowledge-bases/hr/documents/{doc['id']}",
        json={"author": "이영희", "date": "20251120", "tags": ["policy"]},
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert sorted(body["metadata_updated"]) == ["author", "date", "tags"]
    wanted = {"author": "이영희", "domain": None, "date": "2025-11-20", "tags": ["policy"]}
    assert {k: body["metadata"][k] for k in wanted} == wanted
    (after,) = wait_for_documents(client, kb["id"])
    assert after["status"] == "completed" and after["metadata"]["author"] == "이영희"
    assert found_by(client, kb["id"], authors=["이영희"]) == [doc["id"]]
    assert found_by(client, kb["id"], authors=["김민수"]) == []
    assert found_by(client, kb["id"], date_from="2025-11-20") == [doc["id"]]

    same = client.patch(f"/api/knowledge-bases/hr/documents/{doc['id']}", json={"author": "이영희"})
    assert same.json()["metadata_updated"] == [] and same.json()["status"] == "completed"
    bad = client.patch(f"/api/knowledge-bases/hr/documents/{doc['id']}", json={"date": "어제"})
    assert bad.status_code == 422
    missing = client.patch("/api/knowledge-bases/hr/documents/nope", json={"author": "x"})
    assert missing.status_code == 404


def test_reupload_with_new_metadata_updates_it(client: TestClient) -> None:
    kb = create_kb(client, "hr")
    first = upload(client, kb["id"], ("leave.txt", TEXT), author="김민수").json()[0]
    wait_for_documents(client, kb["id"])
    again = upload(client, kb["id"], ("leave.txt", TEXT), domain="hr", tags="policy,leave")
    assert again.status_code == 202, again.text
    (doc,) = again.json()
    assert doc["id"] == first["id"] and doc["duplicate"] is True
    assert sorted(doc["metadata_updated"]) == ["domain", "tags"]
    assert doc["metadata"]["author"] == "김민수"  # not given: kept
    wait_for_documents(client, kb["id"])
    assert found_by(client, kb["id"], domains=["hr"]) == [first["id"]]
    plain = upload(client, kb["id"], ("leave.txt", TEXT)).json()[0]
    assert plain["duplicate"] is True and plain["metadata_updated"] == []


def test_new_chunking_rechunks_the_existing_documents(client: TestClient) -> None:
    kb = create_kb(client, "hr", chunking={"strategy": "size", "chunk_size": 400})
    long_text = ("연차 휴가는 입사 첫해 15일이며 매년 1일씩 늘어난다. " * 40).encode()
    upload(client, "hr", ("leave.txt", long_text))
    (before,) = wait_for_documents(client, kb["id"])
    patched = client.patch("/api/knowledge-bases/hr", json={"chunking": {"chunk_size": 100}})
    assert patched.status_code == 200, patched.text
    assert patched.headers["x-planrag-notice"] == "re-chunking 1 document(s) in the background"
    assert patched.json()["chunking"]["chunk_overlap"] == 12  # follows the size the user set
    (after,) = wait_for_documents(client, kb["id"])
    assert after["status"] == "completed" and after["chunk_count"] > before["chunk_count"]
    chunks = client.get(f"/api/knowledge-bases/hr/documents/{after['id']}/chunks").json()
    assert len(chunks) == after["chunk_count"] and max(len(c["text"]) for c in chunks) <= 100
    same = client.patch("/api/knowledge-bases/hr", json={"description": "HR"})
    assert "x-planrag-notice" not in same.headers
