"""A Markdown file's front matter (`--- author/date/tags ---`) uploaded over HTTP (as the
console does) becomes the document's metadata, as `planrag ingest` makes it, and is never
indexed as text (issue 28: it came back as chunk 0 for "연차 휴가는 며칠인가요?")."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

HANDBOOK = """---
title: 인사 규정
author: 인사팀
date: 2025-03-02
tags: [hr, leave]
---
# 한빛로보틱스 인사 규정

연차 휴가는 입사 첫해 15일이며 매년 1일씩 늘어난다.
""".encode()


def test_front_matter_is_metadata_not_text(client: TestClient) -> None:
    kb = create_kb(client, "hr-fm")
    response = upload(client, kb["id"], ("handbook.md", HANDBOOK), domain="규정", tags="policy")
    assert response.status_code == 202, response.text
    (doc,) = response.json()
    metadata = doc["metadata"]
    assert metadata["title"] == "인사 규정" and metadata["author"] == "인사팀"
    assert metadata["date"] == "2025-03-02" and metadata["domain"] == "규정"  # the form's
    assert metadata["tags"] == ["policy", "hr", "leave"]  # merged
    wait_for_documents(client, kb["id"])
    chunks = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{doc['id']}/chunks").json()
    assert chunks and all("author:" not in c["text"] and "---" not in c["text"] for c in chunks)
    assert chunks[0]["text"].startswith("# 한빛로보틱스 인사 규정")
    body = {"query": "연차 휴가는 며칠인가요?", "strategy": "bm25", "score_threshold": 0}
    hits = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json=body).json()
    assert hits and all("tags:" not in h["content"] for h in hits)
    dated = {**body, "filters": {"authors": ["인사팀"], "date_from": "2025-03-01"}}
    found = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json=dated).json()
    assert [h["doc_id"] for h in found] == [doc["id"]]


def test_a_bad_front_matter_is_refused_and_nothing_is_stored(client: TestClient) -> None:
    kb = create_kb(client, "hr-bad")
    bad_date = b"---\ndate: yesterday-ish\n---\n# x\n\nbody\n"
    response = upload(client, kb["id"], ("fine.txt", b"plain text"), ("handbook.md", bad_date))
    assert response.status_code == 400, response.text
    assert "handbook.md" in response.json()["error"]["message"]
    assert client.get(f"/api/knowledge-bases/{kb['id']}/documents").json() == []


def test_a_thematic_break_is_not_front_matter(client: TestClient) -> None:
    kb = create_kb(client, "hr-hr")
    text = "---\n이 문서는 머리글이 없다.\n---\n\n연차 휴가는 15일이다.\n".encode()
    (doc,) = upload(client, kb["id"], ("plain.md", text)).json()
    assert doc["metadata"]["author"] is None
    wait_for_documents(client, kb["id"])
    chunks = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{doc['id']}/chunks").json()
    assert "머리글이 없다" in chunks[0]["text"]


def test_a_markdown_file_that_is_not_text_fails_alone(client: TestClient) -> None:
    """Bytes no text encoding reads, named .md: that document ends `error` with the reason, as a
    broken PDF does; the batch's other files are indexed (the front matter read refused all)."""
    kb = create_kb(client, "hr-binary")
    binary = bytes(range(128, 256)) * 40
    response = upload(
        client,
        kb["id"],
        ("fine.md", "# 규정\n\n연차는 15일이다.\n".encode()),
        ("broken.md", binary),
    )
    assert response.status_code == 202, response.text
    wait_for_documents(client, kb["id"])
    docs = {
        d["filename"]: d for d in client.get(f"/api/knowledge-bases/{kb['id']}/documents").json()
    }
    assert docs["fine.md"]["status"] == "completed"
    assert docs["broken.md"]["status"] == "error"
    assert "decode" in docs["broken.md"]["error"]
