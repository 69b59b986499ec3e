"""Bad input gets a clear 4xx on every route, never a 500 (issue 10, items 8–10 and 12): bodies
that are not UTF-8, dates that are not dates, control characters in filters and metadata (one
rule for both), over-long queries reported as too long, blank names and questions."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planrag.app.main import create_app
from planrag.core.settings import Settings
from planrag.llm.embedders import EmbedderRegistry

NOT_UTF8 = b'{"query": "\xff\xfe caf\xe9", "text": "\xc3\x28"}'
JSON_ROUTES = [
    "/rag/insert",
    "/reranker/rerank",
    "/reranker/batch_rerank",
    "/prompt/summarize",
    "/prompt/chat",
    "/api/v1/retrieve",
    "/api/v1/rag/retrieve",
    "/api/v1/chunks/similarity-search",
    "/api/knowledge-bases",
    "/ai/v2/plan",
    "/ai/v2/ask",
]


@pytest.fixture(scope="module")
def app_client(tmp_path_factory, embedders: EmbedderRegistry) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("bad") / "data")  # type: ignore[call-arg]
    with TestClient(create_app(settings, embedders), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def kb(app_client: TestClient) -> dict[str, Any]:
    response = app_client.post("/api/knowledge-bases", json={"name": "bad-input"})
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.mark.parametrize("path", JSON_ROUTES)
def test_body_not_utf8_is_a_client_error(app_client: TestClient, path: str) -> None:
    response = app_client.post(path, content=NOT_UTF8, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500, response.text
    assert "UTF-8" in response.text


def test_body_not_utf8_on_own_routes_has_the_error_shape(app_client: TestClient, kb) -> None:  # type: ignore[no-untyped-def]
    response = app_client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        content=NOT_UTF8,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


def test_framework_errors_have_the_error_shape(app_client: TestClient) -> None:
    response = app_client.get("/api/no-such-route")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    response = app_client.put("/api/knowledge-bases")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize("date", ["2024-03-15", "2024031", "20241399", "yesterday"])
def test_summarize_date_not_yyyymmdd_is_400_in_the_spec_shape(
    app_client: TestClient, date: str
) -> None:
    for field in ("start_date", "end_date"):
        response = app_client.post("/prompt/summarize", json={"query": "메타버스", field: date})
        assert response.status_code == 400, response.text
        body = response.json()
        assert set(body) >= {"error", "message"}
        assert field in body["detail"]


def test_summarize_missing_query_keeps_the_spec_error(app_client: TestClient) -> None:
    for body in ({}, {"query": "  "}):
        response = app_client.post("/prompt/summarize", json=body)
        assert response.status_code == 400
        assert response.json()["error"] == "쿼리가 필요합니다"


def test_long_query_is_reported_as_too_long(app_client: TestClient) -> None:
    long = "메타버스 " * 600  # 3,000 characters
    response = app_client.get("/rag/search", params={"query_text": long})
    assert response.status_code == 400
    assert response.json()["result_code"] == "F000007"
    assert "2000" in response.json()["message"]
    response = app_client.get("/reranker/enhanced-search", params={"query_text": long})
    assert response.status_code == 400
    assert response.json()["result_code"] == "F000007"
    response = app_client.post("/prompt/summarize", json={"query": long})
    assert response.status_code == 400
    assert response.json()["error"] != "쿼리가 필요합니다"
    assert "query" in response.json()["detail"]
    response = app_client.post("/prompt/chat", json={"query": "x" * 20001})
    assert response.status_code == 400
    assert response.json()["error"] != "질문이 필요합니다"


def test_retrieve_refuses_dates_that_are_not_dates(app_client: TestClient, kb) -> None:  # type: ignore[no-untyped-def]
    for date in ("2024-13-45", "20240230"):
        response = app_client.post(
            f"/api/knowledge-bases/{kb['id']}/retrieve",
            json={"query": "x", "filters": {"date_from": date}},
        )
        assert response.status_code == 422, (date, response.text)
        assert "date_from" in response.json()["detail"]
    response = app_client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "x", "filters": {"date_from": "2024-02-29", "date_to": "20241231"}},
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("name", [" ", "   ", "\u3000"])
def test_blank_knowledge_base_name_is_refused(app_client: TestClient, name: str) -> None:
    response = app_client.post("/api/knowledge-bases", json={"name": name})
    assert response.status_code == 422, response.text


def test_blank_question_is_refused(app_client: TestClient) -> None:
    for question in (" ", "\n\t "):
        response = app_client.post("/ai/v2/plan", json={"question": question})
        assert response.status_code == 422, response.text
        response = app_client.post("/ai/v2/ask", json={"question": question})
        assert response.status_code == 422, response.text


# ── control characters: refused alike in filters and in metadata ─────────────────────────
CONTROL = "x\u0001y"


@pytest.mark.parametrize(
    "filters",
    [
        {"authors": [CONTROL]},
        {"domains": [CONTROL]},
        {"doc_ids": [CONTROL]},
        {"title_contains": CONTROL},
    ],
)
def test_control_character_in_a_filter_is_a_client_error(
    app_client: TestClient, kb, filters: dict[str, Any]
) -> None:  # type: ignore[no-untyped-def]
    for strategy in ("ann", "bm25", "hybrid"):
        response = app_client.post(
            f"/api/knowledge-bases/{kb['id']}/retrieve",
            json={"query": "x", "strategy": strategy, "filters": filters},
        )
        assert response.status_code == 422, (strategy, response.text)
        assert "control characters" in response.text


@pytest.mark.parametrize("param", ["author", "title"])
def test_control_character_in_spec000_filters_is_400(app_client: TestClient, param: str) -> None:
    for path in ("/rag/search", "/reranker/enhanced-search"):
        response = app_client.get(path, params={"query_text": "x", param: CONTROL})
        assert response.status_code == 400, (path, response.text)
    response = app_client.post(
        "/prompt/summarize", json={"query": "x", "author": CONTROL, "domain": "bad-input"}
    )
    assert response.status_code == 400, response.text


def test_control_character_in_metadata_is_refused_like_in_filters(
    app_client: TestClient, kb
) -> None:  # type: ignore[no-untyped-def]
    for field in ("title", "author", "domain"):
        response = app_client.post(
            f"/api/knowledge-bases/{kb['id']}/documents",
            files=[("files", ("a.txt", b"hello world"))],
            data={field: CONTROL},
        )
        assert response.status_code == 400, (field, response.text)
    for field in ("title", "author"):
        document = {
            "domain": "bad-input",
            "title": "제목",
            "author": "작성자",
            "text": "본문",
            "tags": {"date": "20240315"},
            field: CONTROL,
        }
        response = app_client.post("/rag/insert", json=document)
        assert response.status_code == 400, (field, response.text)
    # Tab and line breaks are text, on both sides.
    response = app_client.post(
        f"/api/knowledge-bases/{kb['id']}/retrieve",
        json={"query": "x", "filters": {"title_contains": "a\tb", "authors": ["c\nd"]}},
    )
    assert response.status_code == 200, response.text


# ── nesting: a JSON body or field nesting too deep is a 4xx on every route (issue 22 #4) ─────
DEEP = b"[" * 100_000


def json_operations(client: TestClient, kb_id: str) -> list[tuple[str, str]]:
    """(method, path) of every operation of the OpenAPI document that takes a JSON body."""
    found = []
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                concrete = path.replace("{kb_id}", kb_id)
                found.append((method.upper(), re.sub(r"\{[^}]+\}", "x", concrete)))
    return found


def test_deeply_nested_json_is_a_4xx_on_every_route(app_client: TestClient, kb) -> None:  # type: ignore[no-untyped-def]
    operations = json_operations(app_client, kb["id"])
    assert ("POST", "/reranker/rerank") in operations and len(operations) >= 15, operations
    for method, path in operations:
        for headers in ({"content-type": "application/json"}, {}):
            response = app_client.request(method, path, content=DEEP, headers=headers)
            assert response.status_code == 400, (method, path, headers, response.text[:300])
            error = response.json()["error"]
            assert error["code"] == "invalid_input" and "64 levels" in error["message"]
    # Declared as something else, the reranker's "was the body empty?" check parses it itself.
    for path in ("/reranker/rerank", "/reranker/batch_rerank"):
        response = app_client.post(path, content=DEEP, headers={"content-type": "text/plain"})
        assert 400 <= response.status_code < 500, (path, response.text[:300])


def test_nesting_within_the_limit_is_read_as_usual(app_client: TestClient) -> None:
    body = json.dumps({"query": "q", "results": [[[[["깊은"]]]]]})  # wrong shape, not too deep
    response = app_client.post("/reranker/rerank", content=body)
    assert response.status_code == 400 and response.json()["error"] == "Invalid input format"
    text = {"query": "q", "results": [{"text": '괄호 [[[[ 안의 글 \\" ]]', "id": "1"}]}
    response = app_client.post("/reranker/rerank", json=text)
    assert response.status_code != 400 or "levels" not in response.text


def test_deeply_nested_json_in_a_field_is_a_4xx(app_client: TestClient, kb) -> None:  # type: ignore[no-untyped-def]
    deep = DEEP.decode()[:5000]
    for param in ("info_filter", "tags_filter"):
        response = app_client.get("/rag/search", params={"query_text": "q", param: deep})
        assert response.status_code == 400, (param, response.text[:300])
    files = {"files": ("a.txt", "본문".encode())}
    response = app_client.post(
        f"/api/knowledge-bases/{kb['id']}/documents", files=files, data={"tags": deep}
    )
    assert response.status_code == 400 and "levels" in response.text, response.text[:300]


# ── issue 22, minor: 7-digit dates, and characters that disguise a knowledge base's name ─────
def test_a_seven_digit_date_is_refused_not_read_as_another_date(app_client: TestClient, kb) -> None:  # type: ignore[no-untyped-def]
    for date in ("2024031", "202431", "202403155"):
        files = {"files": ("d.txt", "날짜 시험".encode())}
        response = app_client.post(
            f"/api/knowledge-bases/{kb['id']}/documents", files=files, data={"date": date}
        )
        assert response.status_code == 400, (date, response.text)
    files = {"files": ("d.txt", "날짜 시험 원문".encode())}
    made = app_client.post(
        f"/api/knowledge-bases/{kb['id']}/documents", files=files, data={"date": "20240301"}
    )
    assert made.status_code == 202 and made.json()[0]["metadata"]["date"] == "2024-03-01"


@pytest.mark.parametrize("mark", ["\u202e", "\u202a", "\u2066", "\u200f", "\u2028", "\u2029"])
def test_bidi_controls_and_separators_are_refused_in_kb_names(
    app_client: TestClient, kb, mark: str
) -> None:  # type: ignore[no-untyped-def]
    name = f"team{mark}fdp.exe"
    created = app_client.post("/api/knowledge-bases", json={"name": name})
    assert created.status_code == 422, created.text
    renamed = app_client.patch(f"/api/knowledge-bases/{kb['id']}", json={"name": name})
    assert renamed.status_code == 422, renamed.text
    inserted = app_client.post(
        "/rag/insert",
        json={
            "domain": name,
            "title": "제목",
            "author": "저자",
            "text": "본문",
            "tags": {"date": "20240315"},
        },
    )
    assert inserted.status_code == 400, inserted.text
    names = [k["name"] for k in app_client.get("/api/knowledge-bases").json()]
    assert name not in names
