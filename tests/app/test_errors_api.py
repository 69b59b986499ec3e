"""Bad input gets a clear error with a stable code, and loses nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import Settings
from tests.app.test_knowledge_bases_api import create_kb, upload
from tests.conftest import wait_for_documents

MISSING = "00000000-0000-0000-0000-000000000000"


def error_code(response) -> str:
    return response.json()["error"]["code"]


def test_unknown_kb_and_document_are_404(client: TestClient) -> None:
    for method, path in [
        ("get", f"/api/knowledge-bases/{MISSING}"),
        ("delete", f"/api/knowledge-bases/{MISSING}"),
        ("get", f"/api/knowledge-bases/{MISSING}/documents"),
    ]:
        response = getattr(client, method)(path)
        assert response.status_code == 404
        assert error_code(response) == "knowledge_base_not_found"
    response = client.post(f"/api/knowledge-bases/{MISSING}/retrieve", json={"query": "x"})
    assert response.status_code == 404
    response = upload(client, MISSING, ("a.txt", b"hello"))
    assert response.status_code == 404

    kb = create_kb(client)
    for method in ("get", "delete"):
        response = getattr(client, method)(f"/api/knowledge-bases/{kb['id']}/documents/{MISSING}")
        assert response.status_code == 404
        assert error_code(response) == "document_not_found"
    response = client.get(f"/api/knowledge-bases/{kb['id']}/documents/{MISSING}/chunks")
    assert response.status_code == 404


def test_document_of_another_kb_is_404(client: TestClient) -> None:
    one, two = create_kb(client, "one"), create_kb(client, "two")
    doc = upload(client, one["id"], ("a.txt", b"hello world")).json()[0]
    response = client.get(f"/api/knowledge-bases/{two['id']}/documents/{doc['id']}")
    assert response.status_code == 404


def test_duplicate_name_is_409(client: TestClient) -> None:
    create_kb(client, "same")
    response = client.post("/api/knowledge-bases", json={"name": "same"})
    assert response.status_code == 409
    assert error_code(response) == "knowledge_base_exists"
    other = create_kb(client, "other")
    response = client.patch(f"/api/knowledge-bases/{other['id']}", json={"name": "same"})
    assert response.status_code == 409


def test_unsupported_type_is_415_and_nothing_is_stored(client: TestClient) -> None:
    kb = create_kb(client)
    response = upload(client, kb["id"], ("ok.txt", b"fine"), ("image.png", b"\x89PNG...."))
    assert response.status_code == 415
    assert error_code(response) == "unsupported_file_type"
    assert client.get(f"/api/knowledge-bases/{kb['id']}/documents").json() == []


def test_empty_upload_is_400(client: TestClient) -> None:
    kb = create_kb(client)
    response = upload(client, kb["id"], ("empty.txt", b""))
    assert response.status_code == 400
    assert error_code(response) == "empty_upload"
    response = client.post(f"/api/knowledge-bases/{kb['id']}/documents", data={"author": "x"})
    assert response.status_code == 422


def test_a_whitespace_only_file_is_empty_too(client: TestClient) -> None:
    """One rule for 0-byte and blank files: refused at upload, nothing stored (it used to be
    accepted, then fail while indexing)."""
    kb = create_kb(client)
    blank = " \n\t\r\n\u3000\n".encode()  # ideographic space included
    for name, data in (("blank.txt", blank), ("blank.md", "\ufeff  \n".encode())):
        response = upload(client, kb["id"], ("ok.txt", b"fine"), (name, data))
        assert response.status_code == 400, name
        assert error_code(response) == "empty_upload"
        assert "only whitespace" in response.json()["error"]["message"]
    assert client.get(f"/api/knowledge-bases/{kb['id']}/documents").json() == []


@pytest.fixture
def small_limit_client(settings: Settings, embedders) -> TestClient:
    limited = settings.model_copy(
        update={"ingest": settings.ingest.model_copy(update={"max_upload_mb": 0.001})}
    )
    with TestClient(create_app(limited, embedders)) as test_client:
        yield test_client


def test_oversized_upload_is_413(small_limit_client: TestClient) -> None:
    kb = create_kb(small_limit_client)
    response = upload(small_limit_client, kb["id"], ("big.txt", b"a" * 2000))
    assert response.status_code == 413
    assert error_code(response) == "upload_too_large"
    assert "PLANRAG_INGEST__MAX_UPLOAD_MB" in response.json()["error"]["message"]


def test_invalid_bodies_are_422_with_a_clear_message(client: TestClient) -> None:
    response = client.post("/api/knowledge-bases", json={"name": "x", "top_k": 500})
    assert response.status_code == 422
    assert error_code(response) == "validation_error"
    assert "top_k" in response.json()["error"]["message"]
    response = client.post("/api/knowledge-bases", json={"name": "x", "metric": "HAMMING"})
    assert response.status_code == 422
    kb = create_kb(client)
    response = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": ""})
    assert response.status_code == 422
    response = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "x", "top_k": 51}
    )
    assert response.status_code == 422


def test_bad_metadata_is_400(client: TestClient) -> None:
    kb = create_kb(client)
    response = upload(client, kb["id"], ("a.txt", b"hello"), date="15th of March")
    assert response.status_code == 400
    assert "date" in response.json()["error"]["message"]


def test_unknown_strategy_is_refused(client: TestClient) -> None:
    kb = create_kb(client)
    response = client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "x", "strategy": "sql"}
    )
    assert response.status_code == 422
    assert "strategy" in response.json()["error"]["message"]


def test_missing_reranker_model_is_a_503_naming_the_setting(client: TestClient) -> None:
    kb = create_kb(client)
    upload(client, kb["id"], ("a.txt", b"hello world"))
    wait_for_documents(client, kb["id"])
    body = {"query": "hello", "strategy": "ann", "use_reranker": True}
    response = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json=body)
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "model_unavailable"
    assert "PLANRAG_RERANK__MODEL" in response.json()["error"]["message"]


def test_2_stage_without_a_reranker_runs_its_first_stage_and_says_so(client: TestClient) -> None:
    kb = create_kb(client)
    upload(client, kb["id"], ("a.txt", b"hello world"))
    wait_for_documents(client, kb["id"])
    body = {"query": "hello", "strategy": "2-stage"}
    response = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json=body)
    assert response.status_code == 200, response.text
    hits = response.json()
    assert hits and hits[0]["metadata"]["rerank_score"] is None
    notice = response.headers["x-planrag-notice"]
    assert notice.startswith("reranking skipped") and "PLANRAG_RERANK__MODEL" in notice
    notices = hits[0]["notices"]  # the body says so too
    assert notices and notices[0].startswith("reranking skipped")
    assert "PLANRAG_RERANK__MODEL" in notices[0]
    plain = client.post(f"/api/knowledge-bases/{kb['id']}/retrieve", json={"query": "hello"})
    assert "x-planrag-notice" not in plain.headers
    assert plain.json()[0]["notices"] is None


def test_errors_carry_a_code_and_parameters_for_translation(client: TestClient) -> None:
    """What the console shows in the user's language: the error's code and its parameters
    (the knowledge base, the file), and a failed document's reason as a code too."""
    response = client.get(f"/api/knowledge-bases/{MISSING}")
    assert response.json()["error"]["details"]["kb"] == MISSING
    kb = create_kb(client, "messages")
    response = upload(client, kb["id"], ("empty.txt", b""))
    assert response.json()["error"]["details"]["filename"] == "empty.txt"
    upload(client, kb["id"], ("broken.pdf", b"not a pdf at all"), ("ok.txt", b"hello world"))
    docs = {d["filename"]: d for d in wait_for_documents(client, kb["id"])}
    broken = docs["broken.pdf"]
    assert broken["status"] == "error"
    assert broken["error_detail"] == {
        "code": "parse_error",
        "params": {"reason": "not_pdf"},
        "text": broken["error"],
    }
    assert docs["ok.txt"]["error_detail"] is None and docs["ok.txt"]["progress_detail"] is None
