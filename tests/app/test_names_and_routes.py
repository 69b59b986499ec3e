"""One way to name a knowledge base (its name or its id, in paths and in `knowledge_bases`), and
unknown routes answered in the documented error shape (issue 16)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents


def test_every_kb_route_takes_the_name_or_the_id(client: TestClient) -> None:
    kb = create_kb(client, "team-docs")
    other = create_kb(client, "팀 문서")
    assert client.get("/api/knowledge-bases/team-docs").json()["id"] == kb["id"]
    assert client.get(f"/api/knowledge-bases/{kb['id']}").json()["name"] == "team-docs"
    assert client.get("/api/knowledge-bases/팀 문서").json()["id"] == other["id"]

    uploaded = upload(client, "team-docs", ("leave.md", "연차 휴가는 15일입니다.".encode()))
    assert uploaded.status_code == 202, uploaded.text
    doc = uploaded.json()[0]
    assert doc["kb_id"] == kb["id"]
    docs = wait_for_documents(client, "team-docs")
    assert [d["id"] for d in docs] == [doc["id"]]
    assert client.get(f"/api/knowledge-bases/team-docs/documents/{doc['id']}").status_code == 200
    chunks = client.get(f"/api/knowledge-bases/team-docs/documents/{doc['id']}/chunks")
    assert chunks.status_code == 200 and chunks.json()

    hits = client.post("/api/knowledge-bases/team-docs/retrieve", json={"query": "연차 휴가"})
    assert hits.status_code == 200 and hits.json()[0]["doc_id"] == doc["id"]
    patched = client.patch("/api/knowledge-bases/team-docs", json={"description": "HR"})
    assert patched.status_code == 200 and patched.json()["id"] == kb["id"]

    missing = client.get("/api/knowledge-bases/nope/documents")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "knowledge_base_not_found"
    assert client.delete("/api/knowledge-bases/팀 문서").status_code == 204
    assert [k["name"] for k in client.get("/api/knowledge-bases").json()] == ["team-docs"]


def test_ask_and_plan_take_knowledge_base_ids(client: TestClient) -> None:
    kb = create_kb(client, "news")
    create_kb(client, "other")
    plan = client.post("/ai/v2/plan", json={"question": "환율 전망", "knowledge_bases": [kb["id"]]})
    assert plan.status_code == 200, plan.text
    assert plan.json()["plan"]["knowledge_bases"] == ["news"]
    by_name = client.post(
        "/ai/v2/plan", json={"question": "환율 전망", "knowledge_bases": ["news"]}
    )
    assert by_name.json()["plan"]["knowledge_bases"] == ["news"]
    with client.stream(
        "POST", "/ai/v2/ask", json={"question": "환율 전망", "knowledge_bases": [kb["id"]]}
    ) as response:
        assert response.status_code == 200
        text = response.read().decode()
    assert "event: end" in text and '"knowledge_bases": ["news"]' in text


def test_unknown_routes_answer_in_the_error_shape(client: TestClient) -> None:
    # (other paths belong to the web console, served at `/`)
    for path in ("/api/knowledge-base", "/ai/v2/nope"):
        response = client.get(path)
        assert response.status_code == 404
        body = response.json()
        assert body["error"]["code"] == "not_found" and path in body["error"]["message"]
        assert body["detail"] == body["error"]["message"]
    wrong_method = client.put("/api/knowledge-bases")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"


def test_api_docs_work_offline(client: TestClient) -> None:
    """Swagger UI and ReDoc load their scripts from this server (a packaged copy), not a CDN."""
    for page, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        html = client.get(page)
        assert html.status_code == 200 and "text/html" in html.headers["content-type"]
        assert f"/docs/assets/{asset}" in html.text
        assert "cdn." not in html.text and "fonts.googleapis" not in html.text
        script = client.get(f"/docs/assets/{asset}")
        assert script.status_code == 200 and len(script.content) > 100_000
    assert client.get("/docs/assets/swagger-ui.css").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "planrag"
